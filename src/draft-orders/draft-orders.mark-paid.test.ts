/**
 * Marking an invoiced draft order paid (decision `draft-order-mark-paid`): completing it with a
 * manual payment pays the pending order its invoice made (held stock sold, order.paid, the draft
 * completed), once, even when the provider's webhook pays the same order at that moment (the second
 * payment is refunded in full, never counted); an expired or cancelled order is 409
 * `draft_order_expired`. Refunds of an order paid by a manual payment settle at once without a
 * provider (decision `manual-refunds`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { expireOrders } from '../orders/expiry.service.ts';
import { paymentDeps } from '../orders/orders.test-support.ts';
import { intentStatus } from '../payments/sandbox.test-support.ts';
import { ok } from '../test/answers.ts';
import { createVariants } from '../test/catalog.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import { eventsOf, problem, stock, type Draft, type Placed } from './draft-orders.test-support.ts';

let t: TestApp;
before(async () => (t = await startTestApp({ workers: true })));
after(() => t.close());

const invoice = (shop: TestStore, id: string) =>
  t.admin(shop).post(`/draft-orders/${id}/invoice`, undefined, { 'idempotency-key': randomUUID() });

const complete = (shop: TestStore, id: string, key: string = randomUUID()) =>
  t.admin(shop).post(`/draft-orders/${id}/complete`, { payment: 'manual' }, { 'idempotency-key': key });

const draftOf = (shop: TestStore, body: object) => ok<Draft>(t.admin(shop).post('/draft-orders', body), 201);

interface AdminOrder {
  status: string;
  total: { amount: number };
  refunded: { amount: number };
  payments: { provider: string; status: string; amount: { amount: number } }[];
  refunds: {
    id: string;
    status: string;
    amount: { amount: number };
    reason: string;
    providerRef: string | null;
  }[];
}

const adminOrder = (shop: TestStore, id: string) => ok<AdminOrder>(t.admin(shop).get(`/orders/${id}`));

/** An invoiced draft of `quantity` units of a fresh variant at 1500. */
async function invoiced(shop: TestStore, quantity = 2, reserveUntil?: Date) {
  const [mug] = await createVariants(t, shop, [{ price: 1500 }]);
  const draft = await draftOf(shop, {
    email: `paid-${randomUUID().slice(0, 6)}@example.com`,
    lines: [{ variantId: mug, quantity }],
    ...(reserveUntil ? { reserveUntil: reserveUntil.toISOString() } : {}),
  });
  const placed = await ok<Placed>(invoice(shop, draft.id));
  assert.deepEqual(await stock(t, mug!), { on_hand: 100, reserved: quantity });
  return { mug: mug!, draft, placed };
}

/** The sandbox's payment of the order, paid at the provider and reported by its signed webhook. */
async function providerPays(shop: TestStore, orderId: string) {
  const payment = await t.deps.db
    .selectFrom('payments')
    .select(['ref', 'amount'])
    .where('store_id', '=', shop.store.id)
    .where('order_id', '=', orderId)
    .where('provider', '=', 'sandbox')
    .executeTakeFirstOrThrow();
  await t.db.kysely
    .updateTable('sandbox_intents')
    .set({ status: 'succeeded' })
    .where('ref', '=', payment.ref)
    .execute();
  const webhook = JSON.stringify({
    id: `evt_${randomUUID()}`,
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      ref: payment.ref,
      amount: Number(payment.amount),
      currency: 'USD',
      metadata: { storeId: shop.store.id, orderId },
    },
  });
  const delivered = await t.app.inject({
    method: 'POST',
    url: '/payments/webhooks/sandbox',
    headers: {
      'content-type': 'application/json',
      'sandbox-signature': t.runtime.payments.sandbox!.sign(webhook),
    },
    payload: webhook,
  });
  assert.equal(delivered.statusCode, 200, delivered.body);
  return payment.ref;
}

const mailsOf = (shop: TestStore, kind: string) =>
  t.deps.db
    .selectFrom('mail_outbox')
    .select(['id', 'text_body'])
    .where('store_id', '=', shop.store.id)
    .where('kind', '=', kind)
    .execute();

