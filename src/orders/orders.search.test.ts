/**
 * Searching the admin orders list (`GET /admin/v1/orders?q=`): by number (`1042`, `#1042`), by the
 * start of the email (with an `@`), or by part of the shipping address's name or of the email;
 * case-insensitive, one store's orders only, with the status filter and cursor pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../test/harness.ts';
import { ShopDriver, type CheckoutBody } from './orders.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const ADA = {
  name: 'Ada King Lovelace',
  line1: '1 Main St',
  city: 'Boston',
  region: 'MA',
  postalCode: '02108',
  country: 'US',
};
const GRACE = {
  name: 'Grace Hopper',
  line1: '1 Infinite Loop',
  city: 'Cupertino',
  region: 'CA',
  postalCode: '95014',
  country: 'US',
};

/** An order of one unit, by `email`, shipped to `address` when given. */
async function place(shop: ShopDriver, variantId: string, email: string, address?: object) {
  const response = await shop.checkout({
    cartId: await shop.cart([{ variantId, quantity: 1 }]),
    email,
    ...(address ? { shippingAddress: address } : {}),
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<CheckoutBody>();
}

const search = (shop: ShopDriver, query: Record<string, string>) => shop.listOrders(query);

/** The numbers of the orders a search finds (newest first). */
async function numbers(shop: ShopDriver, q: string, more: Record<string, string> = {}): Promise<number[]> {
  return (await search(shop, { q, ...more })).items.map((order) => order.number);
}

describe('GET /admin/v1/orders?q=', () => {
  let shop: ShopDriver;
  let other: ShopDriver;
  let ada: CheckoutBody;
  let grace: CheckoutBody;
  let upper: CheckoutBody;
  let fan: CheckoutBody;
  let elsewhere: CheckoutBody;

  before(async () => {
    shop = await ShopDriver.open(t);
    const variantId = await shop.variant(20);
    ada = await place(shop, variantId, 'ada.lovelace@example.com', ADA);
    grace = await place(shop, variantId, 'grace@navy.example', GRACE);
    upper = await place(shop, variantId, 'BUYER@Example.COM');
    fan = await place(shop, variantId, 'lovelace_fan@example.org');
    // Another store: the same email and name, and (numbers are per store) the same numbers.
    other = await ShopDriver.open(t);
    elsewhere = await place(other, await other.variant(5), 'ada.lovelace@example.com', ADA);
  });

  test('digits, with or without #, find the order with that number, and only it', async () => {
    assert.equal(ada.order.number, elsewhere.order.number, 'both stores count from the same number');
    assert.deepEqual(await numbers(shop, String(grace.order.number)), [grace.order.number]);
    assert.deepEqual(await numbers(shop, `#${ada.order.number}`), [ada.order.number]);
    const [found] = (await search(shop, { q: `#${ada.order.number}` })).items;
    assert.equal(found?.id, ada.order.id, "this store's order, not the other's");
    assert.deepEqual(await numbers(shop, String(fan.order.number + 1)), []);
    // A number no order can have is no match, not an error.
    assert.deepEqual(await numbers(shop, '99999999999999999999999'), []);
    assert.deepEqual(await numbers(shop, '99999999999'), [], 'beyond an integer, no order and no error');
    assert.deepEqual(await numbers(shop, '#0'), []);
  });

  test('with an @: the start of the email, case-insensitive', async () => {
    assert.deepEqual(await numbers(shop, 'ADA.Lovelace@'), [ada.order.number]);
    assert.deepEqual(await numbers(shop, 'buyer@example.com'), [upper.order.number]);
    assert.deepEqual(await numbers(shop, 'grace@navy'), [grace.order.number]);
    // The start only: a domain alone matches nothing.
    assert.deepEqual(await numbers(shop, '@example.com'), []);
  });

  test("otherwise: part of the shipping address's name or of the email, case-insensitive, newest first", async () => {
    assert.deepEqual(await numbers(shop, 'lovelace'), [fan.order.number, ada.order.number]);
    assert.deepEqual(await numbers(shop, 'HOPPER'), [grace.order.number], 'by the name alone');
    assert.deepEqual(await numbers(shop, 'king love'), [ada.order.number]);
    assert.deepEqual(await numbers(shop, 'navy'), [grace.order.number], 'by the email alone');
    assert.deepEqual(await numbers(shop, 'nobody'), []);
    // `%` and `_` are characters, not patterns.
    assert.deepEqual(await numbers(shop, '%'), []);
    assert.deepEqual(await numbers(shop, '_'), [fan.order.number]);
    // A blank search is no search.
    assert.equal((await search(shop, { q: '  ' })).items.length, 4);
  });

  test('one store only: the other store finds its own order', async () => {
    const found = (await search(other, { q: 'lovelace' })).items;
    assert.deepEqual(
      found.map((order) => order.id),
      [elsewhere.order.id],
    );
  });

  test('with the status filter and through cursor pages', async () => {
    const paidShop = await ShopDriver.open(t);
    const variantId = await paidShop.variant(20);
    const placed: CheckoutBody[] = [];
    for (let i = 0; i < 5; i++) {
      placed.push(await place(paidShop, variantId, `buyer${i}@example.com`, i === 4 ? undefined : ADA));
    }
    await place(paidShop, variantId, 'someone@else.example', GRACE);
    for (const order of [placed[1]!, placed[3]!]) {
      await paidShop.confirm(order);
      await paidShop.waitForStatus(order.order.id, 'paid');
    }
    const number = (i: number) => placed[i]!.order.number;

    assert.deepEqual(await numbers(paidShop, 'lovelace', { status: 'paid' }), [number(3), number(1)]);
    assert.deepEqual(await numbers(paidShop, 'lovelace', { status: 'pending' }), [number(2), number(0)]);
    assert.deepEqual(await numbers(paidShop, `#${number(1)}`, { status: 'pending' }), []);
    assert.deepEqual(await numbers(paidShop, 'buyer4@', { status: 'pending' }), [number(4)]);

    // Two at a time: every match once, newest first, and no other order.
    assert.deepEqual(await paidShop.orderNumbersPaged({ q: 'example.com' }, 2), [4, 3, 2, 1, 0].map(number));

    // A cursor belongs to its search: with another search it is refused.
    const first = await search(paidShop, { q: 'example.com', limit: '2' });
    const reused = await paidShop.admin('GET', `/orders?q=lovelace&limit=2&cursor=${first.nextCursor!}`);
    assert.equal(reused.statusCode, 400);
    assert.deepEqual(
      reused.json<{ errors: { pointer: string }[] }>().errors.map((error) => error.pointer),
      ['/cursor'],
    );
  });

  test('a search longer than 200 characters is 400 at /q', async () => {
    const response = await shop.admin('GET', `/orders?q=${'x'.repeat(201)}`);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response.json<{ errors: { pointer: string }[] }>().errors.map((error) => error.pointer),
      ['/q'],
    );
  });
});
