/**
 * A database outage, on PostgreSQL: a real `storefront serve` reaches PostgreSQL through a TCP proxy
 * that the test cuts (every connection dropped, new ones refused, as when PostgreSQL stops) and
 * restores. Meanwhile every request that needs the database answers 503 problem+json with
 * `Retry-After`, liveness still answers, the outage is logged once per interval without a stack
 * (not once per request), and once the database is back the process serves and sells again by
 * itself.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  startTestAppWithDb,
  waitFor,
  type ServiceProcess,
  type TestApp,
  type TestDb,
  skipUnlessPostgres,
} from '../test/harness.ts';
import { hasStack, logLinesSince, purchase, serveThroughProxy, stopProcess } from '../test/served.ts';
import type { TcpProxy } from '../test/tcp-proxy.ts';
import { ShopDriver } from '../orders/orders.test-support.ts';

let db: TestDb;
let t: TestApp;
let proxy: TcpProxy;
let server: ServiceProcess;

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb());
  ({ proxy, server } = await serveThroughProxy(db, t, { LOG_LEVEL: 'warn', REDIS_URL: undefined }));
});
after(async () => {
  if (skipUnlessPostgres) return;
  await stopProcess(server);
  await proxy.close();
  await t.close();
});

test(
  'a database outage answers 503 with Retry-After, logs once, and the service recovers by itself',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(10);
    const key = shop.shop.publishableKey;
    const storefront = (method: string, path: string, body?: object, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/storefront/v1${path}`, {
        method,
        headers: {
          'x-publishable-key': key,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const admin = (path: string) =>
      fetch(`${server.url}/admin/v1${path}`, {
        headers: { authorization: `Bearer ${shop.shop.staffToken}` },
      });
    const cart = await storefront('POST', '/carts', { items: [{ variantId, quantity: 1 }] });
    assert.equal(cart.status, 201);
    const cartId = ((await cart.json()) as { id: string }).id;
    const logsBefore = server.output().length;

    proxy.cut();
    const requests = [
      ...Array.from(
        { length: 20 },
        () => () => storefront('POST', '/carts', { items: [{ variantId, quantity: 1 }] }),
      ),
      ...Array.from({ length: 10 }, () => () => storefront('GET', `/carts/${cartId}`)),
      ...Array.from({ length: 10 }, () => () => storefront('GET', '/products')),
      ...Array.from({ length: 10 }, () => () => admin('/orders')),
      () =>
        storefront(
          'POST',
          '/checkout',
          { cartId, email: 'buyer@example.com' },
          { 'idempotency-key': randomUUID() },
        ),
      () => fetch(`${server.url}/readyz`),
    ];
    for (const request of requests) {
      const response = await request();
      const body = (await response.json()) as { title?: string; status?: number; detail?: string };
      assert.equal(response.status, 503, `${response.url}: ${JSON.stringify(body)}`);
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(body.title, 'service_unavailable');
      assert.equal(response.headers.get('retry-after'), '5');
      assert.doesNotMatch(body.detail ?? '', /ECONN|terminated|at \w+ \(/, 'no internals in the answer');
    }
    const live = await fetch(`${server.url}/healthz`);
    assert.equal(live.status, 200, 'liveness does not depend on the database');

    const during = logLinesSince(server, logsBefore).filter((line) => line.level >= 40);
    assert.equal(
      during.filter((line) => line.level >= 50).length,
      0,
      `no error-level line: ${JSON.stringify(during)}`,
    );
    const outageLines = during.filter((line) => /database unavailable/.test(line.msg));
    assert.ok(
      outageLines.length >= 1 && outageLines.length <= 2,
      `the outage is logged once per 10 s, not per request (${requests.length} requests): ${JSON.stringify(during)}`,
    );
    assert.ok(!during.some(hasStack), 'no stack trace in the log during the outage');

    proxy.restore();
    // The pool reconnects by itself: the next requests are served, and a purchase goes through.
    await waitFor(
      async () => (await storefront('GET', `/carts/${cartId}`)).status === 200,
      15_000,
      'the cart to be served again',
    );
    await purchase(server, key, { cartId });
    assert.equal(server.child.exitCode, null, 'the process is still running');
  },
);
