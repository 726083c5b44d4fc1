import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { catalogHelpers, type AdminProduct } from './catalog.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());
const { product, walk, events } = catalogHelpers(() => t);

describe('admin products', () => {
  test('create returns the admin shape; the storefront shows the card and detail', async () => {
    const shop = await createTestStore(t);
    const created = await product(shop, { title: 'Linen Shirt' });
    assert.equal(created.status, 'active');
    assert.equal(created.priceAmount, 1200, 'card price is the lowest variant price');
    assert.equal(created.currency, 'USD');
    assert.deepEqual(
      created.variants.map((v) => [v.onHand, v.reserved, v.available]),
      [
        [5, 0, 5],
        [0, 0, 0],
      ],
    );

    const card = {
      id: created.id,
      title: 'Linen Shirt',
      handle: 'linen-shirt',
      image: 'https://cdn.example/p.jpg',
      priceAmount: 1200,
      // The card price is the Large's, which has no compare-at.
      compareAtAmount: null,
      currency: 'USD',
      giftCard: false,
    };
    const list = await t.storefront(shop).get('/products');
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json(), { items: [card], nextCursor: null });

    const detail = await t.storefront(shop).get(`/products/${created.id}`);
    assert.deepEqual(detail.json(), {
      ...card,
      description: 'A fine thing.',
      seo: { title: null, description: null },
      options: [],
      images: [],
      variants: [
        {
          id: created.variants[0]!.id,
          sku: created.variants[0]!.sku,
          label: 'Small',
          options: {},
          priceAmount: 1500,
          compareAtAmount: 2000,
          available: 5,
          imageId: null,
        },
        {
          id: created.variants[1]!.id,
          sku: null,
          label: 'Large',
          options: {},
          priceAmount: 1200,
          compareAtAmount: null,
          available: 0,
          imageId: null,
        },
      ],
    });
  });

  test('available is max(0, onHand − reserved)', async () => {
    const shop = await createTestStore(t);
    const created = await product(shop);
    const variantId = created.variants[0]!.id;
    await t.db.kysely.updateTable('variants').set({ reserved: 7 }).where('id', '=', variantId).execute();
    const detail = (await t.storefront(shop).get(`/products/${created.id}`)).json<{
      variants: { id: string; available: number }[];
    }>();
    assert.equal(detail.variants.find((v) => v.id === variantId)?.available, 0);
  });

  test('invalid products are 400 with pointers and write nothing', async () => {
    const shop = await createTestStore(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ image: 'http://cdn.example/p.jpg' }, '/image'],
      [{ image: 'javascript:alert(1)' }, '/image'],
      [{ status: 'active', variants: [] }, '/variants'],
      [{ variants: [{ label: 'x', priceAmount: -1, onHand: 1 }] }, '/variants/0/priceAmount'],
      [{ variants: [{ label: 'x', priceAmount: 1.5, onHand: 1 }] }, '/variants/0/priceAmount'],
      [{ variants: [{ label: 'x', priceAmount: '100', onHand: 1 }] }, '/variants/0/priceAmount'],
      [{ variants: [{ label: 'x', priceAmount: 100, onHand: -2 }] }, '/variants/0/onHand'],
      [{ status: 'published' }, '/status'],
      [{ title: '' }, '/title'],
      [
        {
          variants: [
            { sku: 'DUP', label: 'a', priceAmount: 1, onHand: 1 },
            { sku: 'DUP', label: 'b', priceAmount: 1, onHand: 1 },
          ],
        },
        '/variants/1/sku',
      ],
    ];
    for (const [overrides, pointer] of cases) {
      const response = await t.admin(shop).post('/products', {
        title: 'T',
        status: 'draft',
        variants: [{ label: 'x', priceAmount: 1, onHand: 1 }],
        ...overrides,
      });
      assert.equal(response.statusCode, 400, `${JSON.stringify(overrides)}: ${response.body}`);
      const problem = response.json<{ title: string; errors: { pointer: string }[] }>();
      assert.equal(problem.title, 'validation_failed');
      assert.ok(
        problem.errors.some((e) => e.pointer === pointer),
        `${pointer} in ${JSON.stringify(problem.errors)}`,
      );
    }
    const stored = await t.db.kysely
      .selectFrom('products')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(stored.length, 0);
    assert.deepEqual(await events(shop), []);
  });

  test('a SKU is unique per store, not across stores', async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    await product(a, { variants: [{ sku: 'TEE-1', label: 'x', priceAmount: 1, onHand: 1 }] });
    const clash = await t.admin(a).post('/products', {
      title: 'x',
      status: 'draft',
      variants: [{ sku: 'TEE-1', label: 'y', priceAmount: 1, onHand: 1 }],
    });
    assert.equal(clash.statusCode, 409);
    assert.equal(clash.json<{ title: string }>().title, 'sku_unavailable');
    await product(b, { variants: [{ sku: 'TEE-1', label: 'x', priceAmount: 1, onHand: 1 }] });
  });

  test('variants: add, patch price and stock, delete; the card price follows', async () => {
    const shop = await createTestStore(t);
    const created = await product(shop);
    const added = await t.admin(shop).post(`/products/${created.id}/variants`, {
      label: 'XL',
      priceAmount: 900,
      onHand: 3,
      sku: 'XL-1',
    });
    assert.equal(added.statusCode, 201, added.body);
    const xl = added.json<{ id: string; available: number }>();
    assert.equal(xl.available, 3);
    assert.equal((await t.admin(shop).get(`/products/${created.id}`)).json<AdminProduct>().priceAmount, 900);

    const patched = await t.admin(shop).patch(`/variants/${xl.id}`, { priceAmount: 2500, onHand: 10 });
    assert.equal(patched.statusCode, 200);
    assert.equal(patched.json<{ available: number }>().available, 10);
    assert.equal((await t.admin(shop).get(`/products/${created.id}`)).json<AdminProduct>().priceAmount, 1200);

    assert.equal((await t.admin(shop).delete(`/variants/${created.variants[1]!.id}`)).statusCode, 204);
    assert.equal(
      (await t.storefront(shop).get(`/products/${created.id}`)).json<{ priceAmount: number }>().priceAmount,
      1500,
    );
  });

  test('the last variant of an active product cannot be deleted', async () => {
    const shop = await createTestStore(t);
    const created = await product(shop, { variants: [{ label: 'only', priceAmount: 100, onHand: 1 }] });
    const response = await t.admin(shop).delete(`/variants/${created.variants[0]!.id}`);
    assert.equal(response.statusCode, 400);
    assert.equal(
      (await t.admin(shop).get(`/products/${created.id}`)).json<AdminProduct>().variants.length,
      1,
    );
  });

  test('admin list filters by status and paginates', async () => {
    const shop = await createTestStore(t);
    await product(shop, { status: 'draft' });
    await product(shop);
    const drafts = (await t.admin(shop).get('/products?status=draft')).json<{ items: AdminProduct[] }>();
    assert.deepEqual(
      drafts.items.map((p) => p.status),
      ['draft'],
    );
    const all = (await t.admin(shop).get('/products?limit=1')).json<{
      items: AdminProduct[];
      nextCursor: string;
    }>();
    assert.equal(all.items.length, 1);
    assert.ok(all.nextCursor);
  });
});

