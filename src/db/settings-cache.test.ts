/**
 * The settings cache (decision `settings-cache`): tax rates and shipping zones are kept by the API
 * process, and a change is priced by the very next request (the tables' triggers notify before the
 * change's COMMIT returns).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { startTestAppWithStore, type TestApp, type TestStore } from '../test/harness.ts';
import { storeSetting, variantValues, watchStoreSettings } from './settings-cache.ts';
import type { Database } from './tables.ts';

let t: TestApp;
let shop: TestStore;

before(async () => ({ t, shop } = await startTestAppWithStore()));
after(() => t.close());

const ADDRESS = {
  name: 'Ada',
  line1: '1 Main St',
  city: 'Boston',
  region: 'US-MA',
  postalCode: '02108',
  country: 'US',
};

interface PricedCart {
  totals: Record<'shipping' | 'tax' | 'total', { amount: number }>;
}

describe('a change of the settings is priced by the next request', () => {
  test('a method’s amount, a new method, a tax rate and its removal show at once', async () => {
    const admin = t.admin(shop);
    const product = await admin.post('/products', {
      title: 'Mug',
      status: 'active',
      variants: [{ label: 'Blue', priceAmount: 1000, onHand: 10 }],
    });
    assert.equal(product.statusCode, 201, product.body);
    const variantId = product.json<{ variants: { id: string }[] }>().variants[0]!.id;
    const zone = await admin.post('/shipping/zones', { name: 'US', areas: [{ country: 'US' }] });
    assert.equal(zone.statusCode, 201, zone.body);
    const zoneId = zone.json<{ id: string }>().id;
    const method = await admin.post(`/shipping/zones/${zoneId}/methods`, {
      name: 'Ground',
      kind: 'flat',
      amount: 800,
    });
    assert.equal(method.statusCode, 201, method.body);
    const methodId = method.json<{ id: string }>().id;

    const shopper = t.storefront(shop);
    const cart = await shopper.post('/carts', { items: [{ variantId, quantity: 1 }] });
    assert.equal(cart.statusCode, 201, cart.body);
    const cartId = cart.json<{ id: string }>().id;
    assert.equal((await shopper.put(`/carts/${cartId}/shipping-address`, ADDRESS)).statusCode, 200);
    const options = async () => {
      const response = await shopper.get(`/carts/${cartId}/shipping-options`);
      assert.equal(response.statusCode, 200, response.body);
      return response
        .json<{ items: { name: string; amount: { amount: number } }[] }>()
        .items.map((item) => `${item.name} ${item.amount.amount}`);
    };
    const totals = async () => {
      const response = await shopper.get(`/carts/${cartId}`);
      assert.equal(response.statusCode, 200, response.body);
      const { shipping, tax, total } = response.json<PricedCart>().totals;
      return { shipping: shipping.amount, tax: tax.amount, total: total.amount };
    };
    assert.deepEqual(await options(), ['Ground 800']);
    assert.equal((await shopper.put(`/carts/${cartId}/shipping-method`, { id: methodId })).statusCode, 200);
    assert.deepEqual(await totals(), { shipping: 800, tax: 0, total: 1800 });

    // Each change, then the very next read (twice: the first read filled the cache).
    assert.equal(
      (await admin.patch(`/shipping/zones/${zoneId}/methods/${methodId}`, { amount: 950 })).statusCode,
      200,
    );
    assert.deepEqual(await options(), ['Ground 950']);
    assert.deepEqual(await totals(), { shipping: 950, tax: 0, total: 1950 });
    const express = await admin.post(`/shipping/zones/${zoneId}/methods`, {
      name: 'Express',
      kind: 'flat',
      amount: 2000,
    });
    assert.equal(express.statusCode, 201, express.body);
    assert.deepEqual(await options(), ['Ground 950', 'Express 2000']);

    assert.equal((await admin.put('/tax-rates/US', { taxRateBps: 1000 })).statusCode, 200);
    assert.equal((await totals()).tax, 100);
    assert.equal((await admin.put('/tax-rates/US-MA', { taxRateBps: 625 })).statusCode, 200);
    assert.equal((await totals()).tax, 63);
    assert.equal((await admin.delete('/tax-rates/US-MA')).statusCode, 204);
    assert.equal((await totals()).tax, 100);
    assert.equal((await admin.delete(`/shipping/zones/${zoneId}/methods/${methodId}`)).statusCode, 204);
    assert.deepEqual(await options(), ['Express 2000']);

    // The variant's price (kept for showing carts, dropped with the catalog) and its product.
    const subtotal = async () =>
      (await shopper.get(`/carts/${cartId}`)).json<{ subtotal: { amount: number } }>().subtotal.amount;
    assert.equal(await subtotal(), 1000);
    assert.equal((await admin.patch(`/variants/${variantId}`, { priceAmount: 1250 })).statusCode, 200);
    assert.equal(await subtotal(), 1250);
    const productId = product.json<{ id: string }>().id;
    assert.equal((await admin.patch(`/products/${productId}`, { status: 'draft' })).statusCode, 200);
    assert.equal(await subtotal(), 0);
  });
});

describe('a checkout priced from the variants its cart kept', () => {
  /** A variant's row changed without the read cache's notification (as if it were lost). */
  async function changeUnheard(variantId: string, change: { on_hand?: number; price_amount?: number }) {
    await t.db.kysely.transaction().execute(async (trx) => {
      await sql`SET LOCAL session_replication_role = replica`.execute(trx);
      await trx.updateTable('variants').set(change).where('id', '=', variantId).execute();
    });
  }

  async function cartOf(onHand: number) {
    const product = await t.admin(shop).post('/products', {
      title: 'Lamp',
      status: 'active',
      variants: [{ label: 'Brass', priceAmount: 1000, onHand }],
    });
    assert.equal(product.statusCode, 201, product.body);
    const variantId = product.json<{ variants: { id: string }[] }>().variants[0]!.id;
    const cart = await t.storefront(shop).post('/carts', { items: [{ variantId, quantity: 1 }] });
    assert.equal(cart.statusCode, 201, cart.body);
    return { variantId, cartId: cart.json<{ id: string }>().id };
  }

  const checkout = (cartId: string) =>
    t
      .storefront(shop)
      .post('/checkout', { cartId, email: 'kept@example.com' }, { 'idempotency-key': randomUUID() });

  test('no checkout is refused on a kept read: out of stock when the cart was made, restocked unheard', async () => {
    const { variantId, cartId } = await cartOf(0);
    await changeUnheard(variantId, { on_hand: 3 });
    const placed = await checkout(cartId);
    assert.equal(placed.statusCode, 201, placed.body);
  });

  test('a price changed unheard is charged as it is now, never as it was kept', async () => {
    const { variantId, cartId } = await cartOf(5);
    await changeUnheard(variantId, { price_amount: 1400 });
    const placed = await checkout(cartId);
    assert.equal(placed.statusCode, 201, placed.body);
    const { order } = placed.json<{ order: { subtotal: { amount: number } } }>();
    assert.equal(order.subtotal.amount, 1400);
  });
});

