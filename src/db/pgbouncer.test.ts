/**
 * The service through a real PgBouncer in transaction mode, on PostgreSQL (decision
 * `behind-pgbouncer`): migrations, purchases paid by the provider's webhook with their events
 * relayed and their mail sent, admin writes read back, concurrent purchases that never oversell
 * under concurrent catalog reads, and a PgBouncer restart under a purchase load that costs only the
 * requests in flight. Two `storefront serve` processes (each with the worker loops) run with
 * `DATABASE_POOLER=transaction`: one LISTENs on PostgreSQL directly (`DATABASE_DIRECT_URL`), the
 * other has no way past the pooler and polls.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { ShopDriver } from '../orders/orders.test-support.ts';
import { runCli } from '../test/cli.ts';
import {
  addressesOf,
  openBlankPostgres,
  readMailDir,
  serveProcess,
  skipUnlessPostgres,
  startTestAppWithDb,
  waitFor,
  type ServiceProcess,
  type TestApp,
  type TestDb,
} from '../test/harness.ts';
import { skipUnlessPgbouncer, startPgbouncer, type Pgbouncer } from '../test/pgbouncer.ts';
import { stopProcess } from '../test/served.ts';
import {
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from '../webhooks/webhooks.test-support.ts';
import { migrationNames } from './migrate.ts';

const skip = skipUnlessPostgres || skipUnlessPgbouncer;

let bouncer: Pgbouncer;
let db: TestDb;
let t: TestApp;
let shop: ShopDriver;
let receiver: Receiver;
let mailDir: string;
/** [0]: LISTENs past the pooler (DATABASE_DIRECT_URL); [1]: polls. */
const servers: ServiceProcess[] = [];

