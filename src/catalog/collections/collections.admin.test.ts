/** The console's collection reads: a collection's products of any status, the smart-rules preview. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listEvents } from '../../events/events.ts';
import { createTestStore, startTestApp, type TestApp } from '../../test/harness.ts';
import { catalogHelpers, type ListedProduct as Product } from '../catalog.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());
const { titled: product, walkAdmin: walk } = catalogHelpers(() => t);

describe("a collection's products (admin)", () => {
  test('lists any status in the collection order, paginated; unknown or foreign collections are 404', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const a = await product(shop, 'A');
    const b = await product(shop, 'B', { status: 'draft' });
    const c = await product(shop, 'C', { status: 'archived' });
    const created = await t.admin(shop).post('/collections', {
      title: 'Picks',
      slug: 'picks',
      kind: 'manual',
      productIds: [c.id, a.id, b.id],
    });
    const collection = created.json<{ id: string }>();
    assert.deepEqual(await walk(shop, `/collections/${collection.id}/products`, 2), [c.id, a.id, b.id]);
    await t.admin(shop).patch(`/collections/${collection.id}`, { productIds: [b.id, c.id] });
    assert.deepEqual(await walk(shop, `/collections/${collection.id}/products`, 1), [b.id, c.id]);

    const smart = await t.admin(shop).post('/collections', {
      title: 'Single letters',
      slug: 'letters',
      kind: 'smart',
      rules: {
        match: 'any',
        conditions: [
          { field: 'title', op: 'eq', value: 'a' },
          { field: 'title', op: 'eq', value: 'c' },
        ],
      },
    });
    assert.deepEqual(await walk(shop, `/collections/${smart.json<{ id: string }>().id}/products`, 1), [
      a.id,
      c.id,
    ]);

    assert.equal((await t.admin(other).get(`/collections/${collection.id}/products`)).statusCode, 404);
    const unknown = await t.admin(shop).get('/collections/2b1e0b9e-7b36-4a57-9b8e-3f5a0e6f4c11/products');
    assert.equal(unknown.statusCode, 404);
  });
});

describe('smart rules preview', () => {
  test('answers what the smart collection would hold, with the total, and writes nothing', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const tee = await product(shop, 'Summer Tee', { tags: ['Summer'], price: 1500 });
    const hat = await product(shop, 'Sun hat', { tags: ['summer', 'hats'], price: 4500, status: 'draft' });
    await product(shop, 'Wool Coat', { tags: ['winter'], price: 20000 });
    const shorts = await product(shop, 'Shorts', { tags: ['SUMMER'], price: 3000 });
    await product(other, 'Summer elsewhere', { tags: ['summer'] });
    const before = await listEvents(t.db.kysely, shop.store.id);

    const rules = { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'summer' }] };
    const preview = await t.admin(shop).post('/collections/preview', { rules });
    assert.equal(preview.statusCode, 200, preview.body);
    const body = preview.json<{ items: Product[]; total: number }>();
    assert.deepEqual(
      body.items.map((p) => p.id),
      [tee.id, hat.id, shorts.id],
    );
    assert.equal(body.total, 3);

    // The same rule engine as a smart collection: its products are the preview's.
    const smart = await t.admin(shop).post('/collections', {
      title: 'Summer',
      slug: 'summer',
      kind: 'smart',
      rules,
    });
    const members = await walk(shop, `/collections/${smart.json<{ id: string }>().id}/products`, 10);
    assert.deepEqual(
      members,
      body.items.map((p) => p.id),
    );

    const cheap = await t.admin(shop).post('/collections/preview', {
      rules: {
        match: 'all',
        conditions: [
          { field: 'tag', op: 'contains', value: 'summ' },
          { field: 'priceAmount', op: 'lt', value: 4000 },
        ],
      },
      limit: 1,
    });
    assert.deepEqual(
      cheap.json<{ items: Product[]; total: number }>().items.map((p) => p.id),
      [tee.id],
    );
    assert.equal(cheap.json<{ total: number }>().total, 2);

    const none = await t.admin(shop).post('/collections/preview', {
      rules: { match: 'any', conditions: [{ field: 'title', op: 'contains', value: 'zzz' }] },
    });
    assert.deepEqual(none.json(), { items: [], total: 0 });

    const afterEvents = await listEvents(t.db.kysely, shop.store.id);
    assert.equal(
      afterEvents.length,
      before.length + 1,
      'only the collection created above recorded an event',
    );
  });

  test('invalid rules are 400 with pointers under /rules', async () => {
    const shop = await createTestStore(t);
    const cases: [unknown, string][] = [
      [
        { match: 'all', conditions: [{ field: 'priceAmount', op: 'contains', value: 5 }] },
        '/rules/conditions/0/op',
      ],
      [
        { match: 'all', conditions: [{ field: 'priceAmount', op: 'gt', value: 'cheap' }] },
        '/rules/conditions/0/value',
      ],
      [{ match: 'all', conditions: [{ field: 'tag', op: 'eq', value: ' ' }] }, '/rules/conditions/0/value'],
      [{ match: 'all', conditions: [] }, '/rules/conditions'],
      [{ match: 'some', conditions: [{ field: 'tag', op: 'eq', value: 'x' }] }, '/rules/match'],
    ];
    for (const [rules, pointer] of cases) {
      const response = await t.admin(shop).post('/collections/preview', { rules });
      assert.equal(response.statusCode, 400, `${JSON.stringify(rules)}: ${response.body}`);
      const errors = response.json<{ errors?: { pointer: string }[] }>().errors ?? [];
      assert.ok(
        errors.some((e) => e.pointer === pointer),
        `${pointer} in ${JSON.stringify(errors)}`,
      );
    }
    const tooMany = await t.admin(shop).post('/collections/preview', {
      rules: { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'x' }] },
      limit: 51,
    });
    assert.equal(tooMany.statusCode, 400);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/collections/preview',
      payload: { rules: { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'x' }] } },
    });
    assert.equal(anonymous.statusCode, 401);
  });
});
