/**
 * Erasure (decision `erasure-is-immediate`, docs/customers.md): after it no table holds any of the
 * customer (the dump of every table is searched for their name, email, phone, street and the staff's
 * notes about them), while their orders keep numbers, lines and amounts; who may erase whom.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import { createTestStore, startTestAppWithDb, type TestApp, type TestDb } from '../test/harness.ts';
import { dump, me, mentions, richCustomer, signIn } from './privacy.test-support.ts';

let db: TestDb;
let t: TestApp;
before(async () => ({ db, t } = await startTestAppWithDb({ workers: true })));
after(() => t.close());

describe('erasure (decision `erasure-is-immediate`)', () => {
  test('staff erasure leaves none of the customer anywhere; orders keep numbers, lines and amounts; the accounts add up', async () => {
    const driver = await ShopDriver.open(t);
    const { markers, session, orders, totals, guest } = await richCustomer(t, db, driver);
    const list = await driver.admin('GET', `/customers?q=${encodeURIComponent(markers.email)}`);
    const customer = list.json<{
      items: { id: string; ordersCount: number; totalSpent: { amount: number } }[];
    }>().items[0]!;
    const revenueBefore = (await driver.admin('GET', '/overview')).body;
    const before = await Promise.all(orders.map((id) => driver.adminOrder(id)));

    const erased = await driver.admin('DELETE', `/customers/${customer.id}`);
    assert.equal(erased.statusCode, 204, erased.body);

    const left = mentions(await dump(db), markers);
    assert.deepEqual([...left.entries()], [], 'no trace of the customer in any table');
    // The gift cards stay (their money is owed), nobody's now; the one bought still names its order.
    const cards = await db.kysely
      .selectFrom('gift_cards')
      .select(['customer_id', 'order_id'])
      .where('store_id', '=', driver.storeId)
      .orderBy('initial_amount')
      .execute();
    assert.deepEqual(cards, [
      { customer_id: null, order_id: null },
      { customer_id: null, order_id: orders[2]! },
    ]);

    // Orders: the same numbers, lines, amounts, payments and statuses; no email, address or phone.
    for (const [index, id] of orders.entries()) {
      const order = (await driver.adminOrder(id)) as Record<string, unknown>;
      const was = before[index] as Record<string, unknown>;
      for (const field of [
        'number',
        'status',
        'lines',
        'subtotal',
        'total',
        'refunded',
        'payments',
        'fulfillmentStatus',
      ])
        assert.deepEqual(order[field], was[field], `${field} of order ${index}`);
      assert.equal(order.email, 'erased@erased.invalid');
      assert.equal(order.shippingAddress, null);
      assert.equal(order.billingAddress, null);
      assert.equal(order.phone, null);
      assert.equal(order.customerId, null);
      assert.equal(order.cancelReason, null);
      assert.ok(order.erasedAt);
      const buyer = await driver.order(id);
      assert.equal((buyer as unknown as { number: number }).number, was.number);
    }
    assert.equal(
      (await driver.admin('GET', '/overview')).body,
      revenueBefore,
      'the overview adds up as before',
    );
    assert.equal(totals.length, 2);

    // Admin and storefront reads.
    assert.equal((await driver.admin('GET', `/customers/${customer.id}`)).statusCode, 404);
    assert.equal((await driver.admin('GET', `/customers/${customer.id}/export`)).statusCode, 404);
    const search = await driver.admin('GET', `/customers?q=${encodeURIComponent(markers.email)}`);
    assert.deepEqual(search.json<{ items: unknown[] }>().items, []);
    const byName = await driver.admin('GET', `/customers?q=${encodeURIComponent(markers.name)}`);
    assert.deepEqual(byName.json<{ items: unknown[] }>().items, []);
    const orderSearch = await driver.admin('GET', `/orders?q=${encodeURIComponent(markers.email)}`);
    assert.deepEqual(orderSearch.json<{ items: unknown[] }>().items, []);
    assert.equal((await me(t, driver.shop, session.token).call('GET', '')).statusCode, 401);

    // Events: customer.deleted carries the id alone.
    const deleted = await driver.events('customer.deleted');
    assert.deepEqual(deleted, [{ storeId: driver.storeId, customerId: customer.id }]);
    // The privacy log: who exported or erased whom.
    const log = await driver.admin('GET', '/privacy-log');
    assert.equal(log.statusCode, 200, log.body);
    assert.deepEqual(
      log
        .json<{ items: { action: string; customerId: string; actor: string; staffEmail: string }[] }>()
        .items.map((entry) => [entry.action, entry.customerId, entry.actor, entry.staffEmail]),
      [['erase', customer.id, 'staff', driver.shop.ownerEmail]],
    );

    // No mail goes to the erased buyer any more: their pending order, paid now, confirms to no one.
    await driver.confirm(guest);
    await driver.waitForStatus(guest.order.id, 'paid');
    const toErased = await db.kysely
      .selectFrom('mail_outbox')
      .select('id')
      .where('store_id', '=', driver.storeId)
      .where('to_address', '=', 'erased@erased.invalid')
      .execute();
    assert.deepEqual(toErased, []);
  });

  test("self-erasure from the shop: the token dies, the orders are scrubbed, the log says 'customer'", async () => {
    const driver = await ShopDriver.open(t);
    const email = `self-${randomUUID().slice(0, 8)}@example.com`;
    const session = await signIn(t, driver.shop, email);
    const variantId = await driver.variant(5);
    const placed = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkout',
      headers: {
        'x-publishable-key': driver.shop.publishableKey,
        authorization: `Bearer ${session.token}`,
        'idempotency-key': randomUUID(),
      },
      payload: { cartId: await driver.cart([{ variantId, quantity: 1 }]) },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const account = me(t, driver.shop, session.token);
    const exported = await account.call('GET', '/export');
    assert.equal(exported.statusCode, 200, exported.body);
    assert.ok(exported.body.includes(email));
    assert.equal((await account.call('DELETE', '')).statusCode, 204);
    assert.equal((await account.call('GET', '')).statusCode, 401);
    assert.equal((await account.call('GET', '/orders')).statusCode, 401);
    const order = (await driver.adminOrder(placed.json<CheckoutBody>().order.id)) as unknown as {
      email: string;
      number: number;
    };
    assert.equal(order.email, 'erased@erased.invalid');
    const log = await driver.admin('GET', '/privacy-log');
    assert.deepEqual(
      log
        .json<{ items: { action: string; actor: string; staffEmail: string | null }[] }>()
        .items.map((e) => [e.action, e.actor, e.staffEmail]),
      [
        ['erase', 'customer', null],
        ['export', 'customer', null],
      ],
    );
    // Signing in again with the email starts a new, empty account.
    const again = await signIn(t, driver.shop, email);
    assert.notEqual(again.customer.id, session.customer.id);
    const orders = await me(t, driver.shop, again.token).call('GET', '/orders');
    assert.deepEqual(orders.json<{ items: unknown[] }>().items, []);
  });

  test('erasure and export are admin actions; staff see customers but cannot export or erase', async () => {
    const driver = await ShopDriver.open(t);
    const email = `staff-${randomUUID().slice(0, 8)}@example.com`;
    const session = await signIn(t, driver.shop, email);
    const invited = await driver.admin('POST', '/staff', {
      email: `clerk-${randomUUID().slice(0, 6)}@example.com`,
      role: 'staff',
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const { openStaffSession } = await import('../staff/staff.service.ts');
    const clerk = await openStaffSession(t.deps, driver.storeId, invited.json<{ email: string }>().email);
    const asClerk = t.admin(clerk.token);
    assert.equal((await asClerk.get(`/customers/${session.customer.id}`)).statusCode, 200);
    assert.equal((await asClerk.get(`/customers/${session.customer.id}/export`)).statusCode, 403);
    assert.equal((await asClerk.delete(`/customers/${session.customer.id}`)).statusCode, 403);
  });

  test("one store's staff cannot read, export or erase another store's customer", async () => {
    const a = await ShopDriver.open(t);
    const b = await createTestStore(t);
    const session = await signIn(t, a.shop, `iso-${randomUUID().slice(0, 8)}@example.com`);
    const asB = t.admin(b);
    assert.equal((await asB.get(`/customers/${session.customer.id}`)).statusCode, 404);
    assert.equal((await asB.get(`/customers/${session.customer.id}/export`)).statusCode, 404);
    assert.equal((await asB.delete(`/customers/${session.customer.id}`)).statusCode, 404);
    assert.deepEqual((await asB.get('/customers')).json<{ items: unknown[] }>().items, []);
    assert.equal((await me(t, a.shop, session.token).call('GET', '')).statusCode, 200, 'still there');
  });
});
