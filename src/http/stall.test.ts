/**
 * A stalled database under load, on PostgreSQL: a real `storefront serve` (with its worker loops)
 * reaches PostgreSQL through a TCP proxy that the test stalls (every connection kept open, new ones
 * accepted, nothing forwarded either way: a frozen server, a paused VM, a silent network) while
 * buyers keep sending requests. With DATABASE_STATEMENT_TIMEOUT=1s every request in flight answers
 * 503 problem+json with Retry-After while the database is still stalled (within the bound and its
 * 2 s margin, not the stall's length), `/readyz` answers 503 within its own bound, nothing logs a
 * stack or an error, and once the proxy forwards again the service sells by itself.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { ShopDriver } from '../orders/orders.test-support.ts';
import {
  startTestAppWithDb,
  skipUnlessPostgres,
  waitFor,
  type ServiceProcess,
  type TestApp,
  type TestDb,
} from '../test/harness.ts';
import { hasStack, logLinesSince, purchase, serveThroughProxy, stopProcess } from '../test/served.ts';
import type { TcpProxy } from '../test/tcp-proxy.ts';

/** How long the test waits for the requests in flight before it gives up (and resumes the proxy). */
const GIVE_UP_MS = 40_000;
const BUYERS = 8;

let db: TestDb;
let t: TestApp;
let proxy: TcpProxy;
let server: ServiceProcess;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
  ({ proxy, server } = await serveThroughProxy(db, t, {
    DATABASE_STATEMENT_TIMEOUT: '1s',
    DATABASE_READINESS_TIMEOUT: '500ms',
    LOG_LEVEL: 'warn',
    REDIS_URL: undefined,
  }));
});
after(async () => {
  if (skipUnlessPostgres) return;
  proxy.resume();
  await stopProcess(server);
  await proxy.close();
  await t.close();
});

interface Answered {
  what: string;
  start: number;
  end: number;
  status: number;
  title?: string;
  retryAfter: string | null;
  contentType: string;
}

test(
  'a stalled database under load: requests in flight answer 503 with Retry-After before it comes back, readiness fails, the service recovers by itself',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(100_000);
    const key = shop.shop.publishableKey;
    const at = (() => {
      const t0 = performance.now();
      return () => performance.now() - t0;
    })();
    const answered: Answered[] = [];
    const send = async (what: string, path: string, init: RequestInit = {}): Promise<Answered> => {
      const start = at();
      const response = await fetch(`${server.url}${path}`, init);
      const body = (await response.json().catch(() => ({}))) as { title?: string };
      const entry: Answered = {
        what,
        start,
        end: at(),
        status: response.status,
        ...(body.title === undefined ? {} : { title: body.title }),
        retryAfter: response.headers.get('retry-after'),
        contentType: response.headers.get('content-type') ?? '',
      };
      answered.push(entry);
      return entry;
    };
    const json = (body: object): RequestInit => ({
      method: 'POST',
      headers: { 'x-publishable-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    let carts: string[] = [];
    let sending = true;
    /** A buyer: a cart, the cart read back, the store's orders as staff see them; again. */
    const buyer = async (): Promise<void> => {
      while (sending) {
        const cart = await send(
          'POST /carts',
          '/storefront/v1/carts',
          json({ items: [{ variantId, quantity: 1 }] }),
        );
        const cartId = carts[Math.floor(Math.random() * carts.length)];
        if (cartId)
          await send('GET /carts/:id', `/storefront/v1/carts/${cartId}`, {
            headers: { 'x-publishable-key': key },
          });
        await send('GET /admin/v1/orders', '/admin/v1/orders', {
          headers: { authorization: `Bearer ${shop.shop.staffToken}` },
        });
        if (cart.status !== 201) await sleep(50);
      }
    };
    const probes: Answered[] = [];
    const prober = async (): Promise<void> => {
      while (sending) {
        probes.push(await send('GET /readyz', '/readyz'));
        await sleep(100);
      }
    };

    const first = await fetch(
      `${server.url}/storefront/v1/carts`,
      json({ items: [{ variantId, quantity: 1 }] }),
    );
    assert.equal(first.status, 201);
    carts = [((await first.json()) as { id: string }).id];
    const load = [...Array.from({ length: BUYERS }, buyer), prober()];
    await waitFor(() => answered.filter((a) => a.status === 201).length >= 20, 30_000, 'the load to run');
    const logsBefore = server.output().length;

    proxy.stall();
    const stalledAt = at();
    // The buyers keep sending into the stall until two requests each (more than twice the 3 s
    // deadline: sent into a stall already old) and a readiness probe, all sent during it, are answered.
    await waitFor(
      () =>
        answered.filter((a) => a.start > stalledAt && a.what !== 'GET /readyz').length >= 2 * BUYERS &&
        probes.some((p) => p.start > stalledAt),
      GIVE_UP_MS,
      'requests sent into the stall to be answered',
    );
    sending = false;
    const settled = await Promise.race([
      Promise.all(load).then(() => true),
      sleep(GIVE_UP_MS).then(() => false),
    ]);
    const resumedAt = at();
    proxy.resume();
    assert.ok(settled, `requests were still waiting ${(resumedAt - stalledAt) / 1000} s into the stall`);

    const during = answered.filter((a) => a.end > stalledAt && a.what !== 'GET /readyz');
    const longest = Math.max(...during.map((a) => a.end - a.start));
    const statuses: Record<number, number> = {};
    for (const a of during) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    process.stdout.write(
      `# stall: ${during.length} requests in flight during a ${Math.round((resumedAt - stalledAt) / 1000)} s stall (DATABASE_STATEMENT_TIMEOUT=1s): statuses ${JSON.stringify(statuses)}, the longest ${(longest / 1000).toFixed(1)} s; readiness during it ${JSON.stringify(probes.filter((p) => p.start >= stalledAt).map((p) => p.status))}\n`,
    );
    assert.ok(during.length >= BUYERS, 'requests were in flight during the stall');
    for (const a of during) {
      // A request answered from before the stall may still complete; everything else is a 503.
      if (a.start < stalledAt && a.status < 300) continue;
      assert.equal(a.status, 503, `${a.what}: ${a.status} ${a.title ?? ''}`);
      assert.equal(a.title, 'service_unavailable');
      assert.match(a.contentType, /^application\/problem\+json/);
      assert.equal(a.retryAfter, '5');
    }
    const probesDuring = probes.filter((p) => p.start >= stalledAt);
    assert.ok(probesDuring.length > 0);
    assert.deepEqual(new Set(probesDuring.map((p) => p.status)), new Set([503]), 'not ready while stalled');
    assert.equal(
      (await fetch(`${server.url}/healthz`)).status,
      200,
      'liveness does not depend on the database',
    );

    const lines = logLinesSince(server, logsBefore);
    assert.deepEqual(
      lines.filter((line) => line.level >= 50),
      [],
      'no error-level line: a stall is an outage, a warning',
    );
    assert.deepEqual(lines.filter(hasStack), [], 'no stack trace in the log');
    const outage = lines.filter((line) => /database unavailable/.test(line.msg));
    assert.ok(
      outage.length >= 1 && outage.length <= 2,
      `the outage is logged once per 10 s: ${JSON.stringify(lines)}`,
    );

    // Back: ready again, and a purchase goes through, without a restart.
    await waitFor(async () => (await fetch(`${server.url}/readyz`)).status === 200, 15_000, 'ready again');
    await purchase(server, key, { variantId });
    assert.equal(server.child.exitCode, null, 'the process is still running');
  },
);