before(async () => {
  if (skip) return;
  bouncer = await startPgbouncer(process.env.DATABASE_URL!);
  ({ db, t } = await startTestAppWithDb({ config: webhookTestConfig() }));
  shop = await ShopDriver.open(t);
  receiver = await startReceiver();
  await registerEndpoint(t, shop.shop, receiver.url);
  mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-pgbouncer-mail-'));
  for (const direct of [db.url!, undefined]) {
    servers.push(
      await serveProcess(db, t.config.secretKey!, {
        DATABASE_URL: bouncer.through(db.url!),
        DATABASE_POOLER: 'transaction',
        DATABASE_DIRECT_URL: direct,
        LOG_LEVEL: 'warn',
        REDIS_URL: undefined,
        ALLOW_HTTP_WEBHOOKS: '1',
        WEBHOOK_TIMEOUT: '2s',
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
  if (skip) return;
  for (const server of servers) await stopProcess(server);
  await receiver.close();
  await t.close();
  await bouncer.close();
  fs.rmSync(mailDir, { recursive: true, force: true });
});

/** Answers by status, counted over the whole file. */
const statuses = new Map<number, number>();

/** A process's answer: its status and JSON body (empty when it has none). */
interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A JSON request to a process; its status (counted) and body. */
async function send(
  base: string,
  method: string,
  url: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      'x-publishable-key': shop.shop.publishableKey,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  return {
    status: response.status,
    body: (await response.json().catch(() => ({}))) as Record<string, unknown>,
  };
}

const admin = { authorization: '' };

/** Checkout of a fresh cart of one unit; the answer (201, or 409 when the stock is gone). */
async function checkout(base: string, variantId: string, email: string) {
  const cart = await send(base, 'POST', '/storefront/v1/carts', { items: [{ variantId, quantity: 1 }] });
  assert.equal(cart.status, 201, JSON.stringify(cart.body));
  return send(
    base,
    'POST',
    '/storefront/v1/checkout',
    { cartId: cart.body.id, email },
    { 'idempotency-key': randomUUID() },
  );
}

/** The sandbox's confirmation of a checkout's payment, then its order read until it is paid. */
async function payAndWait(base: string, answer: Record<string, unknown>): Promise<string> {
  const { order, payment } = answer as {
    order: { id: string };
    payment: { ref: string; clientSecret: string };
  };
  const confirmed = await send(base, 'POST', `/sandbox/v1/payments/${payment.ref}/confirm`, {
    clientSecret: payment.clientSecret,
    paymentMethod: 'pm_card_visa',
  });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  await waitFor(
    async () => (await send(base, 'GET', `/storefront/v1/orders/${order.id}`)).body.status === 'paid',
    20_000,
    `order ${order.id} to be paid`,
  );
  return order.id;
}

/** Waits until every order's order.paid event reached the receiver and every address got a mail. */
async function delivered(orderIds: readonly string[], emails: readonly string[]): Promise<void> {
  await waitFor(
    () => {
      const paid = new Set(
        receiver.requests
          .filter((r) => r.body.event === 'order.paid')
          .map((r) => String((r.body.data as { orderId?: unknown }).orderId)),
      );
      return orderIds.every((id) => paid.has(id));
    },
    // A delivery whose attempt's outcome was lost when PgBouncer went away is retried once its
    // lease ends (WEBHOOK_TIMEOUT + 30 s), as after any lost connection.
    60_000,
    'every order.paid event relayed to the receiver',
  ).catch(async (error: Error) => {
    // What the relays left: deliveries by status, with their leases and attempts.
    const { rows } = await sql`
      SELECT d.status, count(*)::int AS n, max(d.attempts) AS attempts, max(d.locked_until) AS locked_until,
        max(d.last_error) AS last_error
      FROM webhook_deliveries d WHERE d.store_id = ${shop.storeId} AND d.status <> 'delivered'
      GROUP BY 1`.execute(t.db.kysely);
    throw new Error(`${error.message} at ${new Date().toISOString()}: ${JSON.stringify(rows)}`);
  });
  await waitFor(
    async () => {
      const to = new Set((await readMailDir(mailDir)).flatMap(addressesOf));
      return emails.every((email) => to.has(email));
    },
    30_000,
    'a confirmation mail to every buyer',
  );
}

/** The sessions of the test database named `application_name` whose last statement was `query`. */
async function sessions(applicationName: string, query: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = ${applicationName} AND query = ${query}`.execute(
    t.db.kysely,
  );
  return rows[0]!.n;
}

test('migrations run through PgBouncer in transaction mode', { skip }, async () => {
  const blank = (await openBlankPostgres())!;
  try {
    const run = await runCli(['migrate'], {
      DATABASE_URL: bouncer.through(blank.url),
      DATABASE_POOLER: 'transaction',
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const client = new pg.Client({ connectionString: blank.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM kysely_migration');
      assert.equal(rows[0]!.n, migrationNames().length);
    } finally {
      await client.end();
    }
  } finally {
    await blank.drop();
  }
});

test(
  'through PgBouncer: purchases are paid by the webhook, relayed and mailed; an admin write is read back by both processes',
  { skip },
  async () => {
    admin.authorization = `Bearer ${shop.shop.staffToken}`;
    const [direct, polling] = servers as [ServiceProcess, ServiceProcess];
    const created = await send(
      direct.url,
      'POST',
      '/admin/v1/products',
      {
        title: 'Kettle',
        status: 'active',
        variants: [{ label: 'One', priceAmount: 2500, onHand: 50 }],
      },
      admin,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const productId = String(created.body.id);
    const variantId = (created.body.variants as { id: string }[])[0]!.id;

    const orderIds: string[] = [];
    const emails: string[] = [];
    for (const server of servers) {
      const email = `buyer-${randomUUID().slice(0, 8)}@example.com`;
      const answer = await checkout(server.url, variantId, email);
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      orderIds.push(await payAndWait(server.url, answer.body));
      emails.push(email);
    }
    await delivered(orderIds, emails);

    // Each process caches the product's page; a write through one is read back by both.
    for (const server of servers) {
      const read = await send(server.url, 'GET', `/storefront/v1/products/${productId}`);
      assert.equal(read.body.title, 'Kettle');
    }
    const renamed = await send(
      polling.url,
      'PATCH',
      `/admin/v1/products/${productId}`,
      { title: 'Teapot' },
      admin,
    );
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    for (const server of servers) {
      await waitFor(
        async () =>
          (await send(server.url, 'GET', `/storefront/v1/products/${productId}`)).body.title === 'Teapot',
        5000,
        'the new title on every process',
      );
    }

    // Only the process given DATABASE_DIRECT_URL LISTENs, there and not through the pooler.
    assert.equal(await sessions('storefront serve listener', 'LISTEN storefront_read'), 1);
    assert.equal(await sessions('storefront webhook listener', 'LISTEN storefront_webhooks'), 1);
    assert.equal(direct.child.exitCode, null);
  },
);

test(
  '20 concurrent purchases of 15 units through PgBouncer sell exactly 15, while the catalog is read',
  { skip },
  async () => {
    const variantId = await shop.variant(15);
    const reads: Promise<{ status: number }>[] = [];
    const checkouts = Array.from({ length: 20 }, (_, i) => {
      const base = servers[i % servers.length]!.url;
      for (let r = 0; r < 2; r++) reads.push(send(base, 'GET', '/storefront/v1/products?limit=50'));
      return checkout(base, variantId, `rush-${i}@example.com`);
    });
    const answers = await Promise.all(checkouts);
    assert.deepEqual(
      (await Promise.all(reads)).map((r) => r.status),
      reads.map(() => 200),
    );
    const sold = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 409);
    assert.equal(sold.length, 15, JSON.stringify(answers.map((a) => a.status)));
    assert.equal(refused.length, 5);
    for (const answer of refused) assert.equal(answer.body.title, 'insufficient_stock');
    await Promise.all(sold.map((answer, i) => payAndWait(servers[i % servers.length]!.url, answer.body)));
    assert.deepEqual(await shop.stock(variantId), { on_hand: 0, reserved: 0 });
  },
);

test('a PgBouncer restart under a purchase load costs only the requests in flight', { skip }, async () => {
  const buyers = 6;
  const variantId = await shop.variant(10_000);
  /** The requests that did not succeed at once: each with its first failure. */
  const failed: string[] = [];
  let retries = 0;
  /** When each answer that said the database was away (503, or no answer) came, ms since the epoch. */
  const outages: number[] = [];
  /**
   * A request retried while it answers 503 or its connection breaks, as a client would (a checkout
   * whose first try was cut off answers 409 idempotency_in_progress until its lease ends).
   */
  const until = async (
    label: string,
    attempt: () => Promise<Answer>,
    done: (answer: Answer) => boolean,
  ): Promise<Record<string, unknown>> => {
    for (let n = 0; n < 200; n++) {
      const answer: Answer = await attempt().catch((error: Error) => ({
        status: 0,
        body: { error: error.message },
      }));
      if (done(answer)) return answer.body;
      if (n === 0 && answer.status !== 200)
        failed.push(`${label}: ${answer.status} ${String(answer.body.title)}`);
      if (answer.status !== 200) retries += 1;
      if (answer.status === 0 || answer.status === 503) outages.push(Date.now());
      assert.ok(
        [0, 200, 503].includes(answer.status) ||
          (answer.status === 409 &&
            ['idempotency_in_progress', 'payment_not_confirmable'].includes(String(answer.body.title))),
        `${label}: unexpected ${answer.status} ${JSON.stringify(answer.body)}`,
      );
      await sleep(100);
    }
    throw new Error(`${label} did not succeed`);
  };
  const purchases: { orderId: string; email: string }[] = [];
  const purchase = async (base: string, email: string): Promise<void> => {
    const cart = await until(
      'cart',
      () => send(base, 'POST', '/storefront/v1/carts', { items: [{ variantId, quantity: 1 }] }),
      (a) => a.status === 201,
    );
    const key = randomUUID();
    const answer = await until(
      'checkout',
      () =>
        send(base, 'POST', '/storefront/v1/checkout', { cartId: cart.id, email }, { 'idempotency-key': key }),
      (a) => a.status === 201,
    );
    const { order, payment } = answer as {
      order: { id: string };
      payment: { ref: string; clientSecret: string };
    };
    purchases.push({ orderId: order.id, email });
    await until(
      'confirm',
      () =>
        send(base, 'POST', `/sandbox/v1/payments/${payment.ref}/confirm`, {
          clientSecret: payment.clientSecret,
          paymentMethod: 'pm_card_visa',
        }),
      // A confirmation whose answer was lost is confirmed already the second time.
      (a) => a.status === 200 || (a.status === 409 && a.body.title === 'payment_not_confirmable'),
    );
    await until(
      'order',
      () => send(base, 'GET', `/storefront/v1/orders/${order.id}`),
      (a) => a.status === 200 && a.body.status === 'paid',
    );
  };

  let selling = true;
  let sold = 0;
  const load = Array.from({ length: buyers }, async (_, b) => {
    for (let n = 0; selling; n++) {
      await purchase(servers[b % servers.length]!.url, `load-${b}-${n}@example.com`);
      sold += 1;
    }
  });
  await waitFor(() => sold >= 10, 30_000, 'the first purchases');
  const stoppedAt = Date.now();
  await bouncer.restart();
  const backAt = Date.now();
  const atRestart = sold;
  await waitFor(() => sold >= atRestart + 2 * buyers, 60_000, 'purchases after the restart');
  selling = false;
  await Promise.all(load);

  // Only the requests in flight while PgBouncer was away failed (at most one per buyer, and the
  // retries of a buyer whose request failed): none once it was back.
  assert.ok(outages.length > 0, 'the restart cut requests off');
  assert.ok(
    outages.every((at) => at >= stoppedAt && at <= backAt + 2000),
    `503s only during the restart (${stoppedAt}–${backAt}): ${outages.join(', ')}`,
  );
  assert.ok(failed.length <= 2 * buyers, `failed requests:\n${failed.join('\n')}`);
  for (const server of servers) {
    assert.equal(server.child.exitCode, null, `a process died:\n${server.output().slice(-3000)}`);
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
  }
  const orders = await t.db.kysely
    .selectFrom('orders')
    .select(['id', 'status'])
    .where(
      'id',
      'in',
      purchases.map((p) => p.orderId),
    )
    .execute();
  assert.equal(orders.length, purchases.length);
  assert.deepEqual([...new Set(orders.map((o) => o.status))], ['paid']);
  assert.deepEqual(await shop.stock(variantId), { on_hand: 10_000 - purchases.length, reserved: 0 });
  await delivered(
    purchases.map((p) => p.orderId),
    purchases.map((p) => p.email),
  );
  assert.equal(statuses.get(500) ?? 0, 0, `no 500 (statuses ${JSON.stringify([...statuses])})`);
  const errors = servers.flatMap((server) =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 50),
  );
  assert.deepEqual(errors, [], 'no error-level log line');
  process.stdout.write(
    `# pgbouncer restart: ${purchases.length} purchases, ${atRestart} before the restart; PgBouncer away ${backAt - stoppedAt} ms; ${failed.length} requests failed (${retries} retries): ${failed.join('; ') || 'none'}\n`,
  );
});
