/**
 * The admin orders list by fulfilment status (`GET /admin/v1/orders?fulfillmentStatus=`): unfulfilled,
 * partial or fulfilled, as the order's fulfilments leave it (a cancelled one counts as not shipped);
 * combined with the status filter and the search; one store's orders only; a cursor bound to it.
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

const list = (shop: ShopDriver, query: Record<string, string>) => shop.listOrders(query);

/** The numbers of the orders a query lists (newest first). */
async function numbers(shop: ShopDriver, query: Record<string, string>): Promise<number[]> {
  return (await list(shop, query)).items.map((order) => order.number);
}

/** An order of two units of `variantId` by `email`, paid unless `pay` is false. */
async function place(shop: ShopDriver, variantId: string, email: string, pay = true): Promise<CheckoutBody> {
  const response = await shop.checkout({ cartId: await shop.cart([{ variantId, quantity: 2 }]), email });
  assert.equal(response.statusCode, 201, response.body);
  const body = response.json<CheckoutBody>();
  if (pay) {
    await shop.confirm(body);
    await shop.waitForStatus(body.order.id, 'paid');
  }
  return body;
}

/** Ships `quantity` units of the order; returns the fulfilment's id. */
async function ship(shop: ShopDriver, order: CheckoutBody, variantId: string, quantity: number) {
  const response = await shop.admin('POST', `/orders/${order.order.id}/fulfillments`, {
    lines: [{ variantId, quantity }],
    notifyCustomer: false,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

function pointers(response: { json<T>(): T }): string[] {
  return response.json<{ errors: { pointer: string }[] }>().errors.map((error) => error.pointer);
}

describe('GET /admin/v1/orders?fulfillmentStatus=', () => {
  let shop: ShopDriver;
  let other: ShopDriver;
  let waiting: CheckoutBody;
  let pending: CheckoutBody;
  let partial: CheckoutBody;
  let complete: CheckoutBody;
  let cancelled: CheckoutBody;
  let elsewhere: CheckoutBody;

  before(async () => {
    shop = await ShopDriver.open(t);
    const variantId = await shop.variant(20);
    waiting = await place(shop, variantId, 'ada@example.com');
    pending = await place(shop, variantId, 'grace@example.com', false);
    partial = await place(shop, variantId, 'ada@example.org');
    complete = await place(shop, variantId, 'linus@example.com');
    cancelled = await place(shop, variantId, 'ada.k@example.com');
    await ship(shop, partial, variantId, 1);
    await ship(shop, complete, variantId, 1);
    await ship(shop, complete, variantId, 1);
    // Shipped in full, then the parcel cancelled: nothing counts as shipped again.
    const mistake = await ship(shop, cancelled, variantId, 2);
    const undone = await shop.admin('POST', `/orders/${cancelled.order.id}/fulfillments/${mistake}/cancel`);
    assert.equal(undone.statusCode, 200, undone.body);
    // Another store: a partly shipped order with the same number as `waiting`.
    other = await ShopDriver.open(t);
    const otherVariant = await other.variant(5);
    elsewhere = await place(other, otherVariant, 'ada@example.com');
    await ship(other, elsewhere, otherVariant, 1);
  });

  test('each fulfilment status lists its orders, newest first, and says it on each', async () => {
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'unfulfilled' }), [
      cancelled.order.number,
      pending.order.number,
      waiting.order.number,
    ]);
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'partial' }), [partial.order.number]);
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'fulfilled' }), [complete.order.number]);
    for (const fulfillmentStatus of ['unfulfilled', 'partial', 'fulfilled']) {
      const { items } = await list(shop, { fulfillmentStatus });
      assert.ok(items.every((order) => order.fulfillmentStatus === fulfillmentStatus));
    }
    // No filter: every order.
    assert.equal((await list(shop, {})).items.length, 5);
  });

  test('one store only', async () => {
    assert.equal(waiting.order.number, elsewhere.order.number, 'both stores count from the same number');
    const found = (await list(other, { fulfillmentStatus: 'partial' })).items;
    assert.deepEqual(
      found.map((order) => order.id),
      [elsewhere.order.id],
    );
    assert.deepEqual(await numbers(other, { fulfillmentStatus: 'unfulfilled' }), []);
  });

  test('with the status filter and the search', async () => {
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'unfulfilled', status: 'paid' }), [
      cancelled.order.number,
      waiting.order.number,
    ]);
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'unfulfilled', status: 'pending' }), [
      pending.order.number,
    ]);
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'fulfilled', status: 'pending' }), []);
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'unfulfilled', q: 'ada' }), [
      cancelled.order.number,
      waiting.order.number,
    ]);
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'partial', q: 'ada@' }), [
      partial.order.number,
    ]);
    assert.deepEqual(
      await numbers(shop, { fulfillmentStatus: 'partial', q: `#${complete.order.number}` }),
      [],
    );
    assert.deepEqual(await numbers(shop, { fulfillmentStatus: 'fulfilled', status: 'paid', q: 'linus' }), [
      complete.order.number,
    ]);
  });

  test('through cursor pages; a cursor belongs to its fulfilment filter', async () => {
    assert.deepEqual(await shop.orderNumbersPaged({ fulfillmentStatus: 'unfulfilled' }, 1), [
      cancelled.order.number,
      pending.order.number,
      waiting.order.number,
    ]);

    const first = await list(shop, { fulfillmentStatus: 'unfulfilled', limit: '1' });
    for (const query of [
      'fulfillmentStatus=partial',
      '',
      'status=paid',
      'fulfillmentStatus=unfulfilled&q=ada',
    ]) {
      const reused = await shop.admin('GET', `/orders?${query}&limit=1&cursor=${first.nextCursor!}`);
      assert.equal(reused.statusCode, 400, `${query}: ${reused.body}`);
      assert.deepEqual(pointers(reused), ['/cursor']);
    }
    // And a cursor of the whole list is not one of a filtered list.
    const unfiltered = await list(shop, { limit: '1' });
    const reused = await shop.admin(
      'GET',
      `/orders?fulfillmentStatus=unfulfilled&limit=1&cursor=${unfiltered.nextCursor!}`,
    );
    assert.equal(reused.statusCode, 400, reused.body);
  });

  test('another value is 400 at /fulfillmentStatus', async () => {
    const response = await shop.admin('GET', '/orders?fulfillmentStatus=shipped');
    assert.equal(response.statusCode, 400);
    assert.deepEqual(new Set(pointers(response)), new Set(['/fulfillmentStatus']));
  });
});
