/**
 * Customer groups (decision `customer-groups`): the groups' CRUD, a customer's groups, the admin
 * views and the export that show them, what a deleted group or an erased customer leaves, and the
 * groups of a signed-in shopper (`customerGroupIdsOf`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ShopDriver } from '../orders/orders.test-support.ts';
import { openStaffSession } from '../staff/staff.service.ts';
import {
  clientAddresses,
  createTestStore,
  startTestApp,
  type TestApp,
  type TestStore,
} from '../test/harness.ts';
import { customerGroupIdsOf } from './customers.auth.ts';
import { ok } from '../test/answers.ts';
import { signInCustomer } from '../test/customers.ts';

let t: TestApp;
before(async () => (t = await startTestApp({ workers: true })));
after(() => t.close());

interface Group {
  id: string;
  name: string;
  memberCount: number;
  createdAt: string;
  updatedAt: string;
}
interface Problem {
  title: string;
  errors?: { pointer: string }[];
}

async function problem(
  response: Promise<{ statusCode: number; body: string }>,
  status: number,
): Promise<Problem & { pointers: string[] }> {
  const answer = await response;
  assert.equal(answer.statusCode, status, answer.body);
  const body = JSON.parse(answer.body) as Problem;
  return { ...body, pointers: [...new Set((body.errors ?? []).map((error) => error.pointer))] };
}

/** A guest customer of the store, made by a checkout with their email; their id. */
async function guest(driver: ShopDriver, variantId: string): Promise<string> {
  const email = `guest-${randomUUID().slice(0, 8)}@example.com`;
  const placed = await driver.checkout({ cartId: await driver.cart([{ variantId, quantity: 1 }]), email });
  assert.equal(placed.statusCode, 201, placed.body);
  const list = await ok<{ items: { id: string }[] }>(
    t.admin(driver.shop).get(`/customers?q=${encodeURIComponent(email)}`),
  );
  return list.items[0]!.id;
}

const client = clientAddresses();

/** Signs a new member in; the token and the customer's id. */
async function signIn(shop: TestStore): Promise<{ token: string; customerId: string }> {
  const session = await signInCustomer(t, shop, { ip: client() });
  return { token: session.token, customerId: session.customer.id };
}

