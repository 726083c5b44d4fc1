/**
 * Connections terminated under load, on PostgreSQL: two `storefront serve` processes (each with
 * the worker loops) sell to concurrent buyers while the test terminates every connection the
 * service holds (`pg_terminate_backend`, as a restart or an administrator does: between two
 * statements of a transaction, during a statement, on idle connections and on the relay's LISTEN
 * connection), three times. Afterwards both processes still answer, no request was a 500, every
 * buyer's order is paid exactly once, the stock is exact, every order has its events, every event
 * reached the webhook receiver, every buyer got the confirmation mail, and purchases made after
 * the last termination complete as well: the loops resumed by themselves.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { ShopDriver } from '../orders/orders.test-support.ts';
import {
  addressesOf,
  startTestAppWithDb,
  readMailDir,
  serveProcess,
  waitFor,
  type ServiceProcess,
  type TestApp,
  type TestDb,
  skipUnlessPostgres,
} from '../test/harness.ts';
import {
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from '../webhooks/webhooks.test-support.ts';

const BUYERS = 6;
const TERMINATIONS = 3;

let db: TestDb;
let t: TestApp;
let receiver: Receiver;
let mailDir: string;
const servers: ServiceProcess[] = [];

before(async () => {
  if (skipUnlessPostgres) return;
  ({ db, t } = await startTestAppWithDb({ config: webhookTestConfig() }));
  receiver = await startReceiver();
  mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-connection-loss-'));
  for (let i = 0; i < 2; i++) {
    servers.push(
      await serveProcess(db, t.config.secretKey!, {
        LOG_LEVEL: 'warn',
        REDIS_URL: undefined,
        ALLOW_HTTP_WEBHOOKS: '1',
        WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,2s,2s,2s,2s,2s,2s,2s',
        EMAIL_TRANSPORT: `file:${mailDir}`,
        MAIL_RETRY_SCHEDULE: '200ms,500ms,1s,2s,2s,2s,2s',
        MAIL_LEASE: '3s',
        IDEMPOTENCY_LEASE: '2s',
      }),
    );
  }
});
after(async () => {
  if (skipUnlessPostgres) return;
  for (const server of servers) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) continue;
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
  await receiver.close();
  await t.close();
  fs.rmSync(mailDir, { recursive: true, force: true });
});

/** Terminates every session of the service's processes on the test database; returns how many. */
async function terminateServiceConnections(): Promise<number> {
  const { rows } = await sql<{ terminated: number }>`
    SELECT count(*)::int AS terminated FROM (
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND application_name LIKE 'storefront %'
    ) AS t`.execute(t.db.kysely);
  return rows[0]!.terminated;
}

