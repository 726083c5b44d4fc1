/**
 * The cart's shipping address and its shipping options (decisions `postal-addresses` and `cart-shipping-and-totals`): the address checked against its
 * country's rules and kept normalised under If-Match; the options of the address's zone for the
 * cart's lines, by weight and subtotal.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestAppWithStore, type TestApp, type TestStore } from '../test/harness.ts';
import { createVariants } from '../test/catalog.ts';

let t: TestApp;
let shop: TestStore;

before(async () => ({ t, shop } = await startTestAppWithStore()));
after(() => t.close());

interface Cart {
  id: string;
  shippingAddress: Record<string, string | null> | null;
}
interface Option {
  id: string;
  name: string;
  amount: { amount: number; currency: string };
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
}

const CALIFORNIA = {
  name: 'Ada Lovelace',
  line1: '1 Infinite Loop',
  city: 'Cupertino',
  region: 'ca',
  postalCode: '95014',
  country: 'us',
};

const NEW_YORK = {
  name: 'A',
  line1: '350 5th Ave',
  city: 'New York',
  region: 'US-NY',
  postalCode: '10118',
  country: 'US',
};

async function cart(store: TestStore, items: { variantId: string; quantity: number }[]) {
  const response = await t.storefront(store).post('/carts', { items });
  assert.equal(response.statusCode, 201, response.body);
  return { id: response.json<Cart>().id, etag: String(response.headers.etag) };
}

describe('PUT /carts/:id/shipping-address', () => {
  test('a good address is kept normalised, moves the cart to a new ETag and reads back', async () => {
    const [variantId] = await createVariants(t, shop, [{ price: 1000 }]);
    const { id, etag } = await cart(shop, [{ variantId: variantId!, quantity: 1 }]);
    const set = await t
      .storefront(shop)
      .put(`/carts/${id}/shipping-address`, CALIFORNIA, { 'if-match': etag });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual(set.json<Cart>().shippingAddress, {
      name: 'Ada Lovelace',
      company: null,
      line1: '1 Infinite Loop',
      line2: null,
      city: 'Cupertino',
      region: 'US-CA',
      postalCode: '95014',
      country: 'US',
      phone: null,
    });
    assert.notEqual(set.headers.etag, etag);
    const read = await t.storefront(shop).get(`/carts/${id}`);
    assert.deepEqual(read.json<Cart>().shippingAddress, set.json<Cart>().shippingAddress);
    assert.equal(read.headers.etag, set.headers.etag);

    // The old ETag no longer matches: 412, nothing changes.
    const stale = await t
      .storefront(shop)
      .put(`/carts/${id}/shipping-address`, { ...CALIFORNIA, city: 'Palo Alto' }, { 'if-match': etag });
    assert.equal(stale.statusCode, 412);
    assert.equal(
      (await t.storefront(shop).get(`/carts/${id}`)).json<Cart>().shippingAddress?.city,
      'Cupertino',
    );
  });

  test('a bad field is 400 with its pointer, and nothing is written', async () => {
    const [variantId] = await createVariants(t, shop, [{ price: 1000 }]);
    const { id } = await cart(shop, [{ variantId: variantId!, quantity: 1 }]);
    const cases: [object, string][] = [
      [
        { name: 'A', line1: 'Unter den Linden 1', city: 'Berlin', postalCode: '1011', country: 'DE' },
        '/postalCode',
      ],
      [{ ...CALIFORNIA, region: undefined }, '/region'],
      [{ ...CALIFORNIA, region: 'US-NY' }, '/postalCode'],
      [{ ...CALIFORNIA, country: 'XX' }, '/country'],
      [{ ...CALIFORNIA, name: '  ' }, '/name'],
    ];
    for (const [body, pointer] of cases) {
      const response = await t.storefront(shop).put(`/carts/${id}/shipping-address`, body);
      assert.equal(response.statusCode, 400, response.body);
      const errors = response.json<{ errors: { pointer: string }[] }>().errors;
      assert.ok(
        errors.some((error) => error.pointer === pointer),
        `${pointer} in ${response.body}`,
      );
    }
    const unknownField = await t
      .storefront(shop)
      .put(`/carts/${id}/shipping-address`, { ...CALIFORNIA, floor: 3 });
    assert.equal(unknownField.statusCode, 400);
    assert.equal((await t.storefront(shop).get(`/carts/${id}`)).json<Cart>().shippingAddress, null);
  });

  test('a checked-out cart is 409 cart_completed', async () => {
    const [variantId] = await createVariants(t, shop, [{ price: 1000 }]);
    const { id } = await cart(shop, [{ variantId: variantId!, quantity: 1 }]);
    const checkout = await t
      .storefront(shop)
      .post('/checkout', { cartId: id, email: 'ada@example.com' }, { 'idempotency-key': randomUUID() });
    assert.equal(checkout.statusCode, 201, checkout.body);
    const late = await t.storefront(shop).put(`/carts/${id}/shipping-address`, CALIFORNIA);
    assert.equal(late.statusCode, 409);
    assert.equal(late.json<{ title: string }>().title, 'cart_completed');
  });

  test('another store’s cart is 404; the address never reaches a log', async () => {
    const [variantId] = await createVariants(t, shop, [{ price: 1000 }]);
    const { id } = await cart(shop, [{ variantId: variantId!, quantity: 1 }]);
    const other = await createTestStore(t);
    assert.equal(
      (await t.storefront(other).put(`/carts/${id}/shipping-address`, CALIFORNIA)).statusCode,
      404,
    );
    assert.equal((await t.storefront(other).get(`/carts/${id}/shipping-options`)).statusCode, 404);
    await t.storefront(shop).put(`/carts/${id}/shipping-address`, CALIFORNIA);
    await t.storefront(shop).put(`/carts/${id}/shipping-address`, { ...CALIFORNIA, postalCode: 'nope' });
    const logged = JSON.stringify(t.logs);
    assert.ok(!logged.includes('Lovelace') && !logged.includes('Infinite Loop'), 'no address in the logs');
  });
});

describe('GET /carts/:id/shipping-options', () => {
  test('the methods of the address’s most specific zone the parcel can take, cheapest first', async () => {
    const store = await createTestStore(t);
    const zone = async (body: object) =>
      (await t.admin(store).post('/shipping/zones', body)).json<{ id: string }>().id;
    const method = async (zoneId: string, body: object) => {
      const response = await t.admin(store).post(`/shipping/zones/${zoneId}/methods`, body);
      assert.equal(response.statusCode, 201, response.body);
    };
    const us = await zone({ name: 'United States', areas: [{ country: 'US' }] });
    await method(us, { name: 'Ground', kind: 'flat', amount: 800, minDeliveryDays: 3, maxDeliveryDays: 7 });
    await method(us, {
      name: 'By weight',
      kind: 'weight',
      weightTiers: [
        { upToGrams: 1000, amount: 500 },
        { upToGrams: 5000, amount: 1200 },
      ],
    });
    await method(us, { name: 'Free over $100', kind: 'free_over', amount: 900, freeOverAmount: 10_000 });
    await method(us, { name: 'Retired', kind: 'flat', amount: 1, active: false });
    const west = await zone({ name: 'West', areas: [{ country: 'US', regions: ['US-CA'] }] });
    await method(west, { name: 'Courier', kind: 'flat', amount: 650 });

    const [mug, giftCard] = await createVariants(t, store, [
      { price: 3000, weightGrams: 400 },
      { price: 2500, requiresShipping: false },
    ]);

    // No address yet: 409.
    const { id } = await cart(store, [{ variantId: mug!, quantity: 2 }]);
    const early = await t.storefront(store).get(`/carts/${id}/shipping-options`);
    assert.equal(early.statusCode, 409);
    assert.equal(early.json<{ title: string }>().title, 'shipping_address_required');

    // New York: the country zone. 800 g fits the first tier; $60 is under the free threshold.
    await t.storefront(store).put(`/carts/${id}/shipping-address`, NEW_YORK);
    const options = await t.storefront(store).get(`/carts/${id}/shipping-options`);
    assert.equal(options.statusCode, 200, options.body);
    const body = options.json<{ items: Option[]; nextCursor: null }>();
    assert.equal(body.nextCursor, null);
    assert.deepEqual(
      body.items.map((option) => [option.name, option.amount.amount]),
      [
        ['By weight', 500],
        ['Ground', 800],
        ['Free over $100', 900],
      ],
    );
    assert.deepEqual(body.items[1], {
      id: body.items[1]!.id,
      name: 'Ground',
      amount: { amount: 800, currency: 'USD' },
      minDeliveryDays: 3,
      maxDeliveryDays: 7,
    });

    // Heavier and dearer: the second tier, and free shipping from $100.
    await t.storefront(store).put(`/carts/${id}`, { items: [{ variantId: mug!, quantity: 4 }] });
    assert.deepEqual(
      (await t.storefront(store).get(`/carts/${id}/shipping-options`))
        .json<{ items: Option[] }>()
        .items.map((option) => [option.name, option.amount.amount]),
      [
        ['Free over $100', 0],
        ['Ground', 800],
        ['By weight', 1200],
      ],
    );

    // California has a zone of its own.
    await t.storefront(store).put(`/carts/${id}/shipping-address`, CALIFORNIA);
    assert.deepEqual(
      (await t.storefront(store).get(`/carts/${id}/shipping-options`))
        .json<{ items: Option[] }>()
        .items.map((option) => option.name),
      ['Courier'],
    );

    // Nothing to ship: no options. Nowhere covered: none either.
    const gift = await cart(store, [{ variantId: giftCard!, quantity: 1 }]);
    await t.storefront(store).put(`/carts/${gift.id}/shipping-address`, CALIFORNIA);
    assert.deepEqual(
      (await t.storefront(store).get(`/carts/${gift.id}/shipping-options`)).json<{ items: Option[] }>().items,
      [],
    );
    await t.storefront(store).put(`/carts/${id}/shipping-address`, {
      name: 'A',
      line1: 'Unter den Linden 1',
      city: 'Berlin',
      postalCode: '10117',
      country: 'DE',
    });
    assert.deepEqual(
      (await t.storefront(store).get(`/carts/${id}/shipping-options`)).json<{ items: Option[] }>().items,
      [],
    );
  });
});

interface PricedCart {
  id: string;
  shippingMethod: Option | null;
  discountCode: string | null;
  totals: Record<
    'subtotal' | 'discount' | 'shipping' | 'tax' | 'total' | 'amountDue',
    { amount: number; currency: string }
  >;
  notices: { code: string; detail: string }[];
}

const amounts = (cart: PricedCart) =>
  Object.fromEntries(
    // What the goods, shipping and tax come to; `amountDue` (what gift cards leave) is checked apart.
    Object.entries(cart.totals).flatMap(([name, money]) =>
      typeof money === 'object' && name !== 'amountDue' ? [[name, money.amount]] : [],
    ),
  );

describe('the cart’s method, discount code and totals (decision `cart-shipping-and-totals`)', () => {
  test('totals preview the charge; a code and a method change them; each write takes If-Match', async () => {
    const store = await createTestStore(t);
    const zone = (
      await t.admin(store).post('/shipping/zones', { name: 'US', areas: [{ country: 'US' }] })
    ).json<{ id: string }>().id;
    // The legacy flat shipping becomes the country's default method, in the zone that covers it.
    assert.equal(
      (await t.admin(store).put('/tax-rates/US', { taxRateBps: 1000, shippingAmount: 700 })).statusCode,
      200,
    );
    const byWeight = (
      await t.admin(store).post(`/shipping/zones/${zone}/methods`, {
        name: 'By weight',
        kind: 'weight',
        weightTiers: [{ upToGrams: 1000, amount: 500 }],
      })
    ).json<{ id: string }>().id;
    await t.admin(store).post('/discounts', { code: 'SAVE10', kind: 'percent', value: 10 });
    const [mug] = await createVariants(t, store, [{ price: 3000, weightGrams: 400 }]);
    const { id, etag } = await cart(store, [{ variantId: mug!, quantity: 2 }]);

    // No address: no tax, no shipping.
    const fresh = (await t.storefront(store).get(`/carts/${id}`)).json<PricedCart>();
    assert.deepEqual(amounts(fresh), { subtotal: 6000, discount: 0, shipping: 0, tax: 0, total: 6000 });
    assert.deepEqual(
      fresh.totals.amountDue,
      fresh.totals.total,
      'without gift cards the provider is asked for it all',
    );
    assert.deepEqual([fresh.shippingMethod, fresh.discountCode, fresh.notices], [null, null, []]);

    // The address brings the country's tax and, without a method, its flat shipping.
    const addressed = await t
      .storefront(store)
      .put(`/carts/${id}/shipping-address`, NEW_YORK, { 'if-match': etag });
    assert.deepEqual(amounts(addressed.json<PricedCart>()), {
      subtotal: 6000,
      discount: 0,
      shipping: 700,
      tax: 600,
      total: 7300,
    });

    // A stale ETag is 412 on every sub-resource.
    for (const [url, body] of [
      [`/carts/${id}/shipping-method`, { id: byWeight }],
      [`/carts/${id}/discount-code`, { code: 'SAVE10' }],
    ] as const) {
      assert.equal((await t.storefront(store).put(url, body, { 'if-match': etag })).statusCode, 412, url);
    }
    assert.equal(
      (await t.storefront(store).delete(`/carts/${id}/discount-code`, undefined, { 'if-match': etag }))
        .statusCode,
      412,
    );

    const coded = await t.storefront(store).put(
      `/carts/${id}/discount-code`,
      { code: ' save10 ' },
      {
        'if-match': String(addressed.headers.etag),
      },
    );
    assert.equal(coded.statusCode, 200, coded.body);
    assert.equal(coded.json<PricedCart>().discountCode, 'SAVE10');
    assert.deepEqual(amounts(coded.json<PricedCart>()), {
      subtotal: 6000,
      discount: 600,
      shipping: 700,
      tax: 540,
      total: 6640,
    });
    const unknown = await t.storefront(store).put(`/carts/${id}/discount-code`, { code: 'NOPE' });
    assert.equal(unknown.statusCode, 409);
    assert.equal(unknown.json<{ title: string }>().title, 'discount_invalid');

    const chosen = await t.storefront(store).put(`/carts/${id}/shipping-method`, { id: byWeight });
    assert.equal(chosen.statusCode, 200, chosen.body);
    assert.equal(chosen.json<PricedCart>().shippingMethod?.name, 'By weight');
    assert.deepEqual(amounts(chosen.json<PricedCart>()), {
      subtotal: 6000,
      discount: 600,
      shipping: 500,
      tax: 540,
      total: 6440,
    });

    const removed = await t.storefront(store).delete(`/carts/${id}/discount-code`);
    assert.equal(removed.statusCode, 200, removed.body);
    assert.deepEqual(
      [removed.json<PricedCart>().discountCode, amounts(removed.json<PricedCart>()).discount],
      [null, 0],
    );
  });

  test('a method must be one of the options; a line change it cannot carry clears it, and says so', async () => {
    const store = await createTestStore(t);
    const zone = (
      await t.admin(store).post('/shipping/zones', { name: 'US', areas: [{ country: 'US' }] })
    ).json<{ id: string }>().id;
    const light = (
      await t.admin(store).post(`/shipping/zones/${zone}/methods`, {
        name: 'Light parcels',
        kind: 'weight',
        weightTiers: [{ upToGrams: 1000, amount: 500 }],
      })
    ).json<{ id: string }>().id;
    const ground = (
      await t
        .admin(store)
        .post(`/shipping/zones/${zone}/methods`, { name: 'Ground', kind: 'flat', amount: 900 })
    ).json<{ id: string }>().id;
    const other = await createTestStore(t);
    const foreignZone = (
      await t.admin(other).post('/shipping/zones', { name: 'US', areas: [{ country: 'US' }] })
    ).json<{ id: string }>().id;
    const foreign = (
      await t
        .admin(other)
        .post(`/shipping/zones/${foreignZone}/methods`, { name: 'Theirs', kind: 'flat', amount: 1 })
    ).json<{ id: string }>().id;
    const [mug] = await createVariants(t, store, [{ price: 3000, weightGrams: 400 }]);
    const { id } = await cart(store, [{ variantId: mug!, quantity: 2 }]);

    const early = await t.storefront(store).put(`/carts/${id}/shipping-method`, { id: light });
    assert.equal(early.json<{ title: string }>().title, 'shipping_address_required');
    await t.storefront(store).put(`/carts/${id}/shipping-address`, CALIFORNIA);
    for (const methodId of [foreign, '00000000-0000-4000-8000-000000000000']) {
      const refused = await t.storefront(store).put(`/carts/${id}/shipping-method`, { id: methodId });
      assert.equal(refused.statusCode, 409);
      assert.equal(refused.json<{ title: string }>().title, 'shipping_method_unavailable');
    }
    assert.equal(
      (await t.storefront(store).put(`/carts/${id}/shipping-method`, { id: light })).statusCode,
      200,
    );

    // Three mugs weigh 1,200 g: too heavy for the only tier.
    const heavier = await t
      .storefront(store)
      .put(`/carts/${id}`, { items: [{ variantId: mug!, quantity: 3 }] });
    assert.equal(heavier.statusCode, 200, heavier.body);
    assert.equal(heavier.json<PricedCart>().shippingMethod, null);
    assert.deepEqual(
      heavier.json<PricedCart>().notices.map((notice) => notice.code),
      ['shipping_method_cleared'],
    );
    const after = (await t.storefront(store).get(`/carts/${id}`)).json<PricedCart>();
    assert.deepEqual([after.shippingMethod, after.notices], [null, []]);

    // A method the merchant turns off shows as unavailable on the next read, until another is chosen.
    assert.equal(
      (await t.storefront(store).put(`/carts/${id}/shipping-method`, { id: ground })).statusCode,
      200,
    );
    await t.admin(store).patch(`/shipping/zones/${zone}/methods/${ground}`, { active: false });
    const turnedOff = (await t.storefront(store).get(`/carts/${id}`)).json<PricedCart>();
    assert.equal(turnedOff.shippingMethod, null);
    // It was the zone's only method: nothing reaches the address now, and the cart says that too.
    assert.deepEqual(
      turnedOff.notices.map((notice) => notice.code),
      ['shipping_method_unavailable', 'shipping_unavailable'],
    );
  });

  test('a code that stops being usable shows as a notice and no longer discounts', async () => {
    const store = await createTestStore(t);
    await t.admin(store).post('/discounts', { code: 'ONCE', kind: 'fixed', value: 500, usageLimit: 1 });
    const [mug] = await createVariants(t, store, [{ price: 3000 }]);
    const { id } = await cart(store, [{ variantId: mug!, quantity: 1 }]);
    assert.equal(
      (await t.storefront(store).put(`/carts/${id}/discount-code`, { code: 'once' })).statusCode,
      200,
    );
    // Someone else uses the code up.
    const { id: otherCart } = await cart(store, [{ variantId: mug!, quantity: 1 }]);
    const used = await t
      .storefront(store)
      .post(
        '/checkout',
        { cartId: otherCart, email: 'b@example.com', discountCode: 'ONCE' },
        { 'idempotency-key': randomUUID() },
      );
    assert.equal(used.statusCode, 201, used.body);
    const read = (await t.storefront(store).get(`/carts/${id}`)).json<PricedCart>();
    assert.equal(read.discountCode, 'ONCE');
    assert.equal(read.totals.discount.amount, 0);
    assert.deepEqual(
      read.notices.map((notice) => notice.code),
      ['discount_code_invalid'],
    );
  });
});

describe('checkout charges what the cart previews (decisions `cart-shipping-and-totals` and `checkout-with-shipping`)', () => {
  async function shippingStore() {
    const store = await createTestStore(t);
    const zone = (
      await t.admin(store).post('/shipping/zones', { name: 'US', areas: [{ country: 'US' }] })
    ).json<{ id: string }>().id;
    await t.admin(store).put('/tax-rates/US', { taxRateBps: 800, shippingAmount: 700 });
    const express = (
      await t
        .admin(store)
        .post(`/shipping/zones/${zone}/methods`, { name: 'Express', kind: 'flat', amount: 1500 })
    ).json<{ id: string }>().id;
    await t.admin(store).post('/discounts', { code: 'TAKE5', kind: 'fixed', value: 500 });
    const [mug] = await createVariants(t, store, [{ price: 3000, weightGrams: 400 }]);
    const { id } = await cart(store, [{ variantId: mug!, quantity: 2 }]);
    await t.storefront(store).put(`/carts/${id}/shipping-address`, CALIFORNIA);
    await t.storefront(store).put(`/carts/${id}/discount-code`, { code: 'TAKE5' });
    const previewed = await t.storefront(store).put(`/carts/${id}/shipping-method`, { id: express });
    assert.equal(previewed.statusCode, 200, previewed.body);
    return { store, zone, express, cartId: id, preview: previewed.json<PricedCart>() };
  }
  const checkout = (store: TestStore, body: object) =>
    t.storefront(store).post('/checkout', body, { 'idempotency-key': randomUUID() });
  interface Order {
    order: { country: string | null; total: { amount: number }; shipping: { amount: number } };
  }

  test('a checkout that sends only the cart and an email is charged the cart’s totals', async () => {
    const { store, cartId, preview } = await shippingStore();
    assert.deepEqual(amounts(preview), {
      subtotal: 6000,
      discount: 500,
      shipping: 1500,
      tax: 440,
      total: 7440,
    });
    const placed = await checkout(store, { cartId, email: 'ada@example.com' });
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<Order>().order;
    assert.equal(order.total.amount, preview.totals.total.amount);
    assert.equal(order.shipping.amount, 1500);
    assert.equal(order.country, 'US', 'the address’s country');
  });

  test('a method whose amount changed since the preview is charged its new amount; one turned off is 409', async () => {
    const first = await shippingStore();
    await t
      .admin(first.store)
      .patch(`/shipping/zones/${first.zone}/methods/${first.express}`, { amount: 1800 });
    const placed = await checkout(first.store, { cartId: first.cartId, email: 'ada@example.com' });
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json<Order>().order.shipping.amount, 1800);
    assert.equal(placed.json<Order>().order.total.amount, 7740);

    const second = await shippingStore();
    await t
      .admin(second.store)
      .patch(`/shipping/zones/${second.zone}/methods/${second.express}`, { active: false });
    const refused = await checkout(second.store, { cartId: second.cartId, email: 'ada@example.com' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json<{ title: string }>().title, 'shipping_method_unavailable');
  });

  test('a body country other than the address’s is 400; the body’s discount code overrides the cart’s', async () => {
    const { store, cartId } = await shippingStore();
    const other = await checkout(store, { cartId, email: 'ada@example.com', country: 'DE' });
    assert.equal(other.statusCode, 400);
    assert.deepEqual(
      other.json<{ errors: { pointer: string }[] }>().errors.map((error) => error.pointer),
      ['/country'],
    );
    const unknown = await checkout(store, { cartId, email: 'ada@example.com', discountCode: 'NOPE' });
    assert.equal(unknown.statusCode, 409);
    assert.equal(unknown.json<{ title: string }>().title, 'discount_invalid');
  });
});
