/**
 * Cancellation (decision `order-cancellation`): a pending order releases its reservation and its payment; a paid one that has
 * not shipped is restocked and refunded through decision `refund-path`'s path; a shipped one is 409 `order_fulfilled`,
 * an expired one 409 `order_expired`; a payment that arrives after the cancel is refunded, never
 * revived; idempotent. Each write's response, state, event and mail; and the races of a cancel
 * with the payment webhook, with the expiry sweep and with another cancel (one outcome, stock and
 * money exact; PostgreSQL runs them truly at once).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { expireOrders } from './expiry.service.ts';
import { paymentDeps, ShopDriver } from './orders.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface AdminOrder {
  id: string;
  number: number;
  status: string;
  cancelledAt: string | null;
  cancelReason: string | null;
  total: { amount: number };
  refunded: { amount: number };
  payments: { status: string }[];
  refunds: { amount: { amount: number }; status: string; reason: string; note: string | null }[];
}

interface Problem {
  title: string;
  status: number;
  errors?: { pointer: string }[];
}

const cancel = (shop: ShopDriver, orderId: string, body?: object) =>
  shop.admin('POST', `/orders/${orderId}/cancel`, body);

/** 2 units of a 2,000 variant (10 on hand), bought by ada@example.com; paid when `pay`. */
async function order(shop: ShopDriver, pay: boolean) {
  const variantId = await shop.variant(10, 2000);
  const bought = await shop.placeOrder([{ variantId, quantity: 2 }], { pay });
  return { variantId, bought, orderId: bought.order.id };
}

async function settledRefunds(shop: ShopDriver, orderId: string, amount: number): Promise<AdminOrder> {
  return waitFor(
    async () => {
      const current = (await shop.admin('GET', `/orders/${orderId}`)).json<AdminOrder>();
      return current.refunded.amount === amount ? current : undefined;
    },
    10_000,
    `refunded ${amount}`,
  );
}