describe('completing an invoiced draft: mark as paid', () => {
  test('the pending order is paid with a manual payment: held stock sold, order.paid, the draft completed; again is the same order', async () => {
    const shop = await createTestStore(t);
    const { mug, draft, placed } = await invoiced(shop, 2);
    const key = randomUUID();
    const paid = await ok<Placed>(complete(shop, draft.id, key));
    assert.equal(paid.order.id, placed.order.id);
    assert.equal(paid.order.status, 'paid');
    assert.deepEqual(paid.payment, { provider: 'manual', status: 'succeeded', amount: placed.order.total });
    assert.equal(paid.draftOrder.status, 'completed');
    assert.equal(paid.draftOrder.orderId, placed.order.id);
    assert.equal(paid.payUrl, null);
    // Sold once: the reservation became the sale (not reserved again, not released).
    assert.deepEqual(await stock(t, mug), { on_hand: 98, reserved: 0 });
    assert.deepEqual(
      (await eventsOf(t, shop, `order:${placed.order.id}`)).map((event) => event.type),
      ['order.created', 'order.paid'],
    );
    assert.deepEqual(
      (await eventsOf(t, shop, `draft_order:${draft.id}`)).map((event) => [
        event.type,
        event.data.status,
        event.data.orderId,
      ]),
      [
        ['draft_order.created', 'open', null],
        ['draft_order.updated', 'invoiced', placed.order.id],
        ['draft_order.completed', 'completed', placed.order.id],
      ],
    );
    assert.equal((await mailsOf(shop, 'order_confirmation')).length, 1);
    const order = await adminOrder(shop, placed.order.id);
    assert.deepEqual(
      order.payments.map((payment) => [payment.provider, payment.status, payment.amount.amount]),
      [
        ['sandbox', 'canceled', 3000],
        ['manual', 'succeeded', 3000],
      ],
    );
    const sandboxRef = await t.deps.db
      .selectFrom('payments')
      .select('ref')
      .where('order_id', '=', placed.order.id)
      .where('provider', '=', 'sandbox')
      .executeTakeFirstOrThrow();
    assert.equal(await intentStatus(t, sandboxRef.ref), 'canceled', 'the invoice’s intent is cancelled');

    // The same key replays; another key answers with the same order; nothing is paid twice.
    const replayed = await complete(shop, draft.id, key);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    const again = await ok<Placed>(complete(shop, draft.id));
    assert.equal(again.order.id, placed.order.id);
    assert.deepEqual([again.payment.provider, again.draftOrder.status], ['manual', 'completed']);
    assert.deepEqual(await stock(t, mug), { on_hand: 98, reserved: 0 });
    assert.equal(
      (await eventsOf(t, shop, `order:${placed.order.id}`)).filter((event) => event.type === 'order.paid')
        .length,
      1,
    );
    assert.equal((await mailsOf(shop, 'order_confirmation')).length, 1);
    // A completed draft is not invoiced.
    await problem(invoice(shop, draft.id), 409, 'draft_order_not_open');
  });

  for (const race of ['provider first', 'staff first', 'at the same moment'] as const)
    test(`the provider’s webhook and mark as paid ${race}: the order is paid once, a second payment refunded in full`, async () => {
      const shop = await createTestStore(t);
      const { mug, draft, placed } = await invoiced(shop, 3);
      const orderId = placed.order.id;
      let answer: Placed;
      if (race === 'provider first') {
        await providerPays(shop, orderId);
        answer = await ok<Placed>(complete(shop, draft.id));
      } else if (race === 'staff first') {
        answer = await ok<Placed>(complete(shop, draft.id));
        await providerPays(shop, orderId);
      } else {
        [answer] = await Promise.all([ok<Placed>(complete(shop, draft.id)), providerPays(shop, orderId)]);
      }
      assert.equal(answer.order.id, orderId);
      assert.equal(answer.order.status, 'paid');
      assert.equal(answer.draftOrder.status, answer.payment.provider === 'manual' ? 'completed' : 'invoiced');
      if (race === 'provider first') assert.equal(answer.payment.provider, 'sandbox');
      if (race === 'staff first') assert.equal(answer.payment.provider, 'manual');

      assert.deepEqual(await stock(t, mug), { on_hand: 97, reserved: 0 });
      assert.equal(
        (await eventsOf(t, shop, `order:${orderId}`)).filter((event) => event.type === 'order.paid').length,
        1,
      );
      const order = await adminOrder(shop, orderId);
      assert.equal(order.status, 'paid');
      const succeeded = order.payments.filter((payment) => payment.status === 'succeeded');
      if (answer.payment.provider === 'manual') {
        // Both succeeded: the provider's money goes back in full, and the order counts none of it.
        assert.equal(succeeded.length, 2);
        await waitFor(
          async () =>
            (await adminOrder(shop, orderId)).refunds.some(
              (refund) => refund.reason === 'duplicate_payment' && refund.status === 'succeeded',
            ),
          5000,
          'the duplicate payment refunded at the provider',
        );
        const settled = await adminOrder(shop, orderId);
        assert.deepEqual(
          settled.refunds.map((refund) => [refund.reason, refund.amount.amount]),
          [['duplicate_payment', 4500]],
        );
        assert.equal(settled.refunded.amount, 0, 'the order itself was refunded nothing');
        assert.equal(
          (await eventsOf(t, shop, `order:${orderId}`)).filter((event) => event.type === 'order.refunded')
            .length,
          0,
        );
        // Its own payment, the manual one, can still be refunded whole.
        const refund = await t.admin(shop).post(`/orders/${orderId}/refunds`, { amount: 4500 });
        assert.equal(refund.statusCode, 202, refund.body);
      } else {
        assert.deepEqual(
          succeeded.map((payment) => payment.provider),
          ['sandbox'],
        );
        assert.equal(order.refunds.length, 0);
      }
    });

  test('an expired or cancelled pending order is 409 draft_order_expired: nothing paid, nothing held', async () => {
    const shop = await createTestStore(t);
    const late = await invoiced(shop, 2, new Date(t.clock.now().getTime() + 3600_000));
    t.clock.advance(3600_000 + 1000);
    await expireOrders(paymentDeps(t));
    const expired = await problem(complete(shop, late.draft.id), 409, 'draft_order_expired');
    assert.match(JSON.stringify(expired), /expired/);
    assert.deepEqual(await stock(t, late.mug), { on_hand: 100, reserved: 0 });
    assert.equal((await adminOrder(shop, late.placed.order.id)).status, 'expired');
    assert.equal((await ok<Draft>(t.admin(shop).get(`/draft-orders/${late.draft.id}`))).status, 'invoiced');

    const cancelled = await invoiced(shop, 1);
    await ok(t.admin(shop).post(`/orders/${cancelled.placed.order.id}/cancel`, {}));
    await problem(complete(shop, cancelled.draft.id), 409, 'draft_order_expired');
    assert.deepEqual(await stock(t, cancelled.mug), { on_hand: 100, reserved: 0 });
    const order = await adminOrder(shop, cancelled.placed.order.id);
    assert.equal(order.status, 'cancelled');
    assert.ok(order.payments.every((payment) => payment.provider !== 'manual'));
  });
});

