/**
 * The purge loop (decision `retention`): each kind of finished data goes after its retention, and nothing a
 * live order needs is removed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { enqueueMail } from './mail/outbox.ts';
import { ShopDriver } from './orders/orders.test-support.ts';
import { startTestApp, waitFor, type TestApp } from './test/harness.ts';
import { retentionLoop } from './retention.loop.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: true });
});
after(() => t.close());

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

async function runPurge(): Promise<void> {
  await retentionLoop(t.runtime, pino({ level: 'silent' })).run(new AbortController().signal);
}

test('carts, sent mail, provider events and sandbox records go after their retention; the rest stays', async () => {
  const shop = await ShopDriver.open(t);
  const variantId = await shop.variant(10);
  const db = t.db.kysely;
  const storeId = shop.storeId;

  const oldCart = await shop.cart([{ variantId, quantity: 1 }]);
  const freshCart = await shop.cart([{ variantId, quantity: 1 }]);
  await db
    .updateTable('carts')
    .set({ updated_at: daysAgo(31) })
    .where('store_id', '=', storeId)
    .where('id', '=', oldCart)
    .execute();

  // A paid order (its sandbox payment can still be refunded) and a pending one, both old.
  const paid = await shop.buy(variantId, 1);
  await shop.confirm(paid);
  await shop.waitForStatus(paid.order.id, 'paid');
  const pending = await shop.buy(variantId, 1);
  // An old, fully refunded sandbox payment: nothing left that a live order could need from it.
  const refunded = await shop.buy(variantId, 1);
  await shop.confirm(refunded);
  await shop.waitForStatus(refunded.order.id, 'paid');
  await db
    .updateTable('sandbox_intents')
    .set({ refunded_amount: 1000 })
    .where('ref', '=', refunded.payment.ref)
    .execute();
  await db
    .updateTable('sandbox_intents')
    .set({ updated_at: daysAgo(31) })
    .where('ref', 'in', [paid.payment.ref, refunded.payment.ref])
    .execute();
  // The paid payment's delivered webhook is old too: it goes, though its intent stays.
  await db
    .updateTable('sandbox_webhooks')
    .set({ created_at: daysAgo(31) } as never)
    .where('intent_ref', '=', paid.payment.ref)
    .execute();

  const sentOld = await enqueueMail(db, {
    storeId,
    tier: 'store',
    kind: 'test',
    to: 'old@example.com',
    subject: 's',
    text: 't',
  });
  await waitFor(async () => {
    const row = await db
      .selectFrom('mail_outbox')
      .select('status')
      .where('store_id', '=', storeId)
      .where('id', '=', sentOld)
      .executeTakeFirst();
    return row?.status === 'sent';
  });
  await db
    .updateTable('mail_outbox')
    .set({ created_at: daysAgo(8) } as never)
    .where('store_id', '=', storeId)
    .where('id', '=', sentOld)
    .execute();
  const failedOld = await enqueueMail(db, {
    storeId,
    tier: 'store',
    kind: 'test',
    to: 'f@example.com',
    subject: 's',
    text: 't',
  });
  await db
    .updateTable('mail_outbox')
    .set({ status: 'failed', created_at: daysAgo(8) } as never)
    .where('store_id', '=', storeId)
    .where('id', '=', failedOld)
    .execute();

  await db
    .insertInto('provider_events')
    .values({ store_id: storeId, provider: 'sandbox', event_id: 'evt_old', type: 'payment.succeeded' })
    .execute();
  await db
    .updateTable('provider_events')
    .set({ received_at: daysAgo(91) } as never)
    .where('store_id', '=', storeId)
    .where('event_id', '=', 'evt_old')
    .execute();
  const eventsBefore = await db
    .selectFrom('provider_events')
    .select('event_id')
    .where('store_id', '=', storeId)
    .execute();
  assert.ok(eventsBefore.length >= 3);

  await runPurge();

  const carts = (await db.selectFrom('carts').select('id').where('store_id', '=', storeId).execute()).map(
    (c) => c.id,
  );
  assert.ok(!carts.includes(oldCart), 'the abandoned cart went');
  assert.ok(carts.includes(freshCart), 'a recent cart stays');
  const mails = (
    await db.selectFrom('mail_outbox').select('id').where('store_id', '=', storeId).execute()
  ).map((m) => m.id);
  assert.ok(!mails.includes(sentOld), 'old sent mail went');
  assert.ok(mails.includes(failedOld), 'failed mail stays for inspection');
  const events = (
    await db.selectFrom('provider_events').select('event_id').where('store_id', '=', storeId).execute()
  ).map((e) => e.event_id);
  assert.ok(!events.includes('evt_old'));
  assert.equal(events.length, eventsBefore.length - 1, 'recent provider events stay');
  const intents = (
    await db
      .selectFrom('sandbox_intents')
      .select('ref')
      .where('ref', 'in', [paid.payment.ref, pending.payment.ref, refunded.payment.ref])
      .execute()
  ).map((i) => i.ref);
  assert.deepEqual(
    intents.sort(),
    [paid.payment.ref, pending.payment.ref].sort(),
    'a refundable or live payment stays',
  );

  const webhooks = await db
    .selectFrom('sandbox_webhooks')
    .select('intent_ref')
    .where('intent_ref', 'in', [paid.payment.ref, refunded.payment.ref])
    .execute();
  assert.deepEqual(
    webhooks,
    [],
    "delivered sandbox webhooks go after SANDBOX_RETENTION, and an intent's with it",
  );

  // The orders are untouched, and the paid one can still be refunded through the sandbox.
  assert.equal((await shop.order(pending.order.id)).status, 'pending');
  const refund = await shop.admin('POST', `/orders/${paid.order.id}/refunds`, { amount: 500 });
  assert.equal(refund.statusCode, 202, refund.body);
});
