/**
 * Carts and checkout in a market (decisions `markets` and `market-prices`): a cart's country or
 * address fixes its market; moving it re-prices every line and says so; flat shipping and fixed
 * discounts convert at the market's rate; the order, its payment and its refund are in the market's
 * currency, and the preview equals the charge.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { ok } from '../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface Cart {
  id: string;
  items: { variantId: string; unitPrice: Money; lineTotal: Money }[];
  totals: {
    subtotal: Money;
    discount: Money;
    shipping: Money;
    tax: Money;
    total: Money;
    taxIncluded: boolean;
  };
  notices: { code: string; detail: string }[];
  country?: string;
}
interface Placed {
  order: {
    id: string;
    status: string;
    total: Money;
    currency?: string;
    subtotal: Money;
    shipping: Money;
    tax: Money;
    discount: Money;
  };
  payment: { ref: string; clientSecret: string; amount?: Money };
}

const BERLIN = {
  name: 'Ada Lovelace',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};
const BOSTON = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Boston',
  region: 'US-MA',
  postalCode: '02110',
  country: 'US',
};

/**
 * A USD store: a shirt at 24.00, a mug at 10.00 with an explicit 8.99 EUR price; Germany taxed at
 * 19 %; flat shipping of 5.00 to DE and US; a 5.00-off code; Europe (DE) in EUR at 0.92 to .99,
 * prices including tax.
 */
async function store() {
  const shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const variant = async (title: string, body: object) =>
    (
      await ok<{ variants: { id: string }[] }>(
        admin.post('/products', {
          title,
          status: 'active',
          variants: [{ label: title, onHand: 20, ...body }],
        }),
        201,
      )
    ).variants[0]!.id;
  const shirt = await variant('Shirt', { priceAmount: 2400 });
  const mug = await variant('Mug', { priceAmount: 1000, prices: [{ currency: 'EUR', amount: 899 }] });
  await ok(admin.put('/tax-rates/DE', { taxRateBps: 1900 }));
  for (const [name, country] of [
    ['Germany', 'DE'],
    ['United States', 'US'],
  ] as const) {
    const zone = await ok<{ id: string }>(admin.post('/shipping/zones', { name, areas: [{ country }] }), 201);
    await ok(
      admin.post(`/shipping/zones/${zone.id}/methods`, { name: 'Post', kind: 'flat', amount: 500 }),
      201,
    );
  }
  await ok(admin.post('/discounts', { code: 'FIVE', kind: 'fixed', value: 500 }), 201);
  await ok(
    admin.post('/markets', {
      name: 'Europe',
      countries: ['DE'],
      currency: 'EUR',
      exchangeRate: '0.92',
      rounding: 'to_99',
      pricesIncludeTax: true,
    }),
    201,
  );
  return { shop, shirt, mug };
}

