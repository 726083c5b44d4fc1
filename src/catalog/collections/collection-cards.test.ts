/**
 * The storefront's collection cards: `productCount` (active products), `priceRange` (the range of
 * their card prices) and `onSale` (one of them has a card compare-at price), for manual and smart
 * collections, in the list and by slug; drafts and archived products never count; the cards follow
 * price, sale and status changes through the read cache; and the list is one query however many
 * collections it shows (no query per collection).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listCollectionCards } from './collection-cards.service.ts';
import {
  createTestStore,
  QueryObserver,
  startTestApp,
  type TestApp,
  type TestStore,
} from '../../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Card {
  id: string;
  title: string;
  slug: string;
  productCount: number;
  priceRange: { min: number; max: number } | null;
  onSale: boolean;
}

interface Product {
  id: string;
  variants: { id: string }[];
}

async function product(
  shop: TestStore,
  title: string,
  variants: { priceAmount: number; compareAtAmount?: number | null }[],
  extra: Record<string, unknown> = {},
): Promise<Product> {
  const response = await t.admin(shop).post('/products', {
    title,
    status: 'active',
    variants: variants.map((variant, i) => ({ label: `V${i}`, onHand: 3, ...variant })),
    ...extra,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

async function collection(shop: TestStore, body: Record<string, unknown>): Promise<string> {
  const response = await t.admin(shop).post('/collections', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

async function card(shop: TestStore, slug: string): Promise<Card> {
  const response = await t.storefront(shop).get(`/collections/${slug}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<Card>();
}

async function cards(shop: TestStore): Promise<Card[]> {
  const response = await t.storefront(shop).get('/collections?limit=100');
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ items: Card[] }>().items;
}

const stats = ({ productCount, priceRange, onSale }: Card) => ({ productCount, priceRange, onSale });

describe('collection cards', () => {
  test('count, price range and sale of the active products, manual and smart, in the list and by slug', async () => {
    const shop = await createTestStore(t);
    // Card price 12.00 (the cheaper variant); the 15.00 one is reduced, but it is not the card's.
    const mug = await product(
      shop,
      'Mug',
      [{ priceAmount: 1500, compareAtAmount: 2000 }, { priceAmount: 1200 }],
      {
        tags: ['kitchen'],
      },
    );
    // Card price 45.00, reduced from 60.00: on sale.
    const coat = await product(shop, 'Coat', [
      { priceAmount: 4500, compareAtAmount: 6000 },
      { priceAmount: 5000 },
    ]);
    const tee = await product(shop, 'Tee', [{ priceAmount: 2000 }], { tags: ['kitchen'] });
    // Never counted: a draft (cheapest and on sale) and an archived product (dearest).
    const draft = await product(shop, 'Draft', [{ priceAmount: 100, compareAtAmount: 500 }], {
      status: 'draft',
    });
    const archived = await product(shop, 'Archived', [{ priceAmount: 99_900 }]);
    assert.equal(
      (await t.admin(shop).patch(`/products/${archived.id}`, { status: 'archived' })).statusCode,
      200,
    );

    await collection(shop, {
      title: 'Everything',
      slug: 'everything',
      kind: 'manual',
      productIds: [mug.id, coat.id, tee.id, draft.id, archived.id],
    });
    await collection(shop, { title: 'Plain', slug: 'plain', kind: 'manual', productIds: [mug.id, tee.id] });
    await collection(shop, { title: 'Hidden only', slug: 'hidden', kind: 'manual', productIds: [draft.id] });
    await collection(shop, { title: 'Empty', slug: 'empty', kind: 'manual' });
    await collection(shop, {
      title: 'Kitchen',
      slug: 'kitchen',
      kind: 'smart',
      rules: { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'kitchen' }] },
    });

    const expected: Record<string, Omit<Card, 'id' | 'title' | 'slug'>> = {
      everything: { productCount: 3, priceRange: { min: 1200, max: 4500 }, onSale: true },
      plain: { productCount: 2, priceRange: { min: 1200, max: 2000 }, onSale: false },
      hidden: { productCount: 0, priceRange: null, onSale: false },
      empty: { productCount: 0, priceRange: null, onSale: false },
      kitchen: { productCount: 2, priceRange: { min: 1200, max: 2000 }, onSale: false },
    };
    const listed = await cards(shop);
    assert.deepEqual(
      listed.map((item) => item.slug),
      ['everything', 'plain', 'hidden', 'empty', 'kitchen'],
      'by creation time, as before',
    );
    for (const item of listed) {
      assert.deepEqual(stats(item), expected[item.slug], item.slug);
      assert.deepEqual(await card(shop, item.slug), item, `${item.slug} by slug is its list card`);
    }
    // One product: its card price is both ends of the range.
    await collection(shop, { title: 'One', slug: 'one', kind: 'manual', productIds: [coat.id] });
    assert.deepEqual(stats(await card(shop, 'one')), {
      productCount: 1,
      priceRange: { min: 4500, max: 4500 },
      onSale: true,
    });
  });

  test('the cards follow price, sale and status changes (through the read cache)', async () => {
    const shop = await createTestStore(t);
    const mug = await product(shop, 'Mug', [{ priceAmount: 1200, compareAtAmount: 1500 }]);
    const tee = await product(shop, 'Tee', [{ priceAmount: 3000 }]);
    await collection(shop, { title: 'All', slug: 'all', kind: 'manual', productIds: [mug.id, tee.id] });
    const smartId = await collection(shop, {
      title: 'Under 20',
      slug: 'under-20',
      kind: 'smart',
      rules: { match: 'all', conditions: [{ field: 'priceAmount', op: 'lt', value: 2000 }] },
    });
    assert.deepEqual(stats(await card(shop, 'all')), {
      productCount: 2,
      priceRange: { min: 1200, max: 3000 },
      onSale: true,
    });
    assert.deepEqual(stats((await cards(shop)).find((item) => item.slug === 'under-20')!), {
      productCount: 1,
      priceRange: { min: 1200, max: 1200 },
      onSale: true,
    });

    // The sale ends and the tee gets dearer.
    const mugVariant = mug.variants[0]!.id;
    assert.equal(
      (await t.admin(shop).patch(`/variants/${mugVariant}`, { compareAtAmount: null })).statusCode,
      200,
    );
    assert.equal(
      (await t.admin(shop).patch(`/variants/${tee.variants[0]!.id}`, { priceAmount: 3500 })).statusCode,
      200,
    );
    assert.deepEqual(stats(await card(shop, 'all')), {
      productCount: 2,
      priceRange: { min: 1200, max: 3500 },
      onSale: false,
    });
    assert.equal((await cards(shop)).find((item) => item.slug === 'under-20')!.onSale, false);

    // A new sale on the tee; the mug goes back to draft.
    assert.equal(
      (await t.admin(shop).patch(`/variants/${tee.variants[0]!.id}`, { compareAtAmount: 4000 })).statusCode,
      200,
    );
    assert.equal((await t.admin(shop).patch(`/products/${mug.id}`, { status: 'draft' })).statusCode, 200);
    assert.deepEqual(stats(await card(shop, 'all')), {
      productCount: 1,
      priceRange: { min: 3500, max: 3500 },
      onSale: true,
    });
    assert.deepEqual(stats((await cards(shop)).find((item) => item.id === smartId)!), {
      productCount: 0,
      priceRange: null,
      onSale: false,
    });
  });

  test('the list is one query, however many collections and products it shows', async () => {
    const shop = await createTestStore(t);
    const products = [];
    for (let i = 0; i < 4; i++) products.push(await product(shop, `P${i}`, [{ priceAmount: 1000 + i }]));
    for (let i = 0; i < 6; i++) {
      await collection(shop, {
        title: `C${i}`,
        slug: `c${i}`,
        kind: 'manual',
        productIds: products.slice(0, (i % 4) + 1).map((p) => p.id),
      });
    }
    let queries = 0;
    const db = t.deps.db.withPlugin(new QueryObserver({ onQuery: () => (queries += 1) }));
    const page = await listCollectionCards({ ...t.deps, db }, shop.store.id, { limit: 5 });
    assert.equal(queries, 1);
    assert.equal(page.items.length, 5);
    assert.ok(page.nextCursor);
    assert.deepEqual(
      page.items.map((item) => [item.slug, item.productCount, item.priceRange]),
      [
        ['c0', 1, { min: 1000, max: 1000 }],
        ['c1', 2, { min: 1000, max: 1001 }],
        ['c2', 3, { min: 1000, max: 1002 }],
        ['c3', 4, { min: 1000, max: 1003 }],
        ['c4', 1, { min: 1000, max: 1000 }],
      ],
    );
    queries = 0;
    const rest = await listCollectionCards({ ...t.deps, db }, shop.store.id, {
      limit: 5,
      cursor: page.nextCursor,
    });
    assert.equal(queries, 1);
    assert.deepEqual(
      rest.items.map((item) => item.slug),
      ['c5'],
    );
  });
});
