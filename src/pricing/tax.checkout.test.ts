/**
 * Tax at the till (decisions `tax-arithmetic`, `prices-include-tax`, `shipping-tax`, `tax-service`):
 * what a cart previews and a checkout charges and keeps, through the real API. Prices that include
 * tax keep the shelf price for every destination; shipping follows the goods where the area says
 * so; a store's tax service is asked for real (a local receiver), a failure estimates a preview and
 * refuses a checkout, and a good answer is what the order keeps.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createVariants } from '../test/catalog.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import {
  startReceiver,
  webhookTestConfig,
  type Receiver,
  type ReceivedRequest,
  type Reply,
} from '../webhooks/webhooks.test-support.ts';

const TIMEOUT_MS = 300;
const answers = new Map<string, (request: ReceivedRequest) => Reply>();
let t: TestApp;
let receiver: Receiver;
before(async () => {
  t = await startTestApp({ config: { ...webhookTestConfig(), taxServiceTimeoutMs: TIMEOUT_MS } });
  receiver = await startReceiver(
    (request) => answers.get(request.path)?.(request) ?? { status: 404, body: 'no such store here' },
  );
});
after(async () => {
  await receiver.close();
  await t.close();
});

interface Money {
  amount: number;
  currency: string;
}
interface TaxLine {
  country: string;
  region: string | null;
  class: string;
  rateBps: number;
  taxable: number;
  amount: number;
  currency: string;
}
interface Priced {
  items: { discount: Money; tax: { amount: number; rateBps: number; class: string } | null }[];
  totals: Record<'subtotal' | 'discount' | 'shipping' | 'tax' | 'total', Money> & { taxIncluded: boolean };
  taxEstimated: boolean;
  taxLines: TaxLine[];
}
interface PlacedOrder {
  id: string;
  total: Money;
  tax: Money;
  shippingTax: Money;
  taxIncluded: boolean;
  taxLines: TaxLine[];
  lines: { discount?: Money; tax?: { amount: number; rateBps: number; class: string } | null }[];
}

const BERLIN = {
  name: 'Ada Lovelace',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};
const PARIS = {
  name: 'Ada Lovelace',
  line1: '1 Rue de Rivoli',
  city: 'Paris',
  postalCode: '75001',
  country: 'FR',
};

/** A store selling in DE (19 %) and FR (20 %), with a flat 500 shipping to both. */
async function europeanStore(options: { inclusive: boolean; shippingTax: 'none' | 'follow_goods' }) {
  const shop = await createTestStore(t, { currency: 'EUR' });
  const admin = t.admin(shop);
  if (options.inclusive)
    assert.equal((await admin.put('/settings', { pricesIncludeTax: true })).statusCode, 200);
  for (const [country, bps] of [
    ['DE', 1900],
    ['FR', 2000],
  ] as const) {
    const rate = await admin.put(`/tax-rates/${country}`, {
      taxRateBps: bps,
      shippingTax: options.shippingTax,
    });
    assert.equal(rate.statusCode, 200, rate.body);
  }
  const zone = await admin.post('/shipping/zones', {
    name: 'EU',
    areas: [{ country: 'DE' }, { country: 'FR' }],
  });
  assert.equal(zone.statusCode, 201, zone.body);
  const method = await admin.post(`/shipping/zones/${zone.json<{ id: string }>().id}/methods`, {
    name: 'Post',
    kind: 'flat',
    amount: 500,
  });
  assert.equal(method.statusCode, 201, method.body);
  return shop;
}

async function cartTo(shop: TestStore, items: { variantId: string; quantity: number }[], address: object) {
  const created = await t.storefront(shop).post('/carts', { items });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json<{ id: string }>().id;
  const addressed = await t.storefront(shop).put(`/carts/${id}/shipping-address`, address);
  assert.equal(addressed.statusCode, 200, addressed.body);
  return { id, cart: addressed.json<Priced>() };
}

const checkout = (shop: TestStore, cartId: string) =>
  t
    .storefront(shop)
    .post('/checkout', { cartId, email: 'ada@example.com' }, { 'idempotency-key': randomUUID() });

const amounts = (priced: Pick<Priced, 'totals'>) => ({
  subtotal: priced.totals.subtotal.amount,
  discount: priced.totals.discount.amount,
  shipping: priced.totals.shipping.amount,
  tax: priced.totals.tax.amount,
  total: priced.totals.total.amount,
});

