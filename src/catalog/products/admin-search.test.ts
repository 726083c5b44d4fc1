/**
 * The console's catalog reads: product search (`q`), the list's filters (`collection`, `stock`) and
 * sorts with their cursors (a collection's products and the smart-rules preview:
 * collections/collections.admin.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';
import { catalogHelpers, type ListedProduct } from '../catalog.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());
const { titled: product, walkAdmin: walk } = catalogHelpers(() => t);

type Product = ListedProduct;
interface ProductPage {
  items: Product[];
  nextCursor: string | null;
}

async function search(shop: TestStore, query: string): Promise<string[]> {
  const response = await t.admin(shop).get(`/products?${query}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<ProductPage>().items.map((p) => p.title);
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

interface Listed {
  id: string;
  title: string;
  priceAmount: number | null;
  variants: { id: string; available: number }[];
}

/** A product with one variant per stock count (`onHand` each, price `price`); none with `[]`. */
async function stocked(
  shop: TestStore,
  title: string,
  onHand: number[],
  options: { price?: number; status?: string; tags?: string[] } = {},
): Promise<Listed> {
  const response = await t.admin(shop).post('/products', {
    title,
    status: options.status ?? (onHand.length === 0 ? 'draft' : 'active'),
    tags: options.tags ?? [],
    variants: onHand.map((units, i) => ({
      label: `V${i}`,
      priceAmount: options.price ?? 1000,
      onHand: units,
    })),
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Listed>();
}

/** Units held by pending orders, written straight to the variant (as a reservation would). */
async function reserve(variantId: string, units: number): Promise<void> {
  await t.db.kysely.updateTable('variants').set({ reserved: units }).where('id', '=', variantId).execute();
}

/** The titles of the first page (100) of `/products?{query}`. */
async function titles(shop: TestStore, query: string): Promise<string[]> {
  return search(shop, `limit=100&${query}`);
}

/** A 400 for a bad cursor: the problem points at `/cursor`. */
async function refusedCursor(shop: TestStore, query: string): Promise<void> {
  const response = await t.admin(shop).get(`/products?${query}`);
  assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
  assert.equal(response.json<{ errors: { pointer: string }[] }>().errors[0]?.pointer, '/cursor', query);
}

/** Lower case, accents folded: how `title_asc` compares titles. */
const folded = (title: string): string =>
  title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
const byId = (a: Listed, b: Listed): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

describe('admin product list: stock, collection and sort', () => {
  test('stock: in_stock, low (at most 5) and out judge the sellable units summed over the variants', async () => {
    const shop = await createTestStore(t);
    await stocked(shop, 'Plenty', [10]);
    await stocked(shop, 'Few', [3]);
    await stocked(shop, 'Five', [5]);
    await stocked(shop, 'Six', [6]);
    // Each variant is low, the product is not: 3 + 3.
    await stocked(shop, 'Split', [3, 3]);
    const held = await stocked(shop, 'Held', [8]);
    await reserve(held.variants[0]!.id, 4);
    // An oversold variant (1 on hand, 3 reserved) counts 0, not −2: 0 + 2.
    const oversold = await stocked(shop, 'Oversold', [1, 2]);
    await reserve(oversold.variants[0]!.id, 3);
    await stocked(shop, 'Sold', [0]);
    const gone = await stocked(shop, 'Gone', [4]);
    await reserve(gone.variants[0]!.id, 4);
    await stocked(shop, 'Empty', []);
    const other = await createTestStore(t);
    await stocked(other, 'Elsewhere', [1]);

    assert.deepEqual(await titles(shop, 'stock=in_stock'), [
      'Plenty',
      'Few',
      'Five',
      'Six',
      'Split',
      'Held',
      'Oversold',
    ]);
    assert.deepEqual(await titles(shop, 'stock=low'), [
      'Few',
      'Five',
      'Held',
      'Oversold',
      'Sold',
      'Gone',
      'Empty',
    ]);
    assert.deepEqual(await titles(shop, 'stock=out'), ['Sold', 'Gone', 'Empty']);
    // With the other filters and the search.
    assert.deepEqual(await titles(shop, 'stock=out&status=draft'), ['Empty']);
    assert.deepEqual(await titles(shop, 'stock=low&q=e'), [
      'Few',
      'Five',
      'Held',
      'Oversold',
      'Gone',
      'Empty',
    ]);
    assert.deepEqual(await titles(shop, 'stock=in_stock&status=active&q=s'), ['Six', 'Split', 'Oversold']);

    // Stock moves, the filter follows.
    await reserve(held.variants[0]!.id, 8);
    assert.deepEqual(await titles(shop, 'stock=out'), ['Held', 'Sold', 'Gone', 'Empty']);

    const wrong = await t.admin(shop).get('/products?stock=some');
    assert.equal(wrong.statusCode, 400, wrong.body);
  });

  test("collection: a manual or smart collection's products of any status, with the other filters", async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const mug = await stocked(shop, 'Mug', [4], { tags: ['sale'], status: 'draft' });
    const plate = await stocked(shop, 'Plate', [0], { tags: ['Sale'] });
    const lamp = await stocked(shop, 'Lamp', [9]);
    await stocked(shop, 'Bowl', [9], { tags: ['sale'], status: 'archived' });
    const manual = await t.admin(shop).post('/collections', {
      title: 'Picks',
      slug: 'picks',
      kind: 'manual',
      productIds: [lamp.id, mug.id],
    });
    const picks = manual.json<{ id: string }>().id;
    const smart = await t.admin(shop).post('/collections', {
      title: 'Sale',
      slug: 'sale',
      kind: 'smart',
      rules: { match: 'all', conditions: [{ field: 'tag', op: 'eq', value: 'sale' }] },
    });
    const sale = smart.json<{ id: string }>().id;
    const foreign = await t
      .admin(other)
      .post('/collections', { title: 'Theirs', slug: 'theirs', kind: 'manual' });

    // The list's order (creation by default), not the collection's.
    assert.deepEqual(await titles(shop, `collection=${picks}`), ['Mug', 'Lamp']);
    assert.deepEqual(await titles(shop, `collection=${picks}&sort=title_asc`), ['Lamp', 'Mug']);
    assert.deepEqual(await titles(shop, `collection=${sale}`), ['Mug', 'Plate', 'Bowl']);
    assert.deepEqual(await titles(shop, `collection=${sale}&status=archived`), ['Bowl']);
    assert.deepEqual(await titles(shop, `collection=${sale}&stock=out`), ['Plate']);
    assert.deepEqual(await titles(shop, `collection=${sale}&stock=low&q=u`), ['Mug']);

    // A smart collection's membership follows its products.
    await t.admin(shop).patch(`/products/${plate.id}`, { tags: [] });
    await t.admin(shop).patch(`/products/${lamp.id}`, { tags: ['sale'] });
    assert.deepEqual(await titles(shop, `collection=${sale}`), ['Mug', 'Lamp', 'Bowl']);

    // Another store's collection, or an unknown one, matches nothing; a malformed id is 400.
    assert.deepEqual(await titles(shop, `collection=${foreign.json<{ id: string }>().id}`), []);
    assert.deepEqual(await titles(shop, 'collection=2b1e0b9e-7b36-4a57-9b8e-3f5a0e6f4c11'), []);
    const malformed = await t.admin(shop).get('/products?collection=picks');
    assert.equal(malformed.statusCode, 400, malformed.body);
  });

  test('sort: newest first, title A–Z, price both ways, each page once with ties broken by id', async () => {
    const shop = await createTestStore(t);
    const made: Listed[] = [];
    // Ties on the folded title ("apple" three times, "eclair" twice) and on the price (1000, 2000).
    const specs: [string, number[], number][] = [
      ['banana Bread', [3], 2000],
      ['Apple', [2], 1000],
      ['Éclair', [1], 500],
      ['apple', [0], 2000],
      ['Zucchini', [7], 1000],
      ['eclair', [5], 1000],
      ['Apple', [4], 2500],
      ['Date', [], 0],
      ['Fig', [2, 8], 2000],
    ];
    for (const [title, onHand, price] of specs) made.push(await stocked(shop, title, onHand, { price }));
    assert.equal(made[7]!.priceAmount, null, 'no variants, no card price');

    const byTitle = [...made].sort((a, b) => compareText(folded(a.title), folded(b.title)) || byId(a, b));
    const priced = made.filter((p) => p.priceAmount !== null);
    const unpriced = made.filter((p) => p.priceAmount === null);
    const byPrice = [...priced].sort((a, b) => a.priceAmount! - b.priceAmount! || byId(a, b));
    const byPriceDown = [...priced].sort((a, b) => b.priceAmount! - a.priceAmount! || byId(b, a));
    const expected: Record<string, Listed[]> = {
      '': made,
      'sort=created_asc': made,
      'sort=created_desc': [...made].reverse(),
      'sort=title_asc': byTitle,
      'sort=price_asc': [...byPrice, ...unpriced],
      'sort=price_desc': [...byPriceDown, ...unpriced],
    };
    assert.deepEqual(
      byTitle.map((p) => folded(p.title)),
      ['apple', 'apple', 'apple', 'banana bread', 'date', 'eclair', 'eclair', 'fig', 'zucchini'],
    );
    for (const [query, products] of Object.entries(expected)) {
      const ids = products.map((p) => p.id);
      for (const limit of [1, 2, 3, 100]) {
        assert.deepEqual(await walk(shop, `/products?${query}`, limit), ids, `${query}, limit ${limit}`);
      }
    }

    // With a filter: the same orders among the products in stock (a cursor per filter and sort).
    const inStock = (list: Listed[]) =>
      list.filter((p) => p.variants.reduce((sum, v) => sum + v.available, 0) > 0).map((p) => p.id);
    for (const query of ['sort=title_asc', 'sort=price_asc', 'sort=price_desc', 'sort=created_desc']) {
      assert.deepEqual(
        await walk(shop, `/products?stock=in_stock&${query}`, 2),
        inStock(expected[query]!),
        `in stock, ${query}`,
      );
    }

    const wrong = await t.admin(shop).get('/products?sort=price');
    assert.equal(wrong.statusCode, 400, wrong.body);
  });

  test('a cursor belongs to its sort and filters: one from another list is 400', async () => {
    const shop = await createTestStore(t);
    const cups: string[] = [];
    for (let i = 0; i < 5; i++)
      cups.push((await stocked(shop, `Cup ${i}`, [i], { price: 1000 * (i % 2) })).id);
    const created = await t.admin(shop).post('/collections', {
      title: 'Cups',
      slug: 'cups',
      kind: 'manual',
      productIds: cups,
    });
    const collection = created.json<{ id: string }>().id;
    const cursorOf = async (query: string): Promise<string> => {
      const page = (await t.admin(shop).get(`/products?limit=2&${query}`)).json<ProductPage>();
      assert.ok(page.nextCursor, query);
      return encodeURIComponent(page.nextCursor);
    };

    const sorts = ['created_desc', 'title_asc', 'price_asc', 'price_desc'];
    for (const sort of sorts) {
      const cursor = await cursorOf(`sort=${sort}`);
      const others = ['', 'sort=created_asc', ...sorts.filter((s) => s !== sort).map((s) => `sort=${s}`)];
      for (const other of others) await refusedCursor(shop, `${other}&cursor=${cursor}`);
      await refusedCursor(shop, `sort=${sort}&stock=in_stock&cursor=${cursor}`);
      await refusedCursor(shop, `sort=${sort}&collection=${collection}&cursor=${cursor}`);
      const next = await t.admin(shop).get(`/products?limit=2&sort=${sort}&cursor=${cursor}`);
      assert.equal(next.statusCode, 200, next.body);
      assert.equal(next.json<ProductPage>().items.length, 2);
    }
    // A filter's cursor: not without it, nor with another value.
    const low = await cursorOf('stock=low');
    await refusedCursor(shop, `cursor=${low}`);
    await refusedCursor(shop, `stock=out&cursor=${low}`);
    assert.equal((await t.admin(shop).get(`/products?stock=low&cursor=${low}`)).statusCode, 200);
    const inCollection = await cursorOf(`collection=${collection}`);
    await refusedCursor(shop, `cursor=${inCollection}`);
    await refusedCursor(shop, `collection=2b1e0b9e-7b36-4a57-9b8e-3f5a0e6f4c11&cursor=${inCollection}`);
    assert.equal(
      (await t.admin(shop).get(`/products?collection=${collection}&cursor=${inCollection}`)).statusCode,
      200,
    );

    // The default order is created_asc, named or not: the same cursors (so those handed out before
    // `sort` existed stay valid).
    const plain = await cursorOf('');
    assert.equal(await cursorOf('sort=created_asc'), plain);
    const next = await t.admin(shop).get(`/products?limit=2&sort=created_asc&cursor=${plain}`);
    assert.equal(next.statusCode, 200, next.body);
  });
});