describe('storefront visibility', () => {
  test('draft and archived products are invisible everywhere', async () => {
    const shop = await createTestStore(t);
    const draft = await product(shop, { status: 'draft' });
    const archived = await product(shop, { status: 'archived' });
    const active = await product(shop);
    const collection = await t.admin(shop).post('/collections', {
      title: 'All',
      slug: 'all',
      kind: 'manual',
      productIds: [draft.id, archived.id, active.id],
    });
    assert.equal(collection.statusCode, 201, collection.body);
    assert.deepEqual(await walk(shop, '/products', 10), [active.id]);
    assert.deepEqual(await walk(shop, '/collections/all/products', 10), [active.id]);
    for (const hidden of [draft, archived]) {
      const response = await t.storefront(shop).get(`/products/${hidden.id}`);
      assert.equal(response.statusCode, 404);
      assert.equal(response.json<{ title: string }>().title, 'not_found');
    }
  });

  test("a store's key never sees another store's catalog", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    const mine = await product(a);
    await t.admin(a).post('/collections', {
      title: 'Mine',
      slug: 'mine',
      kind: 'manual',
      productIds: [mine.id],
    });
    assert.equal((await t.storefront(b).get(`/products/${mine.id}`)).statusCode, 404);
    assert.deepEqual(await walk(b, '/products', 10), []);
    assert.equal((await t.storefront(b).get('/collections/mine')).statusCode, 404);
    assert.equal((await t.storefront(b).get('/collections/mine/products')).statusCode, 404);
    assert.deepEqual((await t.storefront(b).get('/collections')).json(), { items: [], nextCursor: null });
    assert.equal((await t.admin(b).get(`/products/${mine.id}`)).statusCode, 404);
    assert.equal((await t.admin(b).patch(`/products/${mine.id}`, { title: 'stolen' })).statusCode, 404);
    assert.equal(
      (await t.admin(b).patch(`/variants/${mine.variants[0]!.id}`, { onHand: 0 })).statusCode,
      404,
    );
    assert.equal((await t.admin(b).delete(`/products/${mine.id}`)).statusCode, 404);
    assert.equal(
      (
        await t.admin(b).post('/collections', {
          title: 'x',
          slug: 'x',
          kind: 'manual',
          productIds: [mine.id],
        })
      ).statusCode,
      400,
    );
  });

  test('a malformed product id is 400 validation_failed', async () => {
    const shop = await createTestStore(t);
    const response = await t.storefront(shop).get('/products/not-a-uuid');
    assert.equal(response.statusCode, 400);
    assert.equal(response.json<{ title: string }>().title, 'validation_failed');
  });
});