describe('storeSetting', () => {
  const STORE = '00000000-0000-4000-8000-000000000001';
  const OTHER = '00000000-0000-4000-8000-000000000002';

  /** A handle and its notification channel: `notify` plays the database's `storefront_read`. */
  function watchedHandle() {
    const handlers = new Set<(payload: string) => void>();
    const db = {} as Kysely<Database>;
    const unwatch = watchStoreSettings(db, (handler) => {
      handlers.add(handler);
      return () => handlers.delete(handler);
    });
    return { db, unwatch, notify: (payload: string) => handlers.forEach((handler) => handler(payload)) };
  }

  test('an unwatched handle loads every time', async () => {
    let loads = 0;
    const db = {} as Kysely<Database>;
    for (let i = 0; i < 3; i++) await storeSetting(db, STORE, 'x', async () => ++loads);
    assert.equal(loads, 3);
  });

  test('a watched handle keeps a value until its store’s catalog changes; stock changes keep it', async () => {
    const { db, notify, unwatch } = watchedHandle();
    let loads = 0;
    const read = () => storeSetting(db, STORE, 'x', async () => ++loads);
    assert.equal(await read(), 1);
    assert.equal(await read(), 1);
    notify(`s ${STORE} 00000000-0000-4000-8000-0000000000aa`);
    notify(`c ${OTHER}`);
    assert.equal(await read(), 1);
    notify(`c ${STORE}`);
    assert.equal(await read(), 2);
    unwatch();
    assert.equal(await read(), 3);
    assert.equal(await read(), 4);
  });

  test('a load under way when its store changes is answered but not kept', async () => {
    const { db, notify } = watchedHandle();
    let loads = 0;
    const stale = await storeSetting(db, STORE, 'x', async () => {
      loads += 1;
      notify(`c ${STORE}`);
      return 'old';
    });
    assert.equal(stale, 'old');
    assert.equal(await storeSetting(db, STORE, 'x', async () => `new ${++loads}`), 'new 2');
    assert.equal(await storeSetting(db, STORE, 'x', async () => `never ${++loads}`), 'new 2');
  });
});

