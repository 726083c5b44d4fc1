/** The console's catalog reads: product search (`q`), a collection's products, the smart-rules preview. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listEvents } from '../events/events.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Product {
  id: string;
  title: string;
  status: string;
  variants: { sku: string | null }[];
}
interface ProductPage {
  items: Product[];
  nextCursor: string | null;
}

async function product(
  shop: TestStore,
  title: string,
  options: { skus?: (string | null)[]; status?: string; tags?: string[]; price?: number } = {},
): Promise<Product> {
  const response = await t.admin(shop).post('/products', {
    title,
    status: options.status ?? 'active',
    tags: options.tags ?? [],
    variants: (options.skus ?? [null]).map((sku, i) => ({
      sku,
      label: `V${i}`,
      priceAmount: options.price ?? 1000,
      onHand: 1,
    })),
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

async function search(shop: TestStore, query: string): Promise<string[]> {
  const response = await t.admin(shop).get(`/products?${query}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<ProductPage>().items.map((p) => p.title);
}

/** Every item of a paginated admin list, `limit` at a time, asserting the walk ends. */
async function walk(shop: TestStore, url: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const separator = url.includes('?') ? '&' : '?';
    const response = await t
      .admin(shop)
      .get(`${url}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<ProductPage>();
    assert.ok(body.items.length <= limit);
    ids.push(...body.items.map((item) => item.id));
    cursor = body.nextCursor;
    if (cursor === null) return ids;
  }
  throw new Error('pagination did not end');
}

describe('admin product search (q)', () => {
  test('matches a part of the title or of a variant SKU, case-insensitively, within the store', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    await product(shop, 'Linen Shirt', { skus: ['LS-M', 'LS-L'] });
    await product(shop, 'Wool Coat', { skus: ['WC-1'] });
    await product(shop, 'Shirt dress', { skus: [null], status: 'draft' });
    await product(shop, '100% cotton tee', { skus: ['TEE_1'] });
    await product(other, 'Linen Shirt (other store)', { skus: ['WC-9'] });

    assert.deepEqual(await search(shop, 'q=shirt'), ['Linen Shirt', 'Shirt dress']);
    assert.deepEqual(await search(shop, 'q=SHIRT&status=draft'), ['Shirt dress']);
    assert.deepEqual(await search(shop, 'q=ls-l'), ['Linen Shirt'], 'a SKU, any case');
    assert.deepEqual(await search(shop, 'q=wc-'), ['Wool Coat'], "not the other store's SKU");
    assert.deepEqual(await search(shop, 'q=%25'), ['100% cotton tee'], '% is a plain character');
    assert.deepEqual(await search(shop, 'q=_'), ['100% cotton tee'], '_ is a plain character');
    assert.deepEqual(await search(shop, 'q=nothing-like-this'), []);
    assert.deepEqual(await search(shop, `q=${encodeURIComponent('  coat ')}`), ['Wool Coat'], 'trimmed');
    assert.equal((await search(other, 'q=linen')).length, 1);

    const empty = await t.admin(shop).get('/products?q=');
    assert.equal(empty.statusCode, 400);
    const long = await t.admin(shop).get(`/products?q=${'x'.repeat(201)}`);
    assert.equal(long.statusCode, 400);
  });

  test('pages through the matches once each, in order; a cursor belongs to its search', async () => {
    const shop = await createTestStore(t);
    const matching: string[] = [];
    for (let i = 0; i < 7; i++) {
      matching.push((await product(shop, `Mug ${i}`)).id);
      await product(shop, `Plate ${i}`, { skus: [`PL-${i}`] });
      // A product found by two variants' SKUs is still listed once.
      if (i === 3) matching.push((await product(shop, 'Saucer', { skus: ['MUG-A', 'MUG-B'] })).id);
    }
    for (const limit of [1, 2, 3, 100]) {
      assert.deepEqual(await walk(shop, '/products?q=mug', limit), matching, `limit ${limit}`);
    }

    const first = (await t.admin(shop).get('/products?q=mug&limit=2')).json<ProductPage>();
    assert.ok(first.nextCursor);
    const cursor = encodeURIComponent(first.nextCursor);
    for (const query of [
      `q=plate&cursor=${cursor}`,
      `cursor=${cursor}`,
      `q=mug&status=draft&cursor=${cursor}`,
    ]) {
      const response = await t.admin(shop).get(`/products?${query}`);
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.json<{ errors: { pointer: string }[] }>().errors[0]?.pointer, '/cursor');
    }
    const next = (await t.admin(shop).get(`/products?q=mug&limit=2&cursor=${cursor}`)).json<ProductPage>();
    assert.deepEqual(
      next.items.map((p) => p.id),
      matching.slice(2, 4),
    );
  });
});

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
