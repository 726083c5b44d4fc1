/** Manual and smart collections through the Admin API and the storefront. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../../test/harness.ts';
import { catalogHelpers } from '../catalog.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());
const { product, walk } = catalogHelpers(() => t);

describe('collections', () => {
  test('manual collections keep and change the merchant order', async () => {
    const shop = await createTestStore(t);
    const [p1, p2, p3] = [await product(shop), await product(shop), await product(shop)];
    const created = await t.admin(shop).post('/collections', {
      title: 'Picks',
      slug: 'picks',
      kind: 'manual',
      productIds: [p3.id, p1.id, p2.id],
    });
    const collection = created.json<{ id: string; productIds: string[]; kind: string; rules: null }>();
    assert.deepEqual(collection.productIds, [p3.id, p1.id, p2.id]);
    assert.equal(collection.rules, null);
    assert.deepEqual(await walk(shop, '/collections/picks/products', 2), [p3.id, p1.id, p2.id]);
    await t.admin(shop).patch(`/collections/${collection.id}`, { productIds: [p2.id, p3.id] });
    assert.deepEqual(await walk(shop, '/collections/picks/products', 2), [p2.id, p3.id]);

    // Two active products, each with a card price of 12.00 (the large size, not on sale).
    const card = {
      id: collection.id,
      title: 'Picks',
      slug: 'picks',
      productCount: 2,
      priceRange: { min: 1200, max: 1200 },
      onSale: false,
    };
    assert.deepEqual((await t.storefront(shop).get('/collections/picks')).json(), card);
    assert.deepEqual((await t.storefront(shop).get('/collections')).json(), {
      items: [card],
      nextCursor: null,
    });
    assert.equal((await t.storefront(shop).get('/collections/nope')).statusCode, 404);

    const dup = await t.admin(shop).post('/collections', { title: 'Again', slug: 'picks', kind: 'manual' });
    assert.equal(dup.statusCode, 409);
    const repeated = await t.admin(shop).patch(`/collections/${collection.id}`, {
      productIds: [p1.id, p1.id],
    });
    assert.equal(repeated.statusCode, 400);
  });

  test('smart collections follow product edits (tag, title, price; all and any)', async () => {
    const shop = await createTestStore(t);
    const shirt = await product(shop, { title: 'Summer Shirt', tags: ['Summer'] });
    const coat = await product(shop, {
      title: 'Winter Coat',
      tags: ['winter'],
      variants: [{ label: 'M', priceAmount: 20000, onHand: 2 }],
    });
    const smart = await t.admin(shop).post('/collections', {
      title: 'Summer',
      slug: 'summer',
      kind: 'smart',
      rules: { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'summer' }] },
    });
    assert.equal(smart.statusCode, 201, smart.body);
    const smartId = smart.json<{ id: string }>().id;
    assert.deepEqual(await walk(shop, '/collections/summer/products', 10), [shirt.id]);

    await t.admin(shop).patch(`/products/${coat.id}`, { tags: ['winter', 'SUMMER'] });
    assert.deepEqual(await walk(shop, '/collections/summer/products', 10), [shirt.id, coat.id]);
    await t.admin(shop).patch(`/products/${shirt.id}`, { tags: [] });
    assert.deepEqual(await walk(shop, '/collections/summer/products', 10), [coat.id]);
    await t.admin(shop).patch(`/products/${coat.id}`, { status: 'draft' });
    assert.deepEqual(await walk(shop, '/collections/summer/products', 10), [], 'drafts never show');

    const premium = await t.admin(shop).post('/collections', {
      title: 'Premium or shirts',
      slug: 'premium',
      kind: 'smart',
      rules: {
        match: 'any',
        conditions: [
          { field: 'priceAmount', op: 'gt', value: 10000 },
          { field: 'title', op: 'contains', value: 'shirt' },
        ],
      },
    });
    assert.equal(premium.statusCode, 201);
    await t.admin(shop).patch(`/products/${coat.id}`, { status: 'active' });
    assert.deepEqual(await walk(shop, '/collections/premium/products', 10), [shirt.id, coat.id]);
    await t.admin(shop).patch(`/variants/${coat.variants[0]!.id}`, { priceAmount: 5000 });
    assert.deepEqual(await walk(shop, '/collections/premium/products', 10), [shirt.id]);

    // Changing the rules recomputes membership.
    await t.admin(shop).patch(`/collections/${smartId}`, {
      rules: { match: 'all', conditions: [{ field: 'title', op: 'eq', value: 'winter coat' }] },
    });
    assert.deepEqual(await walk(shop, '/collections/summer/products', 10), [coat.id]);
  });

  test('invalid collections are 400', async () => {
    const shop = await createTestStore(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'smart' }, '/rules'],
      [
        { kind: 'manual', rules: { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'x' }] } },
        '/rules',
      ],
      [
        {
          kind: 'smart',
          rules: { match: 'all', conditions: [{ field: 'priceAmount', op: 'contains', value: 5 }] },
        },
        '/rules/conditions/0/op',
      ],
      [
        {
          kind: 'smart',
          rules: { match: 'all', conditions: [{ field: 'priceAmount', op: 'gt', value: 'cheap' }] },
        },
        '/rules/conditions/0/value',
      ],
      [
        { kind: 'smart', rules: { match: 'all', conditions: [{ field: 'tag', op: 'gt', value: 'x' }] } },
        '/rules/conditions/0/op',
      ],
      [{ kind: 'manual', slug: 'Bad Slug' }, '/slug'],
      [{ kind: 'manual', productIds: ['2b1e0b9e-7b36-4a57-9b8e-3f5a0e6f4c11'] }, '/productIds/0'],
    ];
    for (const [overrides, pointer] of cases) {
      const response = await t.admin(shop).post('/collections', { title: 'C', slug: 'c', ...overrides });
      assert.equal(response.statusCode, 400, `${JSON.stringify(overrides)}: ${response.body}`);
      const errors = response.json<{ errors?: { pointer: string }[] }>().errors ?? [];
      assert.ok(
        errors.some((e) => e.pointer === pointer),
        `${pointer} in ${JSON.stringify(errors)}`,
      );
    }
  });
});
