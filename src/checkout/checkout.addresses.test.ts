/**
 * Checkout with shipping (decisions `shipping-zones-and-methods` and `checkout-with-shipping`): addresses, method and phone on the order; the store's
 * `requireShippingAddress`; an address no method reaches; the method of a checkout that names
 * none; tax by region; the legacy per-country `shippingAmount` as the country's default method.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import { createVariants } from '../test/catalog.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const BOSTON = {
  name: 'Ada King Lovelace',
  company: 'Analytical Engines',
  line1: '1 Main St',
  line2: 'Suite 4',
  city: 'Boston',
  region: 'MA',
  postalCode: '02108',
  country: 'US',
  phone: '+1 617 555 0142',
};
const CUPERTINO = {
  name: 'Grace Hopper',
  line1: '1 Infinite Loop',
  city: 'Cupertino',
  region: 'US-CA',
  postalCode: '95014',
  country: 'US',
};
const BERLIN = {
  name: 'Max Muster',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};

interface Method {
  id: string;
  countryDefault: string | null;
  amount: number | null;
}
interface Zone {
  id: string;
  name: string;
  areas: { country: string }[];
  methods: Method[];
}
interface Order {
  id: string;
  country: string | null;
  email: string;
  shipping: { amount: number };
  tax: { amount: number };
  total: { amount: number };
  shippingAddress: Record<string, string | null> | null;
  billingAddress: Record<string, string | null> | null;
  shippingMethod: {
    id: string;
    name: string;
    minDeliveryDays: number | null;
    maxDeliveryDays: number | null;
  } | null;
  phone: string | null;
}

async function newCart(store: TestStore, variantId: string, quantity = 1): Promise<string> {
  const response = await t.storefront(store).post('/carts', { items: [{ variantId, quantity }] });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

const checkout = (store: TestStore, body: object) =>
  t.storefront(store).post('/checkout', body, { 'idempotency-key': randomUUID() });

async function zone(store: TestStore, body: object): Promise<string> {
  const response = await t.admin(store).post('/shipping/zones', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

async function method(store: TestStore, zoneId: string, body: object): Promise<string> {
  const response = await t.admin(store).post(`/shipping/zones/${zoneId}/methods`, body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

/** A store shipping in the US (Ground $8, Express $15, pickup free) and nowhere else. */
async function usStore() {
  const store = await createTestStore(t);
  const us = await zone(store, { name: 'US', areas: [{ country: 'US' }] });
  const ground = await method(store, us, {
    name: 'Ground',
    kind: 'flat',
    amount: 800,
    minDeliveryDays: 3,
    maxDeliveryDays: 5,
  });
  const express = await method(store, us, { name: 'Express', kind: 'flat', amount: 1500 });
  const pickup = await method(store, us, { name: 'Pickup', kind: 'pickup', amount: 0 });
  const [mug] = await createVariants(t, store, [{ price: 2000, weightGrams: 300 }]);
  return { store, us, ground, express, pickup, mug: mug! };
}

