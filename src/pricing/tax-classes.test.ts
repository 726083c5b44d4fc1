/**
 * Tax classes end to end (decisions `tax-classes`, `shipping-tax` and `tax-arithmetic`): classes
 * set through the admin API on products and shipping methods price a cart to Germany at each line's
 * class rate, the shipping split over the goods' classes or taxed at its method's class as the area
 * says, and checkout charges exactly what the cart showed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { ok } from '../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface LineTax {
  amount: number;
  rateBps: number;
  class: string;
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
interface Cart {
  id: string;
  items: { variantId: string; quantity: number; tax: LineTax | null }[];
  totals: { subtotal: Money; discount: Money; shipping: Money; tax: Money; total: Money; amountDue: Money };
  taxLines: TaxLine[];
}
interface Order {
  lines: { variantId: string; tax?: LineTax }[];
  tax: Money;
  shipping: Money;
  shippingTax: Money;
  total: Money;
  taxLines: TaxLine[];
}

const BERLIN = {
  name: 'Ada Lovelace',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};

/**
 * A euro store taxing Germany at 19 %, books (`reduced`) at 7 %, shipping following the goods; a
 * book at 15.00 and a shirt at 25.00; a DE zone with two flat methods of 5.00, `Post` following
 * the goods and `Courier` taxed as `standard`.
 */
async function germanStore() {
  const shop = await createTestStore(t, { currency: 'EUR' });
  const admin = t.admin(shop);
  await ok(admin.post('/tax-classes', { code: 'reduced', name: 'Reduced' }), 201);
  await ok(
    admin.put('/tax-rates/DE', {
      taxRateBps: 1900,
      classRates: { reduced: 700 },
      shippingTax: 'follow_goods',
    }),
  );
  const product = async (title: string, priceAmount: number, taxClass: string) =>
    (
      await ok<{ variants: { id: string }[] }>(
        admin.post('/products', {
          title,
          status: 'active',
          taxClass,
          variants: [{ label: title, priceAmount, onHand: 10 }],
        }),
        201,
      )
    ).variants[0]!.id;
  const book = await product('Book', 1500, 'reduced');
  const shirt = await product('Shirt', 2500, 'standard');
  const zone = await ok<{ id: string }>(
    admin.post('/shipping/zones', { name: 'Germany', areas: [{ country: 'DE' }] }),
    201,
  );
  const method = async (body: object) =>
    (await ok<{ id: string }>(admin.post(`/shipping/zones/${zone.id}/methods`, body), 201)).id;
  const post = await method({ name: 'Post', kind: 'flat', amount: 500 });
  const courier = await method({ name: 'Courier', kind: 'flat', amount: 500, taxClass: 'standard' });
  return { shop, book, shirt, post, courier };
}

/** Two books and a shirt to Berlin, by the given method. */
async function cartTo(shop: TestStore, book: string, shirt: string, methodId: string): Promise<Cart> {
  const storefront = t.storefront(shop);
  const cart = await ok<Cart>(
    storefront.post('/carts', {
      items: [
        { variantId: book, quantity: 2 },
        { variantId: shirt, quantity: 1 },
      ],
    }),
    201,
  );
  await ok(storefront.put(`/carts/${cart.id}/shipping-address`, BERLIN));
  return ok<Cart>(storefront.put(`/carts/${cart.id}/shipping-method`, { id: methodId }));
}

const eur = (amount: number): Money => ({ amount, currency: 'EUR' });
const de = (taxClass: string, rateBps: number, taxable: number, amount: number): TaxLine => ({
  country: 'DE',
  region: null,
  class: taxClass,
  rateBps,
  taxable,
  amount,
  currency: 'EUR',
});

describe('tax classes price the cart and the order', () => {
  test('each line at its class’s rate, shipping split over the classes; the order charges the preview', async () => {
    const { shop, book, shirt, post } = await germanStore();
    const cart = await cartTo(shop, book, shirt, post);

    // Books: 2 × 15.00 = 30.00 at 7 % = 2.10. Shirt: 25.00 at 19 % = 4.75.
    assert.deepEqual(
      cart.items.map((item) => item.tax),
      [
        { amount: 210, rateBps: 700, class: 'reduced' },
        { amount: 475, rateBps: 1900, class: 'standard' },
      ],
    );
    // Shipping 5.00 follows the goods, 30.00 : 25.00. Exactly 500 × 30/55 = 272.73 and
    // 500 × 25/55 = 227.27: floors 272 + 227 = 499, the cent left goes to the larger remainder
    // (books), so 273 at 7 % = 19.11 → 19 and 227 at 19 % = 43.13 → 43: shipping tax 62.
    // Tax 210 + 475 + 62 = 747; total 55.00 + 5.00 + 7.47 = 67.47.
    assert.deepEqual(cart.totals, {
      subtotal: eur(5500),
      discount: eur(0),
      shipping: eur(500),
      tax: eur(747),
      total: eur(6747),
      amountDue: eur(6747),
      taxIncluded: false,
    });
    assert.equal(
      cart.totals.tax.amount,
      cart.items.reduce((sum, item) => sum + item.tax!.amount, 0) + 62,
      'Σ line taxes + shipping tax',
    );
    assert.deepEqual(cart.taxLines, [
      de('reduced', 700, 3000 + 273, 210 + 19),
      de('standard', 1900, 2500 + 227, 475 + 43),
    ]);

    const placed = await ok<{ order: Order }>(
      t
        .storefront(shop)
        .post(
          '/checkout',
          { cartId: cart.id, email: 'ada@example.com' },
          { 'idempotency-key': randomUUID() },
        ),
      201,
    );
    const order = placed.order;
    assert.deepEqual(order.tax, cart.totals.tax);
    assert.deepEqual(order.total, cart.totals.total);
    assert.deepEqual(order.shippingTax, eur(62));
    assert.deepEqual(order.taxLines, cart.taxLines);
    assert.deepEqual(
      order.lines.map((line) => [line.variantId, line.tax]),
      cart.items.map((item) => [item.variantId, item.tax]),
    );
  });

  test('a method taxed as standard taxes all its shipping at 19 %', async () => {
    const { shop, book, shirt, courier } = await germanStore();
    const cart = await cartTo(shop, book, shirt, courier);
    // Lines as before (210 + 475); shipping 5.00 at 19 % = 0.95, all under standard.
    assert.equal(cart.totals.tax.amount, 210 + 475 + 95);
    assert.deepEqual(cart.taxLines, [
      de('reduced', 700, 3000, 210),
      de('standard', 1900, 2500 + 500, 475 + 95),
    ]);
  });

  test('where the area does not tax shipping, a method’s class leaves it untaxed', async () => {
    const { shop, book, shirt, courier } = await germanStore();
    const rate = await ok<{ classRates: Record<string, number> }>(
      t.admin(shop).put('/tax-rates/DE', { taxRateBps: 1900, shippingTax: 'none' }),
    );
    assert.deepEqual(rate.classRates, { reduced: 700 }, 'left out, the class rates stay');
    const cart = await cartTo(shop, book, shirt, courier);
    assert.equal(cart.totals.tax.amount, 210 + 475);
    assert.equal(cart.totals.total.amount, 5500 + 500 + 685);
    assert.deepEqual(cart.taxLines, [de('reduced', 700, 3000, 210), de('standard', 1900, 2500, 475)]);
  });
});
