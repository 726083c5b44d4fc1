/**
 * A process killed between a sandbox payment succeeding and its webhook being delivered (decision
 * `sandbox-webhook-outbox`). On PostgreSQL a real `storefront serve` confirms the payment, its
 * webhook is held up (the test holds the payment's row lock, so the receiver waits), and the
 * process is killed with SIGKILL; on the embedded database (one process only) a sandbox whose
 * delivery never returns stands for the dead process. Either way another app's `sandbox-webhooks`
 * loop delivers the webhook once the dead attempt's lease has ended: the order is paid, with one
 * order.paid, and the buyer's retried confirmation answers as the first would have.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import { startTestAppWithDb, serveProcess, waitFor, type TestApp, type TestDb } from '../test/harness.ts';
import { SANDBOX_WEBHOOK_LOOP } from './payments.loops.ts';
import { confirmInDeadProcess, intentStatus } from './sandbox.test-support.ts';
import { ATTEMPT_LEASE_MS } from './sandbox.webhooks.ts';

let db: TestDb;
let t: TestApp;

before(async () => ({ db, t } = await startTestAppWithDb({ workers: true })));
after(() => t.close());

/** A real `serve` confirms the payment and is killed while its webhook waits for a row lock. */
async function confirmInProcessKilled(bought: CheckoutBody): Promise<void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holder = db.kysely.transaction().execute(async (trx) => {
    await sql`SELECT 1 FROM payments WHERE ref = ${bought.payment.ref} FOR UPDATE`.execute(trx);
    locked();
    await held;
  });
  await lockTaken;
  const served = await serveProcess(db, t.config.secretKey!, { REDIS_URL: undefined, RUN_WORKERS: 'false' });
  try {
    const answer = fetch(`${served.url}/sandbox/v1/payments/${bought.payment.ref}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientSecret: bought.payment.clientSecret, paymentMethod: 'pm_card_visa' }),
    }).catch(() => null);
    await waitFor(
      () => intentStatus(t, bought.payment.ref).then((s) => s === 'succeeded'),
      10_000,
      'payment',
    );
    served.child.kill('SIGKILL');
    await new Promise((resolve) => served.child.once('exit', resolve));
    assert.equal(await answer, null, 'the killed process never answered');
  } finally {
    release();
    await holder;
  }
}

test('a process killed between a sandbox payment and its webhook: another settles the order, and the retried confirmation succeeds', async (context) => {
  const shop = await ShopDriver.open(t);
  const variantId = await shop.variant(5);
  const bought = await shop.buy(variantId);

  if (db.url) await confirmInProcessKilled(bought);
  else await confirmInDeadProcess(t, bought);
  context.diagnostic(db.url ? 'serve killed with SIGKILL before its webhook' : 'delivery never returned');
  assert.equal((await shop.order(bought.order.id)).status, 'pending', 'the webhook did not arrive');

  // The dead attempt's lease ends; this app's loop delivers the webhook.
  t.clock.advance(ATTEMPT_LEASE_MS + 1000);
  t.runtime.signals.wake(SANDBOX_WEBHOOK_LOOP);
  await waitFor(
    async () => (await shop.order(bought.order.id)).status === 'paid',
    10_000,
    'the order paid by another process',
  );

  // The buyer's retry (the first answer never came) is answered as the first would have been.
  const retry = await t.app.inject({
    method: 'POST',
    url: `/sandbox/v1/payments/${bought.payment.ref}/confirm`,
    payload: { clientSecret: bought.payment.clientSecret, paymentMethod: 'pm_card_visa' },
  });
  assert.equal(retry.statusCode, 200, retry.body);
  assert.deepEqual(retry.json(), { ref: bought.payment.ref, status: 'succeeded' });

  assert.equal((await shop.events('order.paid')).length, 1, 'one order.paid');
  const seen = await t.db.kysely
    .selectFrom('provider_events')
    .select('type')
    .where('store_id', '=', shop.storeId)
    .execute();
  assert.deepEqual(
    seen.map((row) => row.type),
    ['payment.succeeded'],
    'one payment event applied',
  );
  const order = await shop.adminOrder(bought.order.id);
  assert.deepEqual(
    order.payments.map((payment) => payment.status),
    ['succeeded'],
  );
  const webhooks = await t.db.kysely
    .selectFrom('sandbox_webhooks')
    .select(['delivered_at', 'next_attempt_at'])
    .where('intent_ref', '=', bought.payment.ref)
    .execute();
  assert.equal(webhooks.length, 1);
  assert.ok(webhooks[0]!.delivered_at && webhooks[0]!.next_attempt_at === null, 'marked delivered');
});

test('a retried confirmation delivers a webhook still due at once: the order is settled in its answer', async () => {
  const shop = await ShopDriver.open(t);
  const variantId = await shop.variant(5);
  const bought = await shop.buy(variantId);
  await confirmInDeadProcess(t, bought);
  assert.equal((await shop.order(bought.order.id)).status, 'pending');

  // Within the dead attempt's lease: the loop leaves it, the buyer's retry does not wait for it.
  await shop.confirm(bought);
  assert.equal((await shop.order(bought.order.id)).status, 'paid', 'paid when the retry answers');
  assert.equal((await shop.events('order.paid')).length, 1);
});