describe('refunds of an order paid by a manual payment', () => {
  test('settled at once without a provider: partial, then the rest; never more than paid', async () => {
    const shop = await createTestStore(t);
    const { placed, draft } = await invoiced(shop, 2);
    await ok<Placed>(complete(shop, draft.id));
    const orderId = placed.order.id;
    const url = `/orders/${orderId}/refunds`;

    const partial = await t.admin(shop).post(url, { amount: 1000, reason: 'Paid back by transfer' });
    assert.equal(partial.statusCode, 202, partial.body);
    const first = partial.json<{
      refund: { status: string; providerRef: string | null; settledAt: string };
    }>().refund;
    assert.equal(first.status, 'succeeded');
    assert.equal(first.providerRef, null);
    assert.ok(first.settledAt);
    let order = await adminOrder(shop, orderId);
    assert.equal(order.refunded.amount, 1000);
    assert.deepEqual(
      (await eventsOf(t, shop, `order:${orderId}`))
        .filter((event) => event.type === 'order.refunded')
        .map((event) => [event.data.amount, event.data.refunded]),
      [
        [
          { amount: 1000, currency: 'USD' },
          { amount: 1000, currency: 'USD' },
        ],
      ],
    );
    const notices = await mailsOf(shop, 'refund_notice');
    assert.equal(notices.length, 1);
    // The money goes back the way it came, not to a card statement.
    assert.match(notices[0]!.text_body, /the store returns the money to you the same way/);
    assert.doesNotMatch(notices[0]!.text_body, /statement/);

    await problem(t.admin(shop).post(url, { amount: 2001 }), 409, 'refund_too_large');
    const rest = await t.admin(shop).post(url, { amount: 2000 });
    assert.equal(rest.statusCode, 202, rest.body);
    order = await adminOrder(shop, orderId);
    assert.equal(order.refunded.amount, 3000);
    assert.deepEqual(
      order.refunds.map((refund) => [refund.status, refund.amount.amount, refund.providerRef]),
      [
        ['succeeded', 1000, null],
        ['succeeded', 2000, null],
      ],
    );
    await problem(t.admin(shop).post(url, { amount: 1 }), 409, 'refund_too_large');
    // No provider was asked: the sandbox made no refund.
    const atProvider = await t.db.kysely
      .selectFrom('sandbox_refunds')
      .select('ref')
      .where(
        'idempotency_key',
        'in',
        order.refunds.map((refund) => `refund:${refund.id}`),
      )
      .execute();
    assert.equal(atProvider.length, 0);
  });

  test('cancelling a manually paid order restocks its units and settles its refund at once', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 1500 }]);
    const draft = await draftOf(shop, {
      email: `cancel-${randomUUID().slice(0, 6)}@example.com`,
      lines: [{ variantId: mug, quantity: 2 }],
    });
    const placed = await ok<Placed>(complete(shop, draft.id));
    assert.deepEqual(await stock(t, mug!), { on_hand: 98, reserved: 0 });
    await ok(t.admin(shop).post(`/orders/${placed.order.id}/cancel`, { reason: 'Changed their mind' }));
    const order = await adminOrder(shop, placed.order.id);
    assert.equal(order.status, 'cancelled');
    assert.equal(order.refunded.amount, 3000);
    assert.deepEqual(
      order.refunds.map((refund) => [refund.status, refund.reason, refund.amount.amount]),
      [['succeeded', 'order_cancelled', 3000]],
    );
    assert.deepEqual(await stock(t, mug!), { on_hand: 100, reserved: 0 });
    assert.deepEqual(
      (await eventsOf(t, shop, `order:${placed.order.id}`)).map((event) => event.type),
      ['order.created', 'order.paid', 'order.refunded', 'order.cancelled'],
    );
  });
});

