import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { listEvents } from '../events/events.ts';
import { ordersDeps } from '../runtime.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import { RECONCILE_AFTER_MS, reconcileRefunds } from './refund-reconciliation.service.ts';

// No worker loops: reconciliation runs only when the test calls it.
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const deps = () => ordersDeps(t.runtime, pino({ level: 'silent' }));

const refundedOf = async (shop: TestStore, orderId: string) =>
  (await t.storefront(shop).get(`/orders/${orderId}`)).json<{ refunded: { amount: number } }>().refunded
    .amount;

/** A paid order of 2 × 1000 in a fresh store. */
async function paidOrder(): Promise<{ shop: TestStore; orderId: string; ref: string }> {
  const shop = await createTestStore(t);
  const created = await t.admin(shop).post('/products', {
    title: 'Reconciled',
    status: 'active',
    variants: [{ label: 'Default', priceAmount: 1000, onHand: 5 }],
  });
  const variantId = created.json<{ variants: { id: string }[] }>().variants[0]!.id;
  const cart = await t.storefront(shop).post('/carts', { items: [{ variantId, quantity: 2 }] });
  const checkout = await t
    .storefront(shop)
    .post(
      '/checkout',
      { cartId: cart.json<{ id: string }>().id, email: 'r@example.com' },
      { 'idempotency-key': crypto.randomUUID() },
    );
  const { order, payment } = checkout.json<{
    order: { id: string };
    payment: { ref: string; clientSecret: string };
  }>();
  await t.app.inject({
    method: 'POST',
    url: `/sandbox/v1/payments/${payment.ref}/confirm`,
    payload: { clientSecret: payment.clientSecret, paymentMethod: 'pm_card_visa' },
  });
  await waitFor(
    async () =>
      (await t.storefront(shop).get(`/orders/${order.id}`)).json<{ status: string }>().status === 'paid',
    5000,
    'paid',
  );
  return { shop, orderId: order.id, ref: payment.ref };
}

test('a refund whose webhook was lost settles by reconciliation, once, and the late webhook changes nothing', async () => {
  const { shop, orderId, ref } = await paidOrder();
  const sandbox = t.runtime.payments.sandbox!;
  // From now on the sandbox's webhooks are "lost": it believes them delivered, we keep them.
  const held: { body: string; headers: Record<string, string> }[] = [];
  sandbox.setDelivery((body, headers) => {
    held.push({ body, headers });
    return Promise.resolve(200);
  });

  const requested = await t.admin(shop).post(`/orders/${orderId}/refunds`, { amount: 500 });
  assert.equal(requested.statusCode, 202, requested.body);
  await waitFor(() => held.length === 1, 5000, 'the refund webhook (held back)');
  assert.equal(await refundedOf(shop, orderId), 0, 'no webhook, no settlement');

  assert.deepEqual(await reconcileRefunds(deps()), { checked: 0, settled: 0 }, 'too young to ask about');
  t.clock.advance(RECONCILE_AFTER_MS + 60_000);
  const first = await reconcileRefunds(deps());
  assert.equal(first.settled, 1);
  assert.equal(await refundedOf(shop, orderId), 500);
  assert.deepEqual(await reconcileRefunds(deps()), { checked: 0, settled: 0 }, 'nothing left pending');

  // The lost webhook finally arrives: accepted, no second effect.
  const late = await t.app.inject({
    method: 'POST',
    url: '/payments/webhooks/sandbox',
    headers: held[0]!.headers,
    payload: held[0]!.body,
  });
  assert.equal(late.statusCode, 200, late.body);
  assert.equal(await refundedOf(shop, orderId), 500);
  const events = await listEvents(t.db.kysely, shop.store.id, { type: 'order.refunded' });
  assert.equal(events.length, 1, 'order.refunded recorded once');
  assert.equal(ref.startsWith('pi_sbx_'), true);
  // Deliver webhooks again, in-process, as the app does.
  sandbox.setDelivery(async (body, headers) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/payments/webhooks/sandbox',
      headers,
      payload: body,
    });
    return response.statusCode;
  });
});

test('a refund cut off before the provider answered is requested again with its idempotency key, once', async () => {
  const { shop, orderId, ref } = await paidOrder();
  const { id: paymentId } = await t.db.kysely
    .selectFrom('payments')
    .select('id')
    .where('store_id', '=', shop.store.id)
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();
  // What a crash between "refund recorded" and "provider called" leaves behind.
  const refund = await t.db.kysely
    .insertInto('refunds')
    .values({
      store_id: shop.store.id,
      order_id: orderId,
      payment_id: paymentId,
      amount: 300,
      status: 'pending',
      provider_ref: null,
      reason: 'merchant',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  t.clock.advance(RECONCILE_AFTER_MS + 60_000);

  const result = await reconcileRefunds(deps());
  assert.equal(result.checked, 1);
  // Settled by the reconciler or by the refund's own webhook, whichever came first; once either way.
  await waitFor(async () => (await refundedOf(shop, orderId)) === 300, 5000, 'refund settled');
  const row = await t.db.kysely
    .selectFrom('refunds')
    .select(['status', 'provider_ref'])
    .where('store_id', '=', shop.store.id)
    .where('id', '=', refund.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.status, 'succeeded');
  assert.match(String(row.provider_ref), /^re_sbx_/);

  // The same idempotency key again (a second reconciler, a retry) returns that refund: no money moves twice.
  const again = await t.runtime.payments.provider.refund({
    ref,
    amount: 300,
    currency: 'USD',
    metadata: { storeId: shop.store.id, orderId, refundId: refund.id },
    idempotencyKey: `refund:${refund.id}`,
  });
  assert.equal(again.refundRef, row.provider_ref);
  const intent = await t.db.kysely
    .selectFrom('sandbox_intents')
    .select('refunded_amount')
    .where('ref', '=', ref)
    .executeTakeFirstOrThrow();
  assert.equal(intent.refunded_amount, 300);
  const events = await listEvents(t.db.kysely, shop.store.id, { type: 'order.refunded' });
  assert.equal(events.length, 1, 'order.refunded recorded once');
});
