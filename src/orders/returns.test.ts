/**
 * Returns (decision `returns`): never more units than shipped minus returned; a restock choice per line (through
 * the inventory module, `inventory.updated`); a refund defaulting to the returned units' share,
 * integer-exact (the rounding of `returnShare`), through decision `refund-path`'s path; `return.created` and the
 * buyer's mail; the preview; a parcel whose units came back is not cancelled; two returns of the
 * last unit at once return it once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { ShopDriver } from './orders.test-support.ts';
import { returnShare } from './returns.service.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Return {
  id: string;
  lines: { variantId: string; quantity: number; restock: boolean }[];
  reason: string | null;
  refundAmount: { amount: number; currency: string };
  refundId: string | null;
}

interface Problem {
  title: string;
  errors?: { pointer: string }[];
}

interface AdminOrder {
  total: { amount: number };
  shipping: { amount: number };
  refunded: { amount: number };
  refunds: { id: string; amount: { amount: number }; reason: string; status: string }[];
  returns: Return[];
  mails: { kind: string; subject: string }[];
}

/**
 * A paid order of 3 mugs (1,200) and 1 tee (3,000) with a 10 % discount and 8.25 % tax, shipped
 * flat 700 to the US: subtotal 6,600, discount 660, tax 490 (of 5,940), so goods 6,430 and a total
 * of 7,130.
 */
async function paidOrder(shop: ShopDriver) {
  assert.equal(
    (await shop.admin('PUT', '/tax-rates/US', { taxRateBps: 825, shippingAmount: 700 })).statusCode,
    200,
  );
  const discount = await shop.admin('POST', '/discounts', { code: 'TENOFF', kind: 'percent', value: 10 });
  assert.equal(discount.statusCode, 201, discount.body);
  const mug = await shop.variant(10, 1200);
  const tee = await shop.variant(10, 3000);
  const body = await shop.placeOrder(
    [
      { variantId: mug, quantity: 3 },
      { variantId: tee, quantity: 1 },
    ],
    { country: 'US', discountCode: 'TENOFF' },
  );
  return { orderId: body.order.id, mug, tee };
}

const returnOf = (shop: ShopDriver, orderId: string, body: object) =>
  shop.admin('POST', `/orders/${orderId}/returns`, body);

async function ship(shop: ShopDriver, orderId: string, lines: object[]): Promise<string> {
  const parcel = await shop.admin('POST', `/orders/${orderId}/fulfillments`, { lines });
  assert.equal(parcel.statusCode, 201, parcel.body);
  return parcel.json<{ id: string }>().id;
}

const adminOrder = async (shop: ShopDriver, orderId: string) =>
  (await shop.admin('GET', `/orders/${orderId}`)).json<AdminOrder>();

describe('the default refund of a return (returnShare)', () => {
  const order = { subtotal_amount: 6600, total_amount: 7241, shipping_amount: 700 };
  const lines = [
    { variant_id: 'mug', quantity: 3, line_total_amount: 3600 },
    { variant_id: 'tee', quantity: 1, line_total_amount: 3000 },
  ];
  const units = (entries: [string, number][]) => new Map(entries);

  test('each unit is rounded down by less than one minor unit; the shares of every unit add up to total − shipping exactly', () => {
    // goods = 6,541; one mug is worth 1,200 / 6,600 of it = 1,189.27…
    assert.equal(returnShare(order, lines, units([]), units([['mug', 1]])), 1189);
    let before = units([]);
    let sum = 0;
    for (const variant of ['mug', 'mug', 'tee', 'mug']) {
      const now = units([[variant, 1]]);
      sum += returnShare(order, lines, before, now);
      before = units(
        [...new Set([...before.keys(), variant])].map((v) => [v, (before.get(v) ?? 0) + (now.get(v) ?? 0)]),
      );
    }
    assert.equal(sum, 6541);
    // In one go, the same.
    assert.equal(
      returnShare(
        order,
        lines,
        units([]),
        units([
          ['mug', 3],
          ['tee', 1],
        ]),
      ),
      6541,
    );
  });

  test('a free order refunds nothing; a line of one variant at two prices is valued by its total', () => {
    assert.equal(
      returnShare(
        { subtotal_amount: 0, total_amount: 500, shipping_amount: 500 },
        lines,
        units([]),
        units([['mug', 1]]),
      ),
      0,
    );
    const split = [
      { variant_id: 'mug', quantity: 1, line_total_amount: 1000 },
      { variant_id: 'mug', quantity: 1, line_total_amount: 1001 },
    ];
    const whole = { subtotal_amount: 2001, total_amount: 2001, shipping_amount: 0 };
    assert.equal(returnShare(whole, split, units([]), units([['mug', 1]])), 1000);
    assert.equal(returnShare(whole, split, units([['mug', 1]]), units([['mug', 1]])), 1001);
  });
});