describe('variantValues', () => {
  const STORE = '00000000-0000-4000-8000-000000000001';
  const P1 = '00000000-0000-4000-8000-0000000000a1';
  const P2 = '00000000-0000-4000-8000-0000000000a2';

  function watchedHandle() {
    const handlers = new Set<(payload: string) => void>();
    const db = {} as Kysely<Database>;
    watchStoreSettings(db, (handler) => {
      handlers.add(handler);
      return () => handlers.delete(handler);
    });
    return { db, notify: (payload: string) => handlers.forEach((handler) => handler(payload)) };
  }

  /** v1 and v2 are of product P1, v3 of P2; `reads` records what each load asked for. */
  function loader(reads: string[][], during?: () => void) {
    const products: Record<string, string> = { v1: P1, v2: P1, v3: P2 };
    return async (missing: readonly string[]) => {
      reads.push([...missing]);
      during?.();
      return new Map(
        missing
          .filter((key) => key in products)
          .map((key) => [key, { value: `${key}@${reads.length}`, product: products[key]! }]),
      );
    };
  }

  test('kept by key; a stock change drops only its product’s; a catalog change drops all; unknown keys are asked again', async () => {
    const { db, notify } = watchedHandle();
    const reads: string[][] = [];
    const get = (keys: string[]) => variantValues(db, STORE, keys, loader(reads));
    assert.deepEqual([...(await get(['v1', 'v3', 'nope'])).values()], ['v1@1', 'v3@1']);
    assert.deepEqual([...(await get(['v1', 'v3', 'nope'])).values()], ['v1@1', 'v3@1']);
    assert.deepEqual(reads, [['v1', 'v3', 'nope'], ['nope']]);
    notify(`s ${STORE} ${P1}`);
    assert.deepEqual(Object.fromEntries(await get(['v1', 'v2', 'v3'])), {
      v1: 'v1@3',
      v2: 'v2@3',
      v3: 'v3@1',
    });
    assert.deepEqual(reads.at(-1), ['v1', 'v2']);
    notify(`c ${STORE}`);
    assert.deepEqual(Object.fromEntries(await get(['v3'])), { v3: 'v3@4' });
  });

  test('a value whose product’s stock moved while it was read is answered but not kept; the others are', async () => {
    const { db, notify } = watchedHandle();
    const reads: string[][] = [];
    const moving = loader(reads, () => notify(`s ${STORE} ${P1}`));
    assert.deepEqual(Object.fromEntries(await variantValues(db, STORE, ['v1', 'v3'], moving)), {
      v1: 'v1@1',
      v3: 'v3@1',
    });
    await variantValues(db, STORE, ['v1', 'v3'], loader(reads));
    assert.deepEqual(reads, [['v1', 'v3'], ['v1']]);
  });

  test('a refresh reads every key afresh and keeps what it read for the reads after it', async () => {
    const { db } = watchedHandle();
    const reads: string[][] = [];
    const get = (keys: string[], refresh = false) => variantValues(db, STORE, keys, loader(reads), refresh);
    assert.deepEqual([...(await get(['v1', 'v3'])).values()], ['v1@1', 'v3@1']);
    assert.deepEqual([...(await get(['v1'], true)).values()], ['v1@2']);
    assert.deepEqual([...(await get(['v1', 'v3'])).values()], ['v1@2', 'v3@1']);
    assert.deepEqual(reads, [['v1', 'v3'], ['v1']]);
  });

  test('an unwatched handle loads every key every time', async () => {
    const reads: string[][] = [];
    const db = {} as Kysely<Database>;
    await variantValues(db, STORE, ['v1'], loader(reads));
    await variantValues(db, STORE, ['v1'], loader(reads));
    assert.deepEqual(reads, [['v1'], ['v1']]);
  });
});