describe('a draft that made its order', () => {
  test('reads with the order’s amounts (what was charged), not prices of now', async () => {
    const shop = await createTestStore(t);
    const [mug] = await createVariants(t, shop, [{ price: 1500 }]);
    const draft = await draftOf(shop, {
      email: `charged-${randomUUID().slice(0, 6)}@example.com`,
      lines: [
        { variantId: mug, quantity: 2 },
        { title: 'Engraving', unitPrice: 1000, quantity: 1, requiresShipping: false },
      ],
      discount: { kind: 'amount', value: 400, reason: 'Regular' },
    });
    const placed = await ok<Placed>(complete(shop, draft.id));
    const before = await ok<Draft & { discount: { amount: { amount: number } } }>(
      t.admin(shop).get(`/draft-orders/${draft.id}`),
    );
    assert.deepEqual(before.totals.total, placed.order.total);
    assert.equal(before.discount.amount.amount, 400);

    // The price changes after the order: the draft still shows what was charged.
    const changed = await t.admin(shop).patch(`/variants/${mug}`, { priceAmount: 9900 });
    assert.equal(changed.statusCode, 200, changed.body);
    const after = await ok<Draft & { discount: { amount: { amount: number } } }>(
      t.admin(shop).get(`/draft-orders/${draft.id}`),
    );
    assert.equal(after.status, 'completed');
    assert.deepEqual(after.totals, before.totals);
    assert.deepEqual(after.totals.total, placed.order.total);
    assert.deepEqual(
      after.lines.map((line) => [line.variantId, line.custom, line.quantity, line.unitPrice.amount]),
      [
        [mug, false, 2, 1500],
        [null, true, 1, 1000],
      ],
    );
    assert.deepEqual(
      after.lines.map((line) => line.id),
      before.lines.map((line) => line.id),
    );
    assert.equal(after.discount.amount.amount, 400);
    // An open draft of the same variant is priced now.
    const open = await draftOf(shop, { email: 'now@example.com', lines: [{ variantId: mug, quantity: 1 }] });
    assert.equal(open.lines[0]!.unitPrice.amount, 9900);
  });
});
