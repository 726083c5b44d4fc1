/**
 * A database that cannot write (a full disk), on both databases: every table refuses writes with
 * PostgreSQL's own error for it (SQLSTATE 53100 disk_full, "could not extend file …: No space left
 * on device", raised by a statement trigger on every table) while the app serves requests and runs
 * its worker loops. Writes answer 503 problem+json with Retry-After, reads still answer, readiness
 * fails (a full disk still answers `SELECT 1`), the failures are one throttled warning without a
 * stack (no error-level line: the harness fails the file on one), and once the disk has room the
 * service writes again and becomes ready by itself.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { MAIL_LOOP } from '../mail/outbox.ts';
import { ORDER_EXPIRY_LOOP } from '../orders/orders.loops.ts';
import { ShopDriver } from '../orders/orders.test-support.ts';
import { startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { WEBHOOK_PURGE_LOOP, WEBHOOK_RELAY_LOOP } from '../webhooks/webhooks.loops.ts';
import {
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from '../webhooks/webhooks.test-support.ts';
import { RESOURCE_FAILURE_WINDOW_MS } from './errors.ts';
import type { Database } from './tables.ts';

let t: TestApp;
let receiver: Receiver;

before(async () => {
  receiver = await startReceiver();
  t = await startTestApp({ workers: true, config: webhookTestConfig() });
});
after(async () => {
  try {
    await t.close();
  } finally {
    await receiver.close();
  }
});

/** Every table of the schema refuses INSERT, UPDATE and DELETE as a full disk makes PostgreSQL do. */
async function fillTheDisk(db: Kysely<Database>): Promise<void> {
  await sql`
    CREATE FUNCTION storefront_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'could not extend file "base/16384/16415": No space left on device'
        USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
    END $$`.execute(db);
  const { rows } = await sql<{ name: string }>`
    SELECT tablename AS name FROM pg_tables
    WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely_migration%'`.execute(db);
  for (const { name } of rows)
    await sql`
      CREATE TRIGGER storefront_test_disk_full BEFORE INSERT OR UPDATE OR DELETE ON ${sql.id(name)}
      FOR EACH STATEMENT EXECUTE FUNCTION storefront_test_disk_full()`.execute(db);
}

async function freeTheDisk(db: Kysely<Database>): Promise<void> {
  await sql`DROP FUNCTION storefront_test_disk_full() CASCADE`.execute(db);
}

const hasStack = (line: Record<string, unknown>): boolean => /"stack"|\\n\s+at /.test(JSON.stringify(line));

test('a full disk: writes answer 503 with Retry-After, readiness fails, one warning without a stack, and the service recovers by itself', async () => {
  const shop = await ShopDriver.open(t);
  await registerEndpoint(t, shop.shop, receiver.url);
  const variantId = await shop.variant(100);
  const cartId = await shop.cart([{ variantId, quantity: 1 }]);
  // An unpaid order for the expiry loop to settle, overdue once the clock moves on.
  const unpaid = await shop.checkout({
    cartId: await shop.cart([{ variantId, quantity: 1 }]),
    email: 'a@example.com',
  });
  assert.equal(unpaid.statusCode, 201, unpaid.body);
  assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  const logsBefore = t.logs.length;

  await fillTheDisk(t.db.kysely);
  try {
    const writes = [
      () => shop.storefront('POST', '/carts', { items: [{ variantId, quantity: 1 }] }),
      () => shop.storefront('PUT', `/carts/${cartId}`, { items: [{ variantId, quantity: 2 }] }),
      () =>
        shop.admin('POST', '/products', {
          title: 'New',
          status: 'active',
          variants: [{ label: 'One', priceAmount: 100, onHand: 1 }],
        }),
      () => shop.admin('PATCH', `/variants/${variantId}`, { priceAmount: 1200 }),
    ];
    for (const write of writes) {
      const response = await write();
      assert.equal(response.statusCode, 503, `${response.statusCode} ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      assert.equal(response.headers['retry-after'], '5');
      const body = response.json<{ title: string; detail: string }>();
      assert.equal(body.title, 'service_unavailable');
      assert.doesNotMatch(body.detail, /extend|No space|base\//, 'no internals in the answer');
    }
    const read = await shop.storefront('GET', `/carts/${cartId}`);
    assert.equal(read.statusCode, 200, 'reads still answer');

    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503, 'not ready while writes fail, though SELECT 1 answers');
    assert.equal(ready.headers['retry-after'], '5');

    // The loops meet the full disk too: the relay's claims, the mail worker's, expiry's. Each is
    // woken and run once more (the relay runs until the worker stops: it has no pass to wait for).
    t.clock.advance(t.config.payments.orderTtlMs + 60_000);
    const loops = [WEBHOOK_PURGE_LOOP, MAIL_LOOP, 'refund-reconcile', ORDER_EXPIRY_LOOP];
    const passes = loops.map((loop) => t.nextPass(loop));
    for (const loop of [WEBHOOK_RELAY_LOOP, ...loops]) t.runtime.signals.wake(loop);
    await Promise.all(passes);
  } finally {
    await freeTheDisk(t.db.kysely);
  }

  const during = t.logs.slice(logsBefore);
  assert.deepEqual(during.filter(hasStack), [], 'no stack trace in the log');
  const warnings = during.filter((line) => (line.level as number) >= 40);
  assert.equal(warnings.length, 1, `one throttled warning: ${JSON.stringify(warnings)}`);
  assert.match(String(warnings[0]!.msg), /database unavailable/);
  assert.equal(warnings[0]!.code, '53100');

  // Room again: writes succeed at once; readiness follows once no such failure is recent (the
  // clock has moved past the window already: the overdue order).
  const cart = await shop.storefront('POST', '/carts', { items: [{ variantId, quantity: 1 }] });
  assert.equal(cart.statusCode, 201, cart.body);
  assert.ok(t.config.payments.orderTtlMs > RESOURCE_FAILURE_WINDOW_MS);
  assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  const checkout = await shop.checkout(
    { cartId: cart.json<{ id: string }>().id, email: 'b@example.com' },
    randomUUID(),
  );
  assert.equal(checkout.statusCode, 201, checkout.body);
  // The overdue order is settled by the expiry loop now that it can write.
  const orderId = unpaid.json<{ order: { id: string } }>().order.id;
  t.runtime.signals.wake(ORDER_EXPIRY_LOOP);
  await waitFor(
    async () =>
      (await shop.storefront('GET', `/orders/${orderId}`)).json<{ status: string }>().status === 'expired',
    10_000,
    'the overdue order to expire',
  );
});