describe('prices that include tax', () => {
  test('the shelf price is charged in every country; only its tax part follows the destination', async () => {
    const shop = await europeanStore({ inclusive: true, shippingTax: 'none' });
    const store = (await t.storefront(shop).get('/store/tax')).json<{ pricesIncludeTax: boolean }>();
    assert.equal(store.pricesIncludeTax, true, 'the storefront can say "incl. VAT"');
    const [tee] = await createVariants(t, shop, [{ price: 1190 }]);
    const items = [{ variantId: tee!, quantity: 2 }];
    const berlin = await cartTo(shop, items, BERLIN);
    const paris = await cartTo(shop, items, PARIS);
    // 2 × 11.90 = 23.80 gross everywhere. DE: 2380 − round(2380 / 1.19) = 2380 − 2000 = 380.
    // FR: 2380 − round(2380 / 1.2) = 2380 − 1983 = 397. Shipping 500, untaxed, on top of neither.
    assert.deepEqual(amounts(berlin.cart), {
      subtotal: 2380,
      discount: 0,
      shipping: 500,
      tax: 380,
      total: 2880,
    });
    assert.deepEqual(amounts(paris.cart), {
      subtotal: 2380,
      discount: 0,
      shipping: 500,
      tax: 397,
      total: 2880,
    });
    assert.equal(berlin.cart.totals.taxIncluded, true);
    assert.deepEqual(berlin.cart.items[0]!.tax, { amount: 380, rateBps: 1900, class: 'standard' });
    assert.deepEqual(
      berlin.cart.taxLines.map((line) => [line.country, line.class, line.rateBps, line.taxable, line.amount]),
      [['DE', 'standard', 1900, 2000, 380]],
    );

    const placed = await checkout(shop, berlin.id);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<{ order: PlacedOrder }>().order;
    assert.equal(order.total.amount, 2880, 'the preview is the charge');
    assert.equal(order.taxIncluded, true);
    assert.equal(order.tax.amount, 380);
    assert.deepEqual(order.lines[0]!.tax, { amount: 380, rateBps: 1900, class: 'standard' });
    assert.deepEqual(order.taxLines, berlin.cart.taxLines);

    // Paid: the confirmation carries a breakdown an EU buyer can keep; a refund says its tax part.
    const { payment } = placed.json<{ payment: { ref: string; clientSecret: string } }>();
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/sandbox/v1/payments/${payment.ref}/confirm`,
      payload: { clientSecret: payment.clientSecret, paymentMethod: 'pm_card_visa' },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    /** The text of the store's mail of a kind about this order, once it is queued. */
    const mailText = (kind: string) =>
      waitFor(
        async () =>
          (
            await t.db.kysely
              .selectFrom('mail_outbox')
              .select('text_body')
              .where('store_id', '=', shop.store.id)
              .where('kind', '=', kind)
              .executeTakeFirst()
          )?.text_body,
        5000,
        `the ${kind} mail`,
      );
    const confirmation = await mailText('order_confirmation');
    assert.match(confirmation, /Total\s+€28\.80 \(incl\. €3\.80 tax\)/);
    assert.match(confirmation, /^Tax\n\s+19 % on €20\.00\s+€3\.80$/m);
    await waitFor(
      async () =>
        (await t.admin(shop).get(`/orders/${order.id}`)).json<{ status: string }>().status === 'paid' ||
        undefined,
      5000,
      'the order paid',
    );
    const refund = await t.admin(shop).post(`/orders/${order.id}/refunds`, { amount: 2880 });
    assert.ok([201, 202].includes(refund.statusCode), refund.body);
    const notice = await mailText('refund_notice');
    assert.match(notice, /Of which tax: €3\.80\./, 'a whole refund gives back exactly the tax charged');

    // The setting goes off: the next checkout adds tax on top; the order placed keeps its figures.
    assert.equal((await t.admin(shop).put('/settings', { pricesIncludeTax: false })).statusCode, 200);
    const kept = (await t.admin(shop).get(`/orders/${order.id}`)).json<PlacedOrder>();
    assert.equal(kept.taxIncluded, true);
    assert.equal(kept.total.amount, 2880);
  });

  test('a discount is shared over the lines exactly, and each line is taxed on what is left of it', async () => {
    const shop = await europeanStore({ inclusive: false, shippingTax: 'none' });
    await t.admin(shop).post('/discounts', { code: 'TEN', kind: 'fixed', value: 1000 });
    const [a, b] = await createVariants(t, shop, [{ price: 1000 }, { price: 2000 }]);
    const { id } = await cartTo(
      shop,
      [
        { variantId: a!, quantity: 1 },
        { variantId: b!, quantity: 1 },
      ],
      BERLIN,
    );
    const coded = await t.storefront(shop).put(`/carts/${id}/discount-code`, { code: 'TEN' });
    assert.equal(coded.statusCode, 200, coded.body);
    const cart = coded.json<Priced>();
    // 1000 off 3000: 333.3… and 666.6… → ⌊⌋ 333 + 666 = 999, the unit left to the larger remainder (666.6…).
    assert.deepEqual(
      cart.items.map((item) => item.discount.amount),
      [333, 667],
    );
    // 19 % of 667 = 126.73 → 127; of 1333 = 253.27 → 253.
    assert.deepEqual(
      cart.items.map((item) => item.tax?.amount),
      [127, 253],
    );
    assert.deepEqual(amounts(cart), { subtotal: 3000, discount: 1000, shipping: 500, tax: 380, total: 2880 });
    const placed = await checkout(shop, id);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<{ order: PlacedOrder }>().order;
    assert.deepEqual(
      order.lines.map((line) => [line.discount?.amount, line.tax?.amount]),
      [
        [333, 127],
        [667, 253],
      ],
    );
  });
});

describe('shipping that follows the goods', () => {
  test('the area taxes shipping at the goods’ rate; an area that says none does not', async () => {
    const shop = await europeanStore({ inclusive: false, shippingTax: 'follow_goods' });
    await t.admin(shop).put('/tax-rates/FR', { taxRateBps: 2000, shippingTax: 'none' });
    const [tee] = await createVariants(t, shop, [{ price: 2000 }]);
    const berlin = await cartTo(shop, [{ variantId: tee!, quantity: 1 }], BERLIN);
    // Goods 2000 × 19 % = 380; shipping 500 × 19 % = 95, in the total and the breakdown.
    assert.deepEqual(amounts(berlin.cart), {
      subtotal: 2000,
      discount: 0,
      shipping: 500,
      tax: 475,
      total: 2975,
    });
    assert.deepEqual(
      berlin.cart.taxLines.map((line) => [line.class, line.rateBps, line.taxable, line.amount]),
      [['standard', 1900, 2500, 475]],
    );
    const placed = await checkout(shop, berlin.id);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<{ order: PlacedOrder }>().order;
    assert.equal(order.shippingTax.amount, 95);
    assert.equal(order.tax.amount, 475);

    const paris = await cartTo(shop, [{ variantId: tee!, quantity: 1 }], PARIS);
    assert.deepEqual(amounts(paris.cart), {
      subtotal: 2000,
      discount: 0,
      shipping: 500,
      tax: 400,
      total: 2900,
    });
  });
});

describe('tax classes', () => {
  test('standard is always there first; a class is added once, rated per area, and cannot go while rated', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const listed = () =>
      admin
        .get('/tax-classes')
        .then((response) => response.json<{ items: { code: string }[] }>().items.map((c) => c.code));
    assert.deepEqual(await listed(), ['standard']);
    assert.equal((await admin.post('/tax-classes', { code: 'reduced', name: 'Reduced' })).statusCode, 201);
    const again = await admin.post('/tax-classes', { code: 'reduced', name: 'Again' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json<{ title: string }>().title, 'tax_class_exists');
    const bad = await admin.post('/tax-classes', { code: 'Reduced Rate', name: 'x' });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(await listed(), ['standard', 'reduced']);

    const unknown = await admin.put('/tax-rates/DE', {
      taxRateBps: 1900,
      classRates: { zero: 0, standard: 1900 },
    });
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(
      unknown
        .json<{ errors: { pointer: string }[] }>()
        .errors.map((error) => error.pointer)
        .sort(),
      ['/classRates/standard', '/classRates/zero'],
    );
    assert.equal(
      (await admin.get('/tax-rates')).json<{ items: unknown[] }>().items.length,
      0,
      'nothing written',
    );

    const rated = await admin.put('/tax-rates/DE', { taxRateBps: 1900, classRates: { reduced: 700 } });
    assert.equal(rated.statusCode, 200, rated.body);
    assert.deepEqual(rated.json<{ classRates: object; shippingTax: string }>().classRates, { reduced: 700 });
    assert.equal(rated.json<{ shippingTax: string }>().shippingTax, 'none');
    // Changing the standard rate alone keeps the class rates and the shipping rule.
    const changed = await admin.put('/tax-rates/DE', { taxRateBps: 2000 });
    assert.deepEqual(changed.json<{ classRates: object }>().classRates, { reduced: 700 });

    const inUse = await admin.delete('/tax-classes/reduced');
    assert.equal(inUse.statusCode, 409);
    assert.equal(inUse.json<{ title: string }>().title, 'tax_class_in_use');
    assert.match(inUse.json<{ detail: string }>().detail, /DE/);
    assert.equal((await admin.delete('/tax-classes/standard')).statusCode, 409);
    await admin.put('/tax-rates/DE', { taxRateBps: 2000, classRates: {} });
    assert.equal((await admin.delete('/tax-classes/reduced')).statusCode, 204);
    assert.equal((await admin.delete('/tax-classes/reduced')).statusCode, 404);
    assert.deepEqual(await listed(), ['standard']);

    // Another store's classes are its own.
    const other = await createTestStore(t);
    await admin.post('/tax-classes', { code: 'books', name: 'Books' });
    const elsewhere = await t
      .admin(other)
      .put('/tax-rates/DE', { taxRateBps: 1900, classRates: { books: 700 } });
    assert.equal(elsewhere.statusCode, 400);
  });
});

describe('the tax service at the till', () => {
  async function withService(answer: (request: ReceivedRequest) => Reply) {
    const shop = await europeanStore({ inclusive: false, shippingTax: 'none' });
    const path = `/tax/${shop.store.id}`;
    answers.set(path, answer);
    const set = await t.admin(shop).put('/tax-service', { url: `http://127.0.0.1:${receiver.port}${path}` });
    assert.equal(set.statusCode, 201, set.body);
    const [tee] = await createVariants(t, shop, [{ price: 2000 }]);
    return { shop, path, tee: tee! };
  }
  const json = (body: unknown): Reply => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  test('its checked answer is what the preview shows and the order keeps', async () => {
    const { shop, tee } = await withService((request) => {
      const quote = request.body as unknown as { data: { lines: { amount: number }[]; country: string } };
      assert.equal(quote.data.country, 'DE');
      return json({ lines: quote.data.lines.map(() => ({ tax: 123 })), shipping: { tax: 45 } });
    });
    const { id, cart } = await cartTo(shop, [{ variantId: tee, quantity: 1 }], BERLIN);
    assert.equal(cart.taxEstimated, false);
    assert.deepEqual(amounts(cart), { subtotal: 2000, discount: 0, shipping: 500, tax: 168, total: 2668 });
    const placed = await checkout(shop, id);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<{ order: PlacedOrder }>().order;
    assert.equal(order.tax.amount, 168);
    assert.equal(order.shippingTax.amount, 45);
    assert.equal(order.lines[0]!.tax?.amount, 123);
    assert.equal(order.total.amount, 2668);
  });

  test('down (Saleor #12685 took a failing service as zero tax): the preview estimates with the built-in rates; checkout is 503 tax_unavailable, never zero, nothing placed', async () => {
    const { shop, tee } = await withService(() => ({ status: 500, body: 'down' }));
    const { id, cart } = await cartTo(shop, [{ variantId: tee, quantity: 1 }], BERLIN);
    assert.equal(cart.taxEstimated, true);
    assert.equal(cart.totals.tax.amount, 380, 'the built-in 19 %');
    const refused = await checkout(shop, id);
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json<{ title: string }>().title, 'tax_unavailable');
    assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After');
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    const orders = await t.admin(shop).get('/orders');
    assert.equal(orders.json<{ items: unknown[] }>().items.length, 0);
    // The cart is still there to try again.
    const again = await t.storefront(shop).get(`/carts/${id}`);
    assert.equal(again.json<{ completed: boolean }>().completed, false);
  });

  test('slow, or answering wrongly: the same refusal', async () => {
    for (const answer of [
      (): Reply => ({ ...json({}), delayMs: TIMEOUT_MS * 4 }),
      () => json({ lines: [{ tax: -1 }], shipping: { tax: 0 } }),
      () => json({ lines: [], shipping: { tax: 0 } }),
    ]) {
      const { shop, tee } = await withService(answer);
      const { id } = await cartTo(shop, [{ variantId: tee, quantity: 1 }], BERLIN);
      const refused = await checkout(shop, id);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json<{ title: string }>().title, 'tax_unavailable');
    }
  });
});