describe('carts and checkout in a market', () => {
  test('a cart’s country prices it in its market; an address elsewhere moves it and says so', async () => {
    const { shop, shirt, mug } = await store();
    const storefront = t.storefront(shop);
    const items = [
      { variantId: shirt, quantity: 2 },
      { variantId: mug, quantity: 1 },
    ];
    const cart = await ok<Cart>(storefront.post('/carts', { items, country: 'de' }), 201);
    assert.equal(cart.country, 'DE');
    assert.deepEqual(
      cart.items.map((item) => item.unitPrice),
      [
        { amount: 2299, currency: 'EUR' },
        { amount: 899, currency: 'EUR' },
      ],
    );
    assert.deepEqual(cart.totals.subtotal, { amount: 2 * 2299 + 899, currency: 'EUR' });
    assert.equal(cart.totals.taxIncluded, true);

    const inUs = await ok<Cart>(storefront.put(`/carts/${cart.id}/shipping-address`, BOSTON));
    assert.deepEqual(
      inUs.notices.map((n) => n.code),
      ['market_changed'],
    );
    assert.deepEqual(inUs.totals.subtotal, { amount: 2 * 2400 + 1000, currency: 'USD' });
    assert.equal(inUs.totals.taxIncluded, false);
    // Written again without moving: no notice.
    const again = await ok<Cart>(storefront.put(`/carts/${cart.id}/shipping-address`, BOSTON));
    assert.deepEqual(again.notices, []);

    const inDe = await ok<Cart>(storefront.put(`/carts/${cart.id}/shipping-address`, BERLIN));
    assert.deepEqual(
      inDe.notices.map((n) => n.code),
      ['market_changed'],
    );
    // Flat shipping 5.00 USD at 0.92, half up: 4.60 EUR (the shelf rounding is for prices only).
    assert.deepEqual(inDe.totals.shipping, { amount: 460, currency: 'EUR' });
    // Gross prices: the tax is the part of them, 19 % of each line and of the shipping.
    assert.equal(inDe.totals.total.amount, 2 * 2299 + 899 + 460);

    // A country without an address: PUT /carts/{id}/country moves an addressless cart.
    const other = await ok<Cart>(storefront.post('/carts', { items }), 201);
    assert.equal(other.totals.subtotal.currency, 'USD');
    assert.equal('country' in other, false, 'a cart without a country shows none');
    const moved = await ok<Cart>(storefront.put(`/carts/${other.id}/country`, { country: 'DE' }));
    assert.deepEqual(
      [moved.totals.subtotal, moved.notices.map((n) => n.code)],
      [{ amount: 2 * 2299 + 899, currency: 'EUR' }, ['market_changed']],
    );
    const bad = await storefront.put(`/carts/${other.id}/country`, { country: 'ZZ' });
    assert.equal(bad.statusCode, 400, bad.body);
  });

  test('checkout charges the preview, in the market’s currency, and the order is paid and refunded in it', async () => {
    const { shop, shirt, mug } = await store();
    const storefront = t.storefront(shop);
    const cart = await ok<Cart>(
      storefront.post('/carts', {
        items: [
          { variantId: shirt, quantity: 1 },
          { variantId: mug, quantity: 2 },
        ],
      }),
      201,
    );
    await ok(storefront.put(`/carts/${cart.id}/shipping-address`, BERLIN));
    const preview = await ok<Cart>(storefront.put(`/carts/${cart.id}/discount-code`, { code: 'FIVE' }));
    // The 5.00 USD code is 4.60 EUR here.
    assert.deepEqual(preview.totals.discount, { amount: 460, currency: 'EUR' });
    const placed = await ok<Placed>(
      storefront.post(
        '/checkout',
        { cartId: cart.id, email: 'ada@example.com' },
        { 'idempotency-key': randomUUID() },
      ),
      201,
    );
    for (const key of ['subtotal', 'discount', 'shipping', 'tax', 'total'] as const)
      assert.deepEqual(placed.order[key], preview.totals[key], key);
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/sandbox/v1/payments/${placed.payment.ref}/confirm`,
      payload: { clientSecret: placed.payment.clientSecret, paymentMethod: 'pm_card_visa' },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    const admin = t.admin(shop);
    const paid = await waitFor(async () => {
      const order = await ok<{ status: string; total: Money; payments?: { amount: Money }[] }>(
        admin.get(`/orders/${placed.order.id}`),
      );
      return order.status === 'paid' ? order : undefined;
    });
    assert.deepEqual(paid.total, preview.totals.total);
    // The console's home sums revenue per currency; the store-currency figure holds only USD orders.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const home = await ok<{ orders: { revenue: Money }; revenueByCurrency: Money[] }>(
      admin.get(`/overview?since=${encodeURIComponent(since)}`),
    );
    assert.deepEqual(home.revenueByCurrency, [preview.totals.total]);
    assert.deepEqual(home.orders.revenue, { amount: 0, currency: 'USD' });
    const { refund } = await ok<{ refund: { amount: Money } }>(
      admin.post(`/orders/${placed.order.id}/refunds`, { amount: 500 }, { 'idempotency-key': randomUUID() }),
      202,
    );
    assert.deepEqual(refund.amount, { amount: 500, currency: 'EUR' });
  });

  test('a price changed between the preview and the checkout is caught in the market too', async () => {
    const { shop, mug } = await store();
    const storefront = t.storefront(shop);
    const cart = await ok<Cart>(
      storefront.post('/carts', { items: [{ variantId: mug, quantity: 1 }], country: 'DE' }),
      201,
    );
    assert.equal(cart.totals.subtotal.amount, 899);
    await ok(t.admin(shop).patch(`/variants/${mug}`, { prices: [{ currency: 'EUR', amount: 950 }] }));
    const placed = await ok<Placed>(
      storefront.post(
        '/checkout',
        { cartId: cart.id, email: 'ada@example.com', country: 'DE' },
        { 'idempotency-key': randomUUID() },
      ),
      201,
    );
    assert.deepEqual(placed.order.subtotal, { amount: 950, currency: 'EUR' });
  });
});