describe('POST /admin/v1/orders/:id/returns (decision `returns`)', () => {
  test('units back on hand, their share refunded (order.refunded), return.created and the mail; both order views list it', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId, mug, tee } = await paidOrder(shop);
    const placed = await adminOrder(shop, orderId);
    assert.equal(placed.total.amount, 6430 + 700);
    await ship(shop, orderId, [
      { variantId: mug, quantity: 3 },
      { variantId: tee, quantity: 1 },
    ]);
    assert.deepEqual(await shop.stock(mug), { on_hand: 7, reserved: 0 });

    const preview = await shop.admin('POST', `/orders/${orderId}/returns/preview`, {
      lines: [{ variantId: mug, quantity: 1 }],
    });
    assert.equal(preview.statusCode, 200, preview.body);
    assert.deepEqual(preview.json(), {
      // ⌊6,430 × 1,200 / 6,600⌋
      refundAmount: { amount: 1169, currency: 'USD' },
      share: { amount: 1169, currency: 'USD' },
      refundable: { amount: 7130, currency: 'USD' },
    });
    assert.deepEqual(await shop.events('return.created'), [], 'a preview writes nothing');

    const made = await returnOf(shop, orderId, {
      lines: [{ variantId: mug, quantity: 1 }],
      reason: ' Too small ',
    });
    assert.equal(made.statusCode, 201, made.body);
    const first = made.json<Return>();
    assert.deepEqual(first.lines, [{ variantId: mug, quantity: 1, restock: true }]);
    assert.deepEqual(first.refundAmount, { amount: 1169, currency: 'USD' });
    assert.equal(first.reason, 'Too small');
    assert.ok(first.refundId);
    assert.deepEqual(await shop.stock(mug), { on_hand: 8, reserved: 0 });

    const [event] = await shop.events('return.created');
    assert.deepEqual(event, {
      storeId: shop.storeId,
      orderId,
      number: event!.number,
      returnId: first.id,
      lines: [{ variantId: mug, quantity: 1, restock: true }],
      refund: { amount: 1169, currency: 'USD' },
      refundId: first.refundId,
    });
    const restocked = await shop.events('inventory.updated');
    assert.deepEqual(restocked.at(-1), {
      storeId: shop.storeId,
      variantId: mug,
      productId: restocked.at(-1)!.productId,
      available: 8,
    });
    const mail = await shop.mails('return_received');
    assert.equal(mail.length, 1);
    assert.equal(mail[0]!.to_address, 'ada@example.com');
    assert.match(mail[0]!.text_body, /1 × Thing \(One\)/);
    assert.match(mail[0]!.text_body, /A refund of \$11\.69 is on its way/);
    assert.doesNotMatch(mail[0]!.text_body, /Too small/);

    // Logs: the request, and no personal data (the buyer's address) in any line.
    assert.ok(t.logs.some((line) => JSON.stringify(line).includes(`/orders/${orderId}/returns`)));
    assert.ok(!t.logs.some((line) => JSON.stringify(line).includes('ada@example.com')));

    const settled = await waitFor(async () => {
      const order = await adminOrder(shop, orderId);
      return order.refunded.amount === 1169 ? order : undefined;
    });
    assert.deepEqual(
      settled.refunds.map((r) => [r.id, r.reason, r.status]),
      [[first.refundId, 'return', 'succeeded']],
    );
    assert.deepEqual(
      settled.returns.map((r) => r.id),
      [first.id],
    );
    assert.deepEqual(
      settled.mails.map((m) => m.kind).filter((kind) => kind !== 'refund_notice'),
      ['order_confirmation', 'shipping_confirmation', 'return_received'],
    );
    const buyer = (await shop.storefront('GET', `/orders/${orderId}`)).json<{
      returns: { id: string; lines: object[]; refundAmount: { amount: number }; createdAt: string }[];
    }>();
    assert.deepEqual(buyer.returns, [
      {
        id: first.id,
        lines: [{ variantId: mug, quantity: 1 }],
        refundAmount: { amount: 1169, currency: 'USD' },
        createdAt: buyer.returns[0]!.createdAt,
      },
    ]);

    // The rest, one return at a time: the default shares add up to the goods exactly (6,430).
    let refunded = 1169;
    for (const line of [
      { variantId: mug, quantity: 1 },
      { variantId: tee, quantity: 1, restock: false },
      { variantId: mug, quantity: 1 },
    ]) {
      const next = await returnOf(shop, orderId, { lines: [line], notifyCustomer: false });
      assert.equal(next.statusCode, 201, next.body);
      refunded += next.json<Return>().refundAmount.amount;
    }
    assert.equal(refunded, 6430, 'every unit back: total − shipping, to the minor unit');
    assert.deepEqual(await shop.stock(mug), { on_hand: 10, reserved: 0 });
    assert.deepEqual(await shop.stock(tee), { on_hand: 9, reserved: 0 }, 'the tee was not restocked');
    assert.equal((await shop.mails('return_received')).length, 1, 'notifyCustomer: false sends none');

    // Nothing is left to return.
    const more = await returnOf(shop, orderId, { lines: [{ variantId: mug, quantity: 1 }] });
    assert.equal(more.statusCode, 409, more.body);
    assert.equal(more.json<Problem>().title, 'return_exceeds_fulfilled');
  });

  test('never more than shipped minus returned; refundAmount 0 and one too large; bad lines and orders', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId, mug, tee } = await paidOrder(shop);
    const notShipped = await returnOf(shop, orderId, { lines: [{ variantId: mug, quantity: 1 }] });
    assert.equal(notShipped.statusCode, 409, notShipped.body);
    assert.equal(notShipped.json<Problem>().title, 'return_exceeds_fulfilled');

    const parcel = await ship(shop, orderId, [{ variantId: mug, quantity: 2 }]);
    const three = await returnOf(shop, orderId, { lines: [{ variantId: mug, quantity: 3 }] });
    assert.equal(three.statusCode, 409);
    const tees = await returnOf(shop, orderId, { lines: [{ variantId: tee, quantity: 1 }] });
    assert.equal(tees.statusCode, 409);

    const none = await returnOf(shop, orderId, {
      lines: [{ variantId: mug, quantity: 1, restock: false }],
      refundAmount: 0,
    });
    assert.equal(none.statusCode, 201, none.body);
    assert.equal(none.json<Return>().refundId, null);
    assert.equal(none.json<Return>().refundAmount.amount, 0);
    assert.deepEqual(await shop.stock(mug), { on_hand: 7, reserved: 0 });
    assert.equal((await shop.events('return.created'))[0]!.refund, null);

    const tooMuch = await returnOf(shop, orderId, {
      lines: [{ variantId: mug, quantity: 1 }],
      refundAmount: 7131,
    });
    assert.equal(tooMuch.statusCode, 409, tooMuch.body);
    assert.equal(tooMuch.json<Problem>().title, 'refund_too_large');
    assert.equal(tooMuch.json<Problem>().errors![0]!.pointer, '/refundAmount');
    assert.deepEqual(await shop.stock(mug), { on_hand: 7, reserved: 0 }, 'nothing was restocked');

    const unknownVariant = await returnOf(shop, orderId, {
      lines: [{ variantId: randomUUID(), quantity: 1 }],
    });
    assert.equal(unknownVariant.statusCode, 400);
    assert.equal(unknownVariant.json<Problem>().errors![0]!.pointer, '/lines/0/variantId');
    const zero = await returnOf(shop, orderId, { lines: [{ variantId: mug, quantity: 0 }] });
    assert.equal(zero.statusCode, 400);
    const empty = await returnOf(shop, orderId, { lines: [] });
    assert.equal(empty.statusCode, 400);
    assert.equal(
      (await returnOf(shop, randomUUID(), { lines: [{ variantId: mug, quantity: 1 }] })).statusCode,
      404,
    );

    // A parcel whose units came back is not cancelled.
    const cancelParcel = await shop.admin('POST', `/orders/${orderId}/fulfillments/${parcel}/cancel`);
    assert.equal(cancelParcel.statusCode, 409, cancelParcel.body);
    assert.equal(cancelParcel.json<Problem>().title, 'fulfillment_returned');

    // Only one return was recorded through all of this.
    assert.equal((await adminOrder(shop, orderId)).returns.length, 1);
  });

  test('a pending order takes no return', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(5);
    const bought = await shop.buy(variantId, 1);
    const refused = await returnOf(shop, bought.order.id, { lines: [{ variantId, quantity: 1 }] });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json<Problem>().title, 'order_not_paid');
  });

  test('two returns of the last unit at once: one is recorded, the unit restocked and refunded once', async () => {
    const shop = await ShopDriver.open(t);
    const { orderId, mug } = await paidOrder(shop);
    await ship(shop, orderId, [{ variantId: mug, quantity: 1 }]);
    const answers = await Promise.all(
      [1, 2, 3].map(() => returnOf(shop, orderId, { lines: [{ variantId: mug, quantity: 1 }] })),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 409, 409]);
    assert.deepEqual(await shop.stock(mug), { on_hand: 8, reserved: 0 });
    const order = await adminOrder(shop, orderId);
    assert.equal(order.returns.length, 1);
    assert.equal(order.refunds.length, 1);
  });
});