describe('POST /admin/v1/orders/:id/cancel (decision `order-cancellation`)', () => {
  test('a pending order: reservation released, payment cancelled here and at the provider, event and mail; idempotent', async () => {
    const shop = await ShopDriver.open(t);
    const { variantId, bought, orderId } = await order(shop, false);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 2 });

    const first = await cancel(shop, orderId, { reason: '  Duplicate order  ' });
    assert.equal(first.statusCode, 200, first.body);
    const cancelled = first.json<AdminOrder>();
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.cancelReason, 'Duplicate order');
    assert.ok(cancelled.cancelledAt);
    assert.deepEqual(
      cancelled.payments.map((p) => p.status),
      ['canceled'],
    );
    assert.deepEqual(cancelled.refunds, [], 'nothing was captured');
    assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 });
    const intent = await t.db.kysely
      .selectFrom('sandbox_intents')
      .select('status')
      .where('ref', '=', bought.payment.ref)
      .executeTakeFirstOrThrow();
    assert.equal(intent.status, 'canceled', 'the intent is cancelled at the provider');

    const buyerView = await shop.order(orderId);
    assert.equal(buyerView.status, 'cancelled');

    assert.deepEqual(await shop.events('order.cancelled'), [
      {
        storeId: shop.storeId,
        orderId,
        number: cancelled.number,
        previousStatus: 'pending',
        reason: 'Duplicate order',
        restocked: false,
        refund: null,
        total: { amount: 4000, currency: 'USD' },
      },
    ]);
    const inventory = await shop.events('inventory.updated');
    assert.deepEqual(inventory.at(-1), {
      storeId: shop.storeId,
      variantId,
      productId: inventory.at(-1)!.productId,
      available: 10,
    });
    const sent = await shop.mails('order_cancelled');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.to_address, 'ada@example.com');
    assert.match(sent[0]!.subject, /^Order #\d+ was cancelled$/);
    assert.match(sent[0]!.text_body, /You have not been charged\./);
    assert.doesNotMatch(sent[0]!.text_body, /Duplicate order/, 'the staff reason stays with staff');

    // Logs: the request, and no personal data in any line.
    assert.ok(t.logs.some((line) => JSON.stringify(line).includes(`/orders/${orderId}/cancel`)));
    assert.ok(!t.logs.some((line) => JSON.stringify(line).includes('ada@example.com')));

    // Again: 200, the same body, nothing more happens.
    const again = await cancel(shop, orderId, { reason: 'Other reason' });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), cancelled);
    assert.equal((await shop.events('order.cancelled')).length, 1);
    assert.equal((await shop.mails('order_cancelled')).length, 1);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 });

    // A cancelled order is not fulfilled, and the sweep leaves it alone.
    const fulfil = await shop.admin('POST', `/orders/${orderId}/fulfillments`, {
      lines: [{ variantId, quantity: 1 }],
    });
    assert.equal(fulfil.statusCode, 409);
    assert.equal(fulfil.json<Problem>().title, 'order_not_paid');
  });

  test('a paid order that has not shipped: units back on hand, the capture refunded (order.refunded), event and mail', async () => {
    const shop = await ShopDriver.open(t);
    const { variantId, orderId } = await order(shop, true);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 8, reserved: 0 });

    const response = await cancel(shop, orderId, { reason: 'Customer asked' });
    assert.equal(response.statusCode, 200, response.body);
    const cancelled = response.json<AdminOrder>();
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(
      cancelled.refunds.map((r) => [r.amount.amount, r.reason, r.note]),
      [[4000, 'order_cancelled', 'Customer asked']],
    );
    assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 });

    const settled = await settledRefunds(shop, orderId, 4000);
    assert.equal(settled.status, 'cancelled');
    assert.deepEqual(
      settled.refunds.map((r) => r.status),
      ['succeeded'],
    );
    assert.deepEqual(
      (await shop.events('order.refunded')).map((data) => data.amount),
      [{ amount: 4000, currency: 'USD' }],
    );
    const [data] = await shop.events('order.cancelled');
    assert.equal(data!.previousStatus, 'paid');
    assert.equal(data!.restocked, true);
    assert.deepEqual(data!.refund, { amount: 4000, currency: 'USD' });
    const sent = await shop.mails('order_cancelled');
    assert.equal(sent.length, 1);
    assert.match(sent[0]!.text_body, /A refund of \$40\.00 is on its way/);
    await waitFor(async () => (await shop.mails('refund_notice')).length === 1, 5000, 'refund notice');

    // Idempotent once the refund settled too: no second refund.
    const again = await cancel(shop, orderId);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json<AdminOrder>().refunds.length, 1);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 });
  });

  test('restock: false and refund: false keep the units sold and the money captured', async () => {
    const shop = await ShopDriver.open(t);
    const { variantId, orderId } = await order(shop, true);
    const response = await cancel(shop, orderId, { restock: false, refund: false });
    assert.equal(response.statusCode, 200, response.body);
    const cancelled = response.json<AdminOrder>();
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(cancelled.refunds, []);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 8, reserved: 0 });
    const [data] = await shop.events('order.cancelled');
    assert.equal(data!.restocked, false);
    assert.equal(data!.refund, null);
    // The money can still be refunded by hand.
    const refund = await shop.admin('POST', `/orders/${orderId}/refunds`, { amount: 4000 });
    assert.equal(refund.statusCode, 202, refund.body);
  });

  test('a partly refunded order refunds only what is left', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId } = await order(shop, true);
    const partial = await shop.admin('POST', `/orders/${orderId}/refunds`, { amount: 1500 });
    assert.equal(partial.statusCode, 202, partial.body);
    const response = await cancel(shop, orderId);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      response
        .json<AdminOrder>()
        .refunds.map((r) => [r.amount.amount, r.reason])
        .sort(),
      [
        [1500, 'merchant'],
        [2500, 'order_cancelled'],
      ],
    );
    await settledRefunds(shop, orderId, 4000);
  });

  test('an order with a shipped parcel is 409 order_fulfilled, and nothing changes; once the parcel is cancelled it can be', async () => {
    const shop = await ShopDriver.open(t);
    const { variantId, orderId } = await order(shop, true);
    const parcel = await shop.admin('POST', `/orders/${orderId}/fulfillments`, {
      lines: [{ variantId, quantity: 1 }],
    });
    assert.equal(parcel.statusCode, 201, parcel.body);
    const refused = await cancel(shop, orderId);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(refused.json<Problem>().title, 'order_fulfilled');
    const unchanged = (await shop.admin('GET', `/orders/${orderId}`)).json<AdminOrder>();
    assert.equal(unchanged.status, 'paid');
    assert.deepEqual(unchanged.refunds, []);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 8, reserved: 0 });
    assert.deepEqual(await shop.events('order.cancelled'), []);

    const { id } = parcel.json<{ id: string }>();
    assert.equal((await shop.admin('POST', `/orders/${orderId}/fulfillments/${id}/cancel`)).statusCode, 200);
    const now = await cancel(shop, orderId);
    assert.equal(now.statusCode, 200, now.body);
    assert.equal(now.json<AdminOrder>().status, 'cancelled');
  });

  test('an expired order is 409 order_expired; an unknown one 404; a bad body 400; nothing is written', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId } = await order(shop, false);
    const ms = t.config.payments.orderTtlMs + 60_000;
    t.clock.advance(ms);
    try {
      await expireOrders(paymentDeps(t));
    } finally {
      t.clock.advance(-ms);
    }
    const expired = await cancel(shop, orderId);
    assert.equal(expired.statusCode, 409, expired.body);
    assert.equal(expired.json<Problem>().title, 'order_expired');
    assert.equal((await shop.order(orderId)).status, 'expired');

    const unknown = await cancel(shop, randomUUID());
    assert.equal(unknown.statusCode, 404, unknown.body);
    const tooLong = await cancel(shop, orderId, { reason: 'x'.repeat(501) });
    assert.equal(tooLong.statusCode, 400);
    assert.equal(tooLong.json<Problem>().errors![0]!.pointer, '/reason');
    const unknownField = await cancel(shop, orderId, { refund: 'yes' });
    assert.equal(unknownField.statusCode, 400);
    assert.deepEqual(await shop.events('order.cancelled'), []);

    // Another store's order is not found.
    const other = await ShopDriver.open(t);
    const foreign = await cancel(other, orderId);
    assert.equal(foreign.statusCode, 404, foreign.body);
  });

  test('a payment that arrives after the cancel is refunded in full; the order stays cancelled and the stock untouched', async () => {
    const shop = await ShopDriver.open(t);
    const { variantId, bought, orderId } = await order(shop, false);
    assert.equal((await cancel(shop, orderId)).statusCode, 200);
    await shop.latePaymentSucceeded(bought);
    const settled = await settledRefunds(shop, orderId, 4000);
    assert.equal(settled.status, 'cancelled');
    assert.deepEqual(
      settled.refunds.map((r) => [r.amount.amount, r.reason, r.status]),
      [[4000, 'order_cancelled', 'succeeded']],
    );
    assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 });
    assert.deepEqual(await shop.events('order.paid'), []);
  });
});