test(
  'every connection of the service terminated under a purchase load: processes survive, nothing is lost, work resumes',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await ShopDriver.open(t);
    await registerEndpoint(t, shop.shop, receiver.url);
    const onHand = 10_000;
    const variantId = await shop.variant(onHand, 1500);
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

    /**
     * A request, retried as a client would while the service answers 503 or the socket drops (a
     * read is also repeated while it answers 200 without being `done`: polling).
     */
    const call = async (
      url: string,
      init: RequestInit,
      done: (status: number, body: Record<string, unknown>) => boolean,
      explain: () => Promise<string> = async () => '',
    ): Promise<Record<string, unknown>> => {
      // Time, not attempts: under a loaded machine a request takes longer. 90 s covers the sandbox's
      // own retries of a webhook that failed four times in a row (0.2 + 1 + 5 + 15 s).
      const deadline = Date.now() + 90_000;
      let last = 'no answer';
      while (Date.now() < deadline) {
        let response: Response;
        try {
          response = await fetch(url, init);
        } catch {
          await sleep(100);
          continue;
        }
        count(response.status);
        const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
        if (done(response.status, body)) return body;
        last = `${response.status} ${JSON.stringify(body).slice(0, 300)}`;
        assert.ok(
          response.status === 503 ||
            (response.status === 409 && body.title === 'idempotency_in_progress') ||
            (response.status === 200 && init.method === undefined),
          `${init.method ?? 'GET'} ${url}: unexpected ${response.status} ${JSON.stringify(body)}`,
        );
        await sleep(100);
      }
      throw new Error(`${url} did not succeed; last answer ${last}${await explain()}`);
    };
    const json = (method: string, body: object, headers: Record<string, string> = {}): RequestInit => ({
      method,
      headers: {
        'content-type': 'application/json',
        'x-publishable-key': shop.shop.publishableKey,
        ...headers,
      },
      body: JSON.stringify(body),
    });

    /** Where a payment that never made its order paid stopped: its rows and the processes' logs. */
    const paymentTrail = async (orderId: string, ref: string): Promise<string> => {
      const payments = await t.db.kysely
        .selectFrom('payments')
        .selectAll()
        .where('order_id', '=', orderId)
        .execute();
      const webhooks = await t.db.kysely
        .selectFrom('sandbox_webhooks')
        .selectAll()
        .where('intent_ref', '=', ref)
        .execute();
      const logs = servers.map((server, i) => `process ${i}:\n${server.output().slice(-4000)}`);
      return `\npayments ${JSON.stringify(payments)}\nsandbox webhooks ${JSON.stringify(webhooks)}\n${logs.join('\n')}`;
    };

    const purchases: { orderId: string; email: string }[] = [];
    /** A buyer's whole purchase against one process: cart, checkout, payment, the order paid. */
    const purchase = async (base: string, email: string): Promise<void> => {
      const cart = await call(
        `${base}/storefront/v1/carts`,
        json('POST', { items: [{ variantId, quantity: 1 }] }),
        (s) => s === 201,
      );
      const checkout = await call(
        `${base}/storefront/v1/checkout`,
        json('POST', { cartId: cart.id, email }, { 'idempotency-key': randomUUID() }),
        (s) => s === 201,
      );
      const { order, payment } = checkout as {
        order: { id: string };
        payment: { ref: string; clientSecret: string };
      };
      purchases.push({ orderId: order.id, email });
      await call(
        `${base}/sandbox/v1/payments/${payment.ref}/confirm`,
        { ...json('POST', { clientSecret: payment.clientSecret, paymentMethod: 'pm_card_visa' }) },
        // A confirmation whose answer was lost answers 200 again (its webhook attempted again); a
        // 409 would be an intent cancelled under its order (decision `intent-of-an-unknown-outcome`).
        (s) => s === 200,
      );
      await call(
        `${base}/storefront/v1/orders/${order.id}`,
        { headers: { 'x-publishable-key': shop.shop.publishableKey } },
        (s, body) => s === 200 && body.status === 'paid',
        () => paymentTrail(order.id, payment.ref),
      );
    };

    let selling = true;
    let sold = 0;
    const buyers = Array.from({ length: BUYERS }, async (_, b) => {
      for (let n = 0; selling; n++) {
        await purchase(servers[b % servers.length]!.url, `buyer-${b}-${n}@example.com`);
        sold += 1;
      }
    });
    const terminated: number[] = [];
    await waitFor(() => sold >= 10, 30_000, 'the first purchases');
    for (let i = 0; i < TERMINATIONS; i++) {
      terminated.push(await terminateServiceConnections());
      // Selling goes on before the next termination.
      const soldAtTermination = sold;
      await waitFor(() => sold >= soldAtTermination + BUYERS, 60_000, `purchases after termination ${i + 1}`);
    }
    const soldAtLastTermination = sold;
    // Work resumes by itself: purchases go on after the last termination.
    await waitFor(() => sold >= soldAtLastTermination + 10, 60_000, 'purchases after the terminations');
    selling = false;
    await Promise.all(buyers);

    assert.ok(
      terminated.every((n) => n > 0),
      `connections were terminated each time (${terminated.join(', ')})`,
    );
    assert.equal(statuses.get(500) ?? 0, 0, `no 500 (statuses ${JSON.stringify([...statuses])})`);
    for (const server of servers) {
      assert.equal(server.child.exitCode, null, `a process died:\n${server.output().slice(-3000)}`);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200, 'every process is ready again');
    }

    // Orders and stock: one paid order per purchase, the stock exact.
    const orders = await t.db.kysely
      .selectFrom('orders')
      .select(['id', 'status'])
      .where('store_id', '=', shop.storeId)
      .execute();
    assert.equal(orders.length, purchases.length, 'one order per purchase (retried checkouts included)');
    assert.deepEqual([...new Set(orders.map((o) => o.status))], ['paid']);
    assert.deepEqual(await shop.stock(variantId), { on_hand: onHand - purchases.length, reserved: 0 });

    // Events: each order has its order.created and order.paid, once.
    const events = await t.db.kysely
      .selectFrom('events')
      .select(['id', 'type', 'data'])
      .where('store_id', '=', shop.storeId)
      .execute();
    for (const type of ['order.created', 'order.paid']) {
      const orderIds = events.filter((e) => e.type === type).map((e) => String(e.data.orderId));
      assert.equal(orderIds.length, orders.length, `one ${type} per order`);
      assert.deepEqual(new Set(orderIds), new Set(orders.map((o) => o.id)));
    }
    // Delivery: every event of the store reached the receiver (at least once).
    const eventIds = new Set(events.map((e) => e.id));
    await waitFor(
      () => {
        const received = new Set(receiver.requests.map((r) => r.body.id));
        return [...eventIds].every((id) => received.has(id));
      },
      60_000,
      `all ${eventIds.size} events delivered`,
    );
    // Mail: every buyer got the confirmation.
    await waitFor(
      async () => {
        const to = new Set((await readMailDir(mailDir)).flatMap(addressesOf));
        return purchases.every((p) => to.has(p.email));
      },
      60_000,
      'a confirmation mail to every buyer',
    );

    const logs = servers.flatMap((server) =>
      server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string }),
    );
    const errors = logs.filter((line) => line.level >= 50);
    assert.deepEqual(errors, [], 'no error-level log line: an outage is a warning, once per interval');
    process.stdout.write(
      `# connection loss: ${purchases.length} purchases, ${soldAtLastTermination} before the last termination; sessions terminated ${terminated.join(', ')}; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${eventIds.size} events delivered\n`,
    );
  },
);