describe('customer groups', () => {
  test('create, list with member counts, read, rename and delete; names unique whatever their case', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const wholesale = await ok<Group>(admin.post('/customer-groups', { name: '  Wholesale ' }), 201);
    assert.deepEqual([wholesale.name, wholesale.memberCount], ['Wholesale', 0]);
    assert.ok(wholesale.createdAt && wholesale.updatedAt);
    const taken = await problem(admin.post('/customer-groups', { name: 'WHOLESALE' }), 409);
    assert.equal(taken.title, 'customer_group_exists');
    assert.deepEqual(taken.pointers, ['/name']);
    const vip = await ok<Group>(admin.post('/customer-groups', { name: 'VIP' }), 201);
    const staff = await ok<Group>(admin.post('/customer-groups', { name: 'Staff' }), 201);

    const first = await ok<{ items: Group[]; nextCursor: string }>(admin.get('/customer-groups?limit=2'));
    assert.deepEqual(
      first.items.map((group) => group.name),
      ['Wholesale', 'VIP'],
    );
    const rest = await ok<{ items: Group[]; nextCursor: null }>(
      admin.get(`/customer-groups?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`),
    );
    assert.deepEqual([rest.items.map((group) => group.name), rest.nextCursor], [['Staff'], null]);

    assert.deepEqual(await ok<Group>(admin.get(`/customer-groups/${vip.id}`)), vip);
    const renamed = await ok<Group>(admin.patch(`/customer-groups/${vip.id}`, { name: 'V.I.P.' }));
    assert.equal(renamed.name, 'V.I.P.');
    const clash = await problem(admin.patch(`/customer-groups/${vip.id}`, { name: 'staff' }), 409);
    assert.equal(clash.title, 'customer_group_exists');
    // Its own name in another case is no clash.
    await ok(admin.patch(`/customer-groups/${staff.id}`, { name: 'STAFF' }));

    assert.equal((await admin.delete(`/customer-groups/${vip.id}`)).statusCode, 204);
    await problem(admin.get(`/customer-groups/${vip.id}`), 404);
    await problem(admin.delete(`/customer-groups/${vip.id}`), 404);
    await problem(admin.patch(`/customer-groups/${vip.id}`, { name: 'Again' }), 404);
    // The name is free again.
    await ok(admin.post('/customer-groups', { name: 'vip' }), 201);

    // Bad input is 400 at its field; another store sees none of it.
    assert.deepEqual((await problem(admin.post('/customer-groups', { name: '' }), 400)).pointers, ['/name']);
    assert.deepEqual((await problem(admin.post('/customer-groups', { name: '   ' }), 400)).pointers, [
      '/name',
    ]);
    assert.deepEqual(
      (await problem(admin.post('/customer-groups', { name: 'x'.repeat(101) }), 400)).pointers,
      ['/name'],
    );
    assert.ok((await problem(admin.post('/customer-groups', { name: 'A', extra: 1 }), 400)).pointers.length);
    await problem(admin.get('/customer-groups/not-a-uuid'), 400);
    const other = await createTestStore(t);
    await problem(t.admin(other).get(`/customer-groups/${wholesale.id}`), 404);
    assert.deepEqual((await ok<{ items: Group[] }>(t.admin(other).get('/customer-groups'))).items, []);
    // The same name in another store is no clash.
    await ok(t.admin(other).post('/customer-groups', { name: 'Wholesale' }), 201);
  });

  test("a customer's groups: set and replaced, shown on the admin views, checked, with customer.updated", async () => {
    const driver = await ShopDriver.open(t);
    const admin = t.admin(driver.shop);
    const variantId = await driver.variant(10);
    const [ada, bob] = [await guest(driver, variantId), await guest(driver, variantId)];
    const a = await ok<Group>(admin.post('/customer-groups', { name: 'A' }), 201);
    const b = await ok<Group>(admin.post('/customer-groups', { name: 'B' }), 201);
    const sorted = [a.id, b.id].sort();

    const set = await ok<{ groupIds: string[] }>(
      admin.put(`/customers/${ada}/groups`, { groupIds: [b.id, a.id.toUpperCase(), b.id] }),
    );
    assert.deepEqual(set.groupIds, sorted, 'each once, sorted');
    await ok(admin.put(`/customers/${bob}/groups`, { groupIds: [a.id] }));

    const detail = await ok<{ groupIds: string[] }>(admin.get(`/customers/${ada}`));
    assert.deepEqual(detail.groupIds, sorted);
    const list = await ok<{ items: { id: string; groupIds: string[] }[] }>(admin.get('/customers'));
    assert.deepEqual(Object.fromEntries(list.items.map((customer) => [customer.id, customer.groupIds])), {
      [ada]: sorted,
      [bob]: [a.id],
    });
    assert.equal((await ok<Group>(admin.get(`/customer-groups/${a.id}`))).memberCount, 2);
    assert.equal((await ok<Group>(admin.get(`/customer-groups/${b.id}`))).memberCount, 1);

    const updated = async () =>
      (await driver.events('customer.updated')).filter((data) => data.customerId === ada);
    assert.deepEqual(
      (await updated()).map((data) => data.changed),
      [['groups']],
    );
    // The same set again changes nothing and records nothing.
    await ok(admin.put(`/customers/${ada}/groups`, { groupIds: [a.id, b.id] }));
    assert.equal((await updated()).length, 1);

    // Unknown groups, another store's, and ids that are not UUIDs: 400 at each, nothing changed.
    const other = await ok<Group>(
      t.admin(await createTestStore(t)).post('/customer-groups', { name: 'A' }),
      201,
    );
    const unknown = await problem(
      admin.put(`/customers/${ada}/groups`, { groupIds: [a.id, randomUUID(), other.id] }),
      400,
    );
    assert.deepEqual(unknown.pointers, ['/groupIds/1', '/groupIds/2']);
    assert.ok(
      (await problem(admin.put(`/customers/${ada}/groups`, { groupIds: ['nope'] }), 400)).pointers.includes(
        '/groupIds/0',
      ),
    );
    await problem(admin.put(`/customers/${ada}/groups`, {}), 400);
    await problem(admin.put(`/customers/${randomUUID()}/groups`, { groupIds: [a.id] }), 404);
    assert.deepEqual((await ok<{ groupIds: string[] }>(admin.get(`/customers/${ada}`))).groupIds, sorted);

    // [] takes the customer out of every group.
    assert.deepEqual(
      (await ok<{ groupIds: string[] }>(admin.put(`/customers/${ada}/groups`, { groupIds: [] }))).groupIds,
      [],
    );
    assert.deepEqual(
      (await updated()).map((data) => [data.changed, data.hasAccount, data.acceptsMarketing]),
      [
        [['groups'], false, false],
        [['groups'], false, false],
      ],
    );
  });

  test('a deleted group leaves its customers; an erased customer leaves their groups', async () => {
    const driver = await ShopDriver.open(t);
    const admin = t.admin(driver.shop);
    const variantId = await driver.variant(10);
    const ada = await guest(driver, variantId);
    const bob = await guest(driver, variantId);
    const a = await ok<Group>(admin.post('/customer-groups', { name: 'A' }), 201);
    const b = await ok<Group>(admin.post('/customer-groups', { name: 'B' }), 201);
    await ok(admin.put(`/customers/${ada}/groups`, { groupIds: [a.id, b.id] }));
    await ok(admin.put(`/customers/${bob}/groups`, { groupIds: [b.id] }));

    assert.equal((await admin.delete(`/customer-groups/${a.id}`)).statusCode, 204);
    assert.deepEqual((await ok<{ groupIds: string[] }>(admin.get(`/customers/${ada}`))).groupIds, [b.id]);

    assert.equal((await admin.delete(`/customers/${ada}`)).statusCode, 204);
    assert.equal((await ok<Group>(admin.get(`/customer-groups/${b.id}`))).memberCount, 1);
    const rows = await t.db.kysely
      .selectFrom('customer_group_members')
      .select(['customer_id', 'group_id'])
      .where('store_id', '=', driver.storeId)
      .execute();
    assert.deepEqual(rows, [{ customer_id: bob, group_id: b.id }]);
  });

  test('staff read groups; setting them is an admin’s', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const group = await ok<Group>(admin.post('/customer-groups', { name: 'A' }), 201);
    const invited = await ok<{ email: string }>(
      admin.post('/staff', { email: `clerk-${randomUUID().slice(0, 6)}@example.com`, role: 'staff' }),
      201,
    );
    const clerk = t.admin((await openStaffSession(t.deps, shop.store.id, invited.email)).token);
    await ok(clerk.get('/customer-groups'));
    await ok(clerk.get(`/customer-groups/${group.id}`));
    await problem(clerk.post('/customer-groups', { name: 'B' }), 403);
    await problem(clerk.patch(`/customer-groups/${group.id}`, { name: 'B' }), 403);
    await problem(clerk.delete(`/customer-groups/${group.id}`), 403);
    await problem(clerk.put(`/customers/${randomUUID()}/groups`, { groupIds: [] }), 403);
  });

  test("a signed-in shopper's groups (customerGroupIdsOf) and their export", async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const deps = {
      db: t.db.kysely,
      clock: t.clock,
      sessions: { ttlMs: t.config.customerSessionTtlMs, maxAgeMs: t.config.customerSessionMaxAgeMs },
    };
    const request = (authorization?: string, storeId = shop.store.id) =>
      ({
        headers: authorization ? { authorization } : {},
        storefront: { storeId },
      }) as unknown as FastifyRequest;
    const { token, customerId } = await signIn(shop);
    assert.deepEqual(await customerGroupIdsOf(deps, request()), [], 'no token: no groups');
    assert.deepEqual(await customerGroupIdsOf(deps, request(`Bearer ${token}`)), []);

    const wholesale = await ok<Group>(admin.post('/customer-groups', { name: 'Wholesale' }), 201);
    const vip = await ok<Group>(admin.post('/customer-groups', { name: 'VIP' }), 201);
    await ok(admin.put(`/customers/${customerId}/groups`, { groupIds: [wholesale.id, vip.id] }));
    assert.deepEqual(
      await customerGroupIdsOf(deps, request(`Bearer ${token}`)),
      [wholesale.id, vip.id].sort(),
    );
    await assert.rejects(customerGroupIdsOf(deps, request('Bearer ct_nonsense')), { status: 401 });
    const other = await createTestStore(t);
    await assert.rejects(customerGroupIdsOf(deps, request(`Bearer ${token}`, other.store.id)), {
      status: 401,
    });

    // The export names the groups, for staff and for the shopper.
    const exported = await ok<{ groups: { id: string; name: string }[] }>(
      admin.get(`/customers/${customerId}/export`),
    );
    assert.deepEqual(exported.groups, [
      { id: vip.id, name: 'VIP' },
      { id: wholesale.id, name: 'Wholesale' },
    ]);
    const own = await t.app.inject({
      method: 'GET',
      url: '/storefront/v1/customers/me/export',
      headers: { 'x-publishable-key': shop.publishableKey, authorization: `Bearer ${token}` },
    });
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual(own.json<{ groups: unknown[] }>().groups, exported.groups);
  });
});