describe('cancellation races (decisions `order-cancellation` and `one-lock-order`: payment, then order locked)', () => {
  test('two cancels of a paid order at once: one cancellation, one refund, the units back once', async () => {
    const shop = await ShopDriver.open(t);
    const { variantId, orderId } = await order(shop, true);
    const answers = await Promise.all([cancel(shop, orderId), cancel(shop, orderId), cancel(shop, orderId)]);
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 });
    assert.equal((await shop.events('order.cancelled')).length, 1);
    const settled = await settledRefunds(shop, orderId, 4000);
    assert.equal(settled.refunds.length, 1);
    assert.equal((await shop.mails('order_cancelled')).length, 1);
  });

  test('a cancel racing the payment webhook: cancelled either way, the stock whole and the money refunded exactly once', async () => {
    for (let round = 0; round < 4; round++) {
      const shop = await ShopDriver.open(t);
      const { variantId, bought, orderId } = await order(shop, false);
      const [cancelled] = await Promise.all([cancel(shop, orderId), shop.latePaymentSucceeded(bought)]);
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      const settled = await settledRefunds(shop, orderId, 4000);
      assert.equal(settled.status, 'cancelled');
      assert.equal(settled.refunds.length, 1, `round ${round}: one refund`);
      assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 }, `round ${round}`);
      assert.equal((await shop.events('order.cancelled')).length, 1);
    }
  });

  test('a cancel racing the expiry sweep: cancelled or expired, never both; the reservation released once', async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 4; round++) {
      const shop = await ShopDriver.open(t);
      const { variantId, orderId } = await order(shop, false);
      const ms = t.config.payments.orderTtlMs + 60_000;
      t.clock.advance(ms);
      let answer;
      try {
        [answer] = await Promise.all([cancel(shop, orderId), expireOrders(paymentDeps(t))]);
      } finally {
        t.clock.advance(-ms);
      }
      const status = (await shop.order(orderId)).status;
      outcomes.add(status);
      if (status === 'cancelled') {
        assert.equal(answer.statusCode, 200, answer.body);
        assert.equal((await shop.events('order.cancelled')).length, 1);
      } else {
        assert.equal(status, 'expired');
        assert.equal(answer.statusCode, 409, answer.body);
        assert.equal(answer.json<Problem>().title, 'order_expired');
        assert.deepEqual(await shop.events('order.cancelled'), []);
      }
      assert.deepEqual(await shop.stock(variantId), { on_hand: 10, reserved: 0 }, `round ${round}`);
    }
    assert.ok(outcomes.size >= 1);
  });
});