describe('pagination', () => {
  test('a walk sees every product once, in order, and new products appear at the end', async () => {
    const shop = await createTestStore(t);
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push((await product(shop)).id);
    assert.deepEqual(await walk(shop, '/products', 5), ids);

    // Stable under inserts: start a walk, insert, finish it.
    const first = (await t.storefront(shop).get('/products?limit=10')).json<{
      items: { id: string }[];
      nextCursor: string;
    }>();
    const late = await product(shop);
    const rest: string[] = [];
    let cursor: string | null = first.nextCursor;
    while (cursor) {
      const response = await t
        .storefront(shop)
        .get(`/products?limit=10&cursor=${encodeURIComponent(cursor)}`);
      const page: { items: { id: string }[]; nextCursor: string | null } = response.json();
      rest.push(...page.items.map((p) => p.id));
      cursor = page.nextCursor;
    }
    assert.deepEqual([...first.items.map((p) => p.id), ...rest], [...ids, late.id]);
  });

  test('limit is clamped to 100; 0, negative and non-integer limits are 400; a tampered cursor is 400', async () => {
    const shop = await createTestStore(t);
    await product(shop);
    assert.equal((await t.storefront(shop).get('/products?limit=1000')).statusCode, 200);
    for (const limit of ['0', '-1', '2.5', 'ten']) {
      const response = await t.storefront(shop).get(`/products?limit=${limit}`);
      assert.equal(response.statusCode, 400, limit);
      assert.equal(response.json<{ title: string }>().title, 'validation_failed');
    }
    await product(shop);
    const page = (await t.storefront(shop).get('/products?limit=1')).json<{ nextCursor: string }>();
    const [body, signature] = page.nextCursor.split('.') as [string, string];
    const tampered = `${body.slice(0, -2)}${body.endsWith('A') ? 'BB' : 'AA'}.${signature}`;
    const response = await t.storefront(shop).get(`/products?cursor=${encodeURIComponent(tampered)}`);
    assert.equal(response.statusCode, 400);
    const otherList = await t
      .storefront(shop)
      .get(`/collections?cursor=${encodeURIComponent(page.nextCursor)}`);
    assert.equal(otherList.statusCode, 400, 'a products cursor is not a collections cursor');
  });

  test('100 is the largest page', async () => {
    const shop = await createTestStore(t);
    const rows = Array.from({ length: 105 }, (_, i) => ({
      store_id: shop.store.id,
      title: `Bulk ${i}`,
      status: 'active' as const,
      price_amount: 100,
    }));
    await t.db.kysely.insertInto('products').values(rows).execute();
    const page = (await t.storefront(shop).get('/products?limit=1000')).json<{
      items: unknown[];
      nextCursor: string | null;
    }>();
    assert.equal(page.items.length, 100);
    assert.ok(page.nextCursor);
    assert.equal(
      (await t.storefront(shop).get('/products')).json<{ items: unknown[] }>().items.length,
      20,
      'default 20',
    );
  });
});
