/**
 * Checkout and the sandbox provider while the database cannot write (the sandbox keeps its intents
 * and webhooks there): a statement trigger raises PostgreSQL's own disk_full error (SQLSTATE 53100)
 * on chosen tables. A checkout answers 503 `service_unavailable` with Retry-After (not 502: the
 * provider is not at fault), an intent that cannot be cancelled, a delayed payment that cannot
 * succeed and a webhook that cannot be recorded are each one throttled warning at most, never a
 * line with a stack; once the database writes again, the payments settle by themselves.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { ShopDriver } from '../orders/orders.test-support.ts';
import { SANDBOX_WEBHOOK_LOOP } from '../payments/payments.loops.ts';
import { ATTEMPT_LEASE_MS } from '../payments/sandbox.webhooks.ts';
import { startTestApp, testConfig, waitFor, type TestApp } from '../test/harness.ts';

const DELAY_MS = 1000;

let t: TestApp;
let shop: ShopDriver;
let variantId: string;

before(async () => {
  t = await startTestApp({
    workers: true,
    config: { payments: { ...testConfig().payments, sandboxDelayMs: DELAY_MS } },
  });
  shop = await ShopDriver.open(t);
  variantId = await shop.variant(100);
});
after(() => t.close());

type Write = 'INSERT' | 'UPDATE';

/**
 * These tables refuse these writes as a full disk makes PostgreSQL do, until `allowWrites`; each
 * refused statement is counted in a sequence (which a rollback does not undo): see `refusedWrites`.
 */
async function refuseWrites(db: Kysely<Database>, refused: Record<string, Write[]>): Promise<void> {
  await sql`CREATE SEQUENCE IF NOT EXISTS storefront_test_refused`.execute(db);
  await sql`
    CREATE FUNCTION storefront_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM nextval('storefront_test_refused');
      RAISE EXCEPTION 'could not extend file "base/16384/16415": No space left on device'
        USING ERRCODE = 'disk_full';
    END $$`.execute(db);
  for (const [table, writes] of Object.entries(refused))
    await sql`
      CREATE TRIGGER storefront_test_disk_full BEFORE ${sql.raw(writes.join(' OR '))} ON ${sql.id(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION storefront_test_disk_full()`.execute(db);
}

async function allowWrites(db: Kysely<Database>): Promise<void> {
  await sql`DROP FUNCTION storefront_test_disk_full() CASCADE`.execute(db);
}

/** How many writes `refuseWrites` has refused so far. */
async function refusedWrites(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT CASE WHEN is_called THEN last_value ELSE 0 END::int AS n FROM storefront_test_refused`.execute(
    t.db.kysely,
  );
  return rows[0]!.n;
}

const hasStack = (line: Record<string, unknown>): boolean => /"stack"|\\n\s+at /.test(JSON.stringify(line));

/** The log lines written since `from`: none with a stack, every warning the outage's own line. */
function assertOutageLogged(from: number, quiet: RegExp): void {
  const lines = t.logs.slice(from);
  assert.deepEqual(lines.filter(hasStack), [], 'no stack trace in the log');
  assert.deepEqual(
    lines.filter((line) => quiet.test(String(line.msg))),
    [],
    `no "${quiet.source}" line`,
  );
  const warnings = lines.filter((line) => (line.level as number) >= 40);
  assert.ok(
    warnings.every((line) => /database unavailable/.test(String(line.msg))),
    `only the throttled outage warning: ${JSON.stringify(warnings)}`,
  );
}

async function checkoutDuringOutage(): Promise<void> {
  const response = await shop.checkout({
    cartId: await shop.cart([{ variantId, quantity: 1 }]),
    email: 'a@example.com',
  });
  assert.equal(response.statusCode, 503, response.body);
  assert.equal(response.headers['retry-after'], '5');
  assert.equal(response.json<{ title: string }>().title, 'service_unavailable');
}

test('the sandbox cannot record an intent: checkout answers 503 with Retry-After, logged without a stack', async () => {
  const from = t.logs.length;
  await refuseWrites(t.db.kysely, { sandbox_intents: ['INSERT'] });
  try {
    await checkoutDuringOutage();
    await checkoutDuringOutage();
  } finally {
    await allowWrites(t.db.kysely);
  }
  assertOutageLogged(from, /payment provider failed at checkout/);
});

test('the order cannot be written nor its intent cancelled: 503, and the cancel is not a warning with a stack', async () => {
  const from = t.logs.length;
  await refuseWrites(t.db.kysely, { carts: ['UPDATE'], sandbox_intents: ['UPDATE'] });
  try {
    await checkoutDuringOutage();
    await checkoutDuringOutage();
  } finally {
    await allowWrites(t.db.kysely);
  }
  assertOutageLogged(from, /could not cancel an unused payment intent/);
});

test('a delayed payment that cannot succeed meanwhile: no error, no stack; it succeeds once the database writes', async () => {
  const bought = await shop.buy(variantId);
  const confirmedAt = Date.now();
  await shop.confirm(bought, 'pm_card_delayed');
  const from = t.logs.length;
  // Before SANDBOX_DELAY has passed: its success cannot be written.
  await refuseWrites(t.db.kysely, { sandbox_intents: ['UPDATE'] });
  try {
    assert.equal((await shop.order(bought.order.id)).payment.status, 'processing');
    // Its timer fires after SANDBOX_DELAY and its write is refused; then the loop tries too.
    const refused = await refusedWrites();
    await waitFor(
      async () => Date.now() >= confirmedAt + DELAY_MS && (await refusedWrites()) > refused,
      DELAY_MS + 10_000,
      'the delayed payment’s write to be refused',
    );
    const pass = t.nextPass(SANDBOX_WEBHOOK_LOOP);
    t.runtime.signals.wake(SANDBOX_WEBHOOK_LOOP);
    await pass;
    assert.ok((await refusedWrites()) >= refused + 2, 'the loop’s write was refused too');
    assert.equal(
      t.logs.slice(from).find((line) => hasStack(line) || /delayed payment/.test(String(line.msg))),
      undefined,
      'no line about the delayed payment',
    );
  } finally {
    await allowWrites(t.db.kysely);
  }
  assertOutageLogged(from, /delayed payment failed/);
  t.runtime.signals.wake(SANDBOX_WEBHOOK_LOOP);
  await waitFor(async () => (await shop.order(bought.order.id)).status === 'paid', 10_000, 'paid');
});

test('a webhook that cannot be received nor recorded meanwhile: the confirmation stands, no stack; delivered later', async () => {
  const bought = await shop.buy(variantId);
  const from = t.logs.length;
  await refuseWrites(t.db.kysely, { provider_events: ['INSERT'], sandbox_webhooks: ['UPDATE'] });
  try {
    await shop.confirm(bought);
    assert.equal((await shop.order(bought.order.id)).status, 'pending', 'the webhook did not go through');
  } finally {
    await allowWrites(t.db.kysely);
  }
  assertOutageLogged(from, /webhook delivery failed/);
  // Its attempt was not recorded: the lease ends and the loop delivers it.
  t.clock.advance(ATTEMPT_LEASE_MS + 1000);
  t.runtime.signals.wake(SANDBOX_WEBHOOK_LOOP);
  await waitFor(async () => (await shop.order(bought.order.id)).status === 'paid', 10_000, 'paid');
  const paid = await shop.events('order.paid');
  assert.equal(paid.filter((data) => data.orderId === bought.order.id).length, 1);
});