describe('the order keeps its addresses, method and phone (decision `checkout-with-shipping`)', () => {
  test('the checkout body’s addresses, method and phone are on the order; the buyer’s view masks them', async () => {
    const { store, express, mug } = await usStore();
    const cartId = await newCart(store, mug);
    const placed = await checkout(store, {
      cartId,
      email: 'ada@example.com',
      shippingAddress: BOSTON,
      billingAddress: CUPERTINO,
      shippingMethodId: express,
      phone: ' +1 (617) 555-0100 ',
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<{ order: Order }>().order;
    assert.equal(order.country, 'US');
    assert.equal(order.shipping.amount, 1500);
    assert.deepEqual(order.shippingAddress, { ...BOSTON, region: 'US-MA' });
    assert.deepEqual(order.billingAddress, { ...CUPERTINO, company: null, line2: null, phone: null });
    assert.deepEqual(order.shippingMethod, {
      id: express,
      name: 'Express',
      minDeliveryDays: null,
      maxDeliveryDays: null,
    });
    assert.equal(order.phone, '+1 (617) 555-0100');

    const admin = (await t.admin(store).get(`/orders/${order.id}`)).json<Order>();
    assert.deepEqual(
      [admin.shippingAddress, admin.billingAddress, admin.shippingMethod, admin.phone],
      [order.shippingAddress, order.billingAddress, order.shippingMethod, order.phone],
    );

    const buyer = await t.storefront(store).get(`/orders/${order.id}`);
    assert.equal(buyer.statusCode, 200, buyer.body);
    const view = buyer.json<Order>();
    assert.deepEqual(view.shippingAddress, {
      name: 'Ada L.',
      company: '•••',
      line1: '1•••',
      line2: '•••',
      city: 'Boston',
      region: 'US-MA',
      postalCode: '02108',
      country: 'US',
      phone: '•••42',
    });
    assert.equal(view.phone, '•••00');
    assert.deepEqual(view.shippingMethod, order.shippingMethod);
    for (const secret of ['Lovelace', 'Main St', 'Analytical', '555 0142', '555-0100'])
      assert.ok(!buyer.body.includes(secret), `the buyer's view must not show ${secret}`);
  });

  test('the cart’s address and method are the order’s when the body names none', async () => {
    const { store, ground, mug } = await usStore();
    const cartId = await newCart(store, mug, 2);
    assert.equal(
      (await t.storefront(store).put(`/carts/${cartId}/shipping-address`, CUPERTINO)).statusCode,
      200,
    );
    const chosen = await t.storefront(store).put(`/carts/${cartId}/shipping-method`, { id: ground });
    assert.equal(chosen.statusCode, 200, chosen.body);
    const preview = chosen.json<{ totals: { total: { amount: number } } }>().totals.total.amount;
    const placed = await checkout(store, { cartId, email: 'grace@example.com' });
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<{ order: Order }>().order;
    assert.equal(order.total.amount, preview);
    assert.equal(order.shippingAddress?.city, 'Cupertino');
    assert.equal(order.shippingMethod?.id, ground);
    assert.equal(order.billingAddress, null);
    assert.equal(order.phone, null);
  });

  test('a bad field of either address points at it; a bad phone at /phone; nothing is written', async () => {
    const { store, mug } = await usStore();
    const cartId = await newCart(store, mug);
    const bad = await checkout(store, {
      cartId,
      email: 'ada@example.com',
      shippingAddress: { ...BOSTON, postalCode: '90210' },
      billingAddress: { ...BERLIN, postalCode: '1011' },
      phone: 'call me',
    });
    assert.equal(bad.statusCode, 400, bad.body);
    const pointers = bad.json<{ errors: { pointer: string }[] }>().errors.map((error) => error.pointer);
    assert.deepEqual(pointers.sort(), [
      '/billingAddress/postalCode',
      '/phone',
      '/shippingAddress/postalCode',
    ]);
    // The cart is still open: the same cart checks out with good input.
    const good = await checkout(store, { cartId, email: 'ada@example.com', shippingAddress: BOSTON });
    assert.equal(good.statusCode, 201, good.body);
  });

  test('a country that is not the address’s is 400 at /country', async () => {
    const { store, mug } = await usStore();
    const response = await checkout(store, {
      cartId: await newCart(store, mug),
      email: 'ada@example.com',
      country: 'DE',
      shippingAddress: BOSTON,
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/country');
  });
});

describe('the confirmation mail (decision `checkout-with-shipping`)', () => {
  test('shows the method with its estimate and the address as the country writes it', async () => {
    const shop = await ShopDriver.open(t);
    const us = await zone(shop.shop, { name: 'US', areas: [{ country: 'US' }] });
    const ground = await method(shop.shop, us, {
      name: 'Ground',
      kind: 'flat',
      amount: 800,
      minDeliveryDays: 3,
      maxDeliveryDays: 5,
    });
    const placed = await shop.checkout({
      cartId: await shop.cart([{ variantId: await shop.variant(5), quantity: 1 }]),
      email: 'ada@example.com',
      shippingAddress: BOSTON,
      shippingMethodId: ground,
    });
    assert.equal(placed.statusCode, 201, placed.body);
    await shop.confirm(placed.json<CheckoutBody>());
    const mail = await waitFor(() =>
      t.db.kysely
        .selectFrom('mail_outbox')
        .select('text_body')
        .where('store_id', '=', shop.storeId)
        .where('kind', '=', 'order_confirmation')
        .executeTakeFirst(),
    );
    assert.match(mail.text_body, /Shipping method: Ground \(3–5 days\)/);
    assert.match(
      mail.text_body,
      /Ships to:\n {2}Ada King Lovelace\n {2}Analytical Engines\n {2}1 Main St\n {2}Suite 4\n {2}Boston, MA 02108\n {2}United States/,
    );
  });
});

describe('requireShippingAddress (decision `checkout-with-shipping`)', () => {
  test('off (every store made before zones): a checkout with only a country works; on: address and method are required', async () => {
    const { store, ground, mug } = await usStore();
    const settings = await t.admin(store).get('/settings');
    assert.equal(settings.json<{ requireShippingAddress: boolean }>().requireShippingAddress, false);
    const specEra = await checkout(store, {
      cartId: await newCart(store, mug),
      email: 'a@example.com',
      country: 'US',
    });
    assert.equal(specEra.statusCode, 201, specEra.body);

    const on = await t.admin(store).put('/settings', { requireShippingAddress: true });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(on.json<{ requireShippingAddress: boolean }>().requireShippingAddress, true);

    const cartId = await newCart(store, mug);
    const noAddress = await checkout(store, { cartId, email: 'a@example.com', country: 'US' });
    assert.equal(noAddress.statusCode, 400, noAddress.body);
    assert.equal(noAddress.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/shippingAddress');
    const noMethod = await checkout(store, { cartId, email: 'a@example.com', shippingAddress: BOSTON });
    assert.equal(noMethod.statusCode, 400, noMethod.body);
    assert.equal(noMethod.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/shippingMethodId');
    const both = await checkout(store, {
      cartId,
      email: 'a@example.com',
      shippingAddress: BOSTON,
      shippingMethodId: ground,
    });
    assert.equal(both.statusCode, 201, both.body);
    assert.equal(both.json<{ order: Order }>().order.shipping.amount, 800);
  });

  test('on, a cart of nothing to ship (a gift card) needs no address', async () => {
    const store = await createTestStore(t);
    await t.admin(store).put('/settings', { requireShippingAddress: true });
    const [card] = await createVariants(t, store, [{ price: 5000, requiresShipping: false }]);
    const placed = await checkout(store, { cartId: await newCart(store, card!), email: 'a@example.com' });
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json<{ order: Order }>().order.shipping.amount, 0);
    assert.equal(placed.json<{ order: Order }>().order.shippingMethod, null);
  });
});

describe('where the store ships (decisions `shipping-zones-and-methods` and `checkout-with-shipping`)', () => {
  test('an address no method reaches is 409 shipping_unavailable; a method of another zone is 409 shipping_method_unavailable', async () => {
    const { store, mug } = await usStore();
    const europe = await zone(store, { name: 'Europe', areas: [{ country: 'FR' }] });
    const paris = await method(store, europe, { name: 'Colissimo', kind: 'flat', amount: 900 });
    const outside = await checkout(store, {
      cartId: await newCart(store, mug),
      email: 'a@example.com',
      shippingAddress: BERLIN,
    });
    assert.equal(outside.statusCode, 409, outside.body);
    assert.equal(outside.json<{ title: string }>().title, 'shipping_unavailable');
    const wrongZone = await checkout(store, {
      cartId: await newCart(store, mug),
      email: 'a@example.com',
      shippingAddress: BOSTON,
      shippingMethodId: paris,
    });
    assert.equal(wrongZone.statusCode, 409, wrongZone.body);
    assert.equal(wrongZone.json<{ title: string }>().title, 'shipping_method_unavailable');
  });

  test('a checkout that names no method is charged the cheapest that is not a pickup; a store without zones charges none', async () => {
    const { store, mug } = await usStore();
    const placed = await checkout(store, {
      cartId: await newCart(store, mug),
      email: 'a@example.com',
      shippingAddress: BOSTON,
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json<{ order: Order }>().order;
    assert.deepEqual([order.shipping.amount, order.shippingMethod?.name], [800, 'Ground']);

    const bare = await createTestStore(t);
    const [thing] = await createVariants(t, bare, [{ price: 1000 }]);
    const free = await checkout(bare, {
      cartId: await newCart(bare, thing!),
      email: 'a@example.com',
      shippingAddress: BERLIN,
    });
    assert.equal(free.statusCode, 201, free.body);
    assert.equal(free.json<{ order: Order }>().order.shipping.amount, 0);
  });

  test('free_over compares with the goods after the discount, in the preview and at checkout alike', async () => {
    const store = await createTestStore(t);
    const us = await zone(store, { name: 'US', areas: [{ country: 'US' }] });
    const free = await method(store, us, {
      name: 'Free over $50',
      kind: 'free_over',
      amount: 700,
      freeOverAmount: 5000,
    });
    await t.admin(store).post('/discounts', { code: 'TENOFF', kind: 'fixed', value: 1000 });
    const [thing] = await createVariants(t, store, [{ price: 5500 }]);
    const cartId = await newCart(store, thing!);
    await t.storefront(store).put(`/carts/${cartId}/shipping-address`, BOSTON);
    const full = await t.storefront(store).put(`/carts/${cartId}/shipping-method`, { id: free });
    assert.equal(
      full.json<{ totals: { shipping: { amount: number } } }>().totals.shipping.amount,
      0,
      '$55 ships free',
    );
    const coded = await t.storefront(store).put(`/carts/${cartId}/discount-code`, { code: 'TENOFF' });
    const preview = coded.json<{ totals: { shipping: { amount: number }; total: { amount: number } } }>()
      .totals;
    assert.deepEqual(
      [preview.shipping.amount, preview.total.amount],
      [700, 5200],
      '$45 after the code does not',
    );
    const placed = await checkout(store, { cartId, email: 'a@example.com' });
    assert.equal(placed.statusCode, 201, placed.body);
    assert.deepEqual(
      [
        placed.json<{ order: Order }>().order.shipping.amount,
        placed.json<{ order: Order }>().order.total.amount,
      ],
      [700, 5200],
    );
  });

  test('tax uses the address’s region where the store has a rate for it, else the country’s', async () => {
    const { store, ground, mug } = await usStore();
    assert.equal((await t.admin(store).put('/tax-rates/US', { taxRateBps: 500 })).statusCode, 200);
    const region = await t.admin(store).put('/tax-rates/us-ca', { taxRateBps: 725 });
    assert.equal(region.statusCode, 200, region.body);
    assert.deepEqual(region.json<{ country: string; shippingAmount: number }>(), {
      ...region.json<object>(),
      country: 'US-CA',
      shippingAmount: 0,
    });
    const charged = async (address: object) => {
      const placed = await checkout(store, {
        cartId: await newCart(store, mug),
        email: 'a@example.com',
        shippingAddress: address,
        shippingMethodId: ground,
      });
      assert.equal(placed.statusCode, 201, placed.body);
      return placed.json<{ order: Order }>().order.tax.amount;
    };
    assert.equal(await charged(CUPERTINO), 145); // 7.25 % of 2000
    assert.equal(await charged(BOSTON), 100); // 5 % of 2000
    // A spec-era checkout (a country, no address) pays the country's rate.
    const specEra = await checkout(store, {
      cartId: await newCart(store, mug),
      email: 'a@example.com',
      country: 'US',
    });
    assert.equal(specEra.json<{ order: Order }>().order.tax.amount, 100);

    for (const [path, body, pointer] of [
      ['/tax-rates/US-ZZ', { taxRateBps: 100 }, '/country'],
      ['/tax-rates/DE-BE', { taxRateBps: 100 }, '/country'],
      ['/tax-rates/US-NY', { taxRateBps: 100, shippingAmount: 500 }, '/shippingAmount'],
    ] as const) {
      const refused = await t.admin(store).put(path, body);
      assert.equal(refused.statusCode, 400, `${path}: ${refused.body}`);
      assert.equal(refused.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, pointer, path);
    }
  });
});

describe('the legacy per-country shippingAmount is the country’s default method (decision `legacy-shipping-amount-is-a-method`)', () => {
  test('it is a flat method of the country’s zone; a checkout that names no method is charged it, not the cheapest', async () => {
    const store = await createTestStore(t);
    const set = await t.admin(store).put('/tax-rates/de', { taxRateBps: 1900, shippingAmount: 495 });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json<{ shippingAmount: number }>().shippingAmount, 495);
    const zones = (await t.admin(store).get('/shipping/zones')).json<{ items: Zone[] }>().items;
    assert.equal(zones.length, 1);
    assert.deepEqual([zones[0]!.name, zones[0]!.areas[0]!.country], ['Germany', 'DE']);
    const standard = zones[0]!.methods[0]!;
    assert.deepEqual([standard.amount, standard.countryDefault], [495, 'DE']);

    // A cheaper method beside it does not change what a spec-era checkout is charged.
    await method(store, zones[0]!.id, { name: 'Slow boat', kind: 'flat', amount: 100 });
    const [thing] = await createVariants(t, store, [{ price: 1000 }]);
    const specEra = await checkout(store, {
      cartId: await newCart(store, thing!),
      email: 'a@example.com',
      country: 'DE',
    });
    assert.equal(specEra.statusCode, 201, specEra.body);
    assert.deepEqual(
      [
        specEra.json<{ order: Order }>().order.shipping.amount,
        specEra.json<{ order: Order }>().order.tax.amount,
      ],
      [495, 190],
    );

    // Setting it again changes the method; the method's own amount reads back as the legacy field.
    await t.admin(store).put('/tax-rates/DE', { taxRateBps: 1900, shippingAmount: 650 });
    await t.admin(store).patch(`/shipping/zones/${zones[0]!.id}/methods/${standard.id}`, { amount: 700 });
    const rates = (await t.admin(store).get('/tax-rates')).json<{
      items: { country: string; shippingAmount: number }[];
    }>();
    assert.deepEqual(
      rates.items.map((rate) => [rate.country, rate.shippingAmount]),
      [['DE', 700]],
    );
    // Leaving shippingAmount out keeps the country's shipping.
    await t.admin(store).put('/tax-rates/DE', { taxRateBps: 700 });
    const kept = (await t.admin(store).get('/tax-rates')).json<{ items: { shippingAmount: number }[] }>();
    assert.equal(kept.items[0]!.shippingAmount, 700);

    // Deleting the rate takes its shipping with it, as it always did: the cheapest is charged now.
    assert.equal((await t.admin(store).delete('/tax-rates/DE')).statusCode, 204);
    const after = await checkout(store, {
      cartId: await newCart(store, thing!),
      email: 'a@example.com',
      country: 'DE',
    });
    assert.deepEqual(
      [after.json<{ order: Order }>().order.shipping.amount, after.json<{ order: Order }>().order.tax.amount],
      [100, 0],
    );
  });
});
