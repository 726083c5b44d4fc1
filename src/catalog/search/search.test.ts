/**
 * Storefront search (decision `storefront-search`): words by prefix, typos (search-typos.test.ts), case and accents folded, SKUs, tags,
 * option values and descriptions; each filter; each sort with its own cursor across pages; facets
 * that count the very list the same filters find; only active products; the read cache following
 * stock and status changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';
import { storefrontSearch, type CardPage } from '../../test/storefront-search.ts';

let t: TestApp;
let shop: TestStore;
const ids: Record<string, string> = {};

interface Facets {
  total: number;
  options: { name: string; values: { value: string; count: number }[] }[];
  price: { min: number | null; max: number | null };
  collections: { slug: string; title: string; count: number }[];
  available: { count: number };
}

async function product(title: string, body: Record<string, unknown>): Promise<string> {
  const response = await t.admin(shop).post('/products', { title, status: 'active', ...body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

const sized = (sizes: [string, number, number][], extra: Record<string, string> = {}, sku = '') =>
  sizes.map(([size, priceAmount, onHand]) => ({
    options: { Size: size, ...extra },
    priceAmount,
    onHand,
    ...(sku ? { sku: `${sku}-${size}` } : {}),
  }));

before(async () => {
  t = await startTestApp();
  shop = await createTestStore(t);
  ids.blue = await product('Blue Hoodie', {
    description: 'Warm cotton fleece.',
    tags: ['Winter'],
    options: [
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Colour', values: ['Blue'] },
    ],
    variants: sized(
      [
        ['S', 5000, 3],
        ['M', 5200, 0],
        ['L', 5400, 2],
      ],
      { Colour: 'Blue' },
      'HOOD-BLU',
    ),
  });
  ids.red = await product('Red Hoodie', {
    tags: ['winter'],
    options: [{ name: 'Size', values: ['M', 'L'] }],
    variants: sized([
      ['M', 4500, 5],
      ['L', 4500, 0],
    ]),
  });
  ids.tee = await product('Classic T-Shirt', {
    tags: ['Summer'],
    options: [{ name: 'Size', values: ['S', 'M'] }],
    variants: sized([
      ['S', 2000, 10],
      ['M', 2000, 10],
    ]),
  });
  ids.mug = await product('Café Mug', {
    description: 'A ceramic mug for hot drinks.',
    variants: [{ label: 'One size', priceAmount: 1500, onHand: 1, sku: 'MUG-1' }],
  });
  await product('Draft Hoodie', {
    status: 'draft',
    variants: [{ label: 'One', priceAmount: 100, onHand: 1 }],
  });
  const archived = await product('Archived Hoodie', {
    variants: [{ label: 'One', priceAmount: 100, onHand: 1 }],
  });
  assert.equal((await t.admin(shop).patch(`/products/${archived}`, { status: 'archived' })).statusCode, 200);
  const tops = await t.admin(shop).post('/collections', {
    title: 'Tops',
    slug: 'tops',
    kind: 'manual',
    productIds: [ids.blue, ids.tee],
  });
  assert.equal(tops.statusCode, 201, tops.body);
});
after(() => t.close());

const { search, titles, walk } = storefrontSearch({ storefront: (store) => t.storefront(store) }, () => shop);
const sorted = (list: string[]) => [...list].sort();

async function facets(query: string): Promise<Facets> {
  const response = await t.storefront(shop).get(`/products/facets?${query}`);
  assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
  return response.json<Facets>();
}

describe('storefront search (decision `storefront-search`)', () => {
  test('words: by prefix, with typos, any case and accents; titles, SKUs, tags, option values, descriptions', async () => {
    assert.deepEqual(sorted(await titles('q=hoodie')), ['Blue Hoodie', 'Red Hoodie']);
    assert.deepEqual(sorted(await titles('q=hodie')), ['Blue Hoodie', 'Red Hoodie'], 'a typo');
    assert.deepEqual(sorted(await titles('q=hoodies')), ['Blue Hoodie', 'Red Hoodie'], 'a plural, as a typo');
    assert.deepEqual(sorted(await titles('q=HOO')), ['Blue Hoodie', 'Red Hoodie'], 'a prefix, upper case');
    assert.deepEqual(await titles('q=blue%20hodie'), ['Blue Hoodie'], 'every word must match');
    assert.deepEqual(await titles('q=cafe'), ['Café Mug'], 'accents folded');
    assert.deepEqual(await titles('q=CAF%C3%89'), ['Café Mug'], 'upper case with an accent');
    assert.deepEqual(await titles('q=hood-blu-l'), ['Blue Hoodie'], 'a SKU');
    assert.deepEqual(await titles('q=mug-1'), ['Café Mug'], 'another SKU');
    assert.deepEqual(await titles('q=summer'), ['Classic T-Shirt'], 'a tag');
    assert.deepEqual(await titles('q=ceramic'), ['Café Mug'], 'the description');
    assert.deepEqual(await titles('q=t-shirt'), ['Classic T-Shirt']);
    assert.deepEqual(await titles('q=zebra'), []);
    assert.deepEqual(await titles('q=%21%21'), await titles(''), 'no words: no search by words');
  });

  test('SKUs follow their variants: added, changed, removed', async () => {
    const id = await product('Plain Cap', { variants: [{ label: 'One', priceAmount: 900, onHand: 1 }] });
    assert.deepEqual(await titles('q=capx-77'), []);
    const added = await t
      .admin(shop)
      .post(`/products/${id}/variants`, { label: 'Two', priceAmount: 900, onHand: 1, sku: 'CAPX-77' });
    assert.equal(added.statusCode, 201, added.body);
    await eventually(async () => assert.deepEqual(await titles('q=capx-77'), ['Plain Cap']));
    const variantId = added.json<{ id: string }>().id;
    assert.equal((await t.admin(shop).patch(`/variants/${variantId}`, { sku: 'CAPZ-88' })).statusCode, 200);
    await eventually(async () => assert.deepEqual(await titles('q=capz-88'), ['Plain Cap']));
    assert.deepEqual(await titles('q=capx-77'), []);
    const removed = await t.admin(shop).delete(`/variants/${variantId}`);
    assert.ok(removed.statusCode < 300, removed.body);
    await eventually(async () => assert.deepEqual(await titles('q=capz-88'), []));
    assert.equal((await t.admin(shop).patch(`/products/${id}`, { status: 'archived' })).statusCode, 200);
  });

  test('only active products: drafts and archived ones are never found', async () => {
    for (const query of ['q=hoodie', 'q=draft', 'q=archived', 'sort=newest', 'maxPrice=100', 'tag=winter']) {
      const found = await titles(query);
      assert.ok(!found.some((title) => /Draft|Archived/.test(title)), `${query}: ${found.join(', ')}`);
    }
    assert.equal((await facets('')).total, 4);
  });

  test('filters: collection, tag, price, stock and option values (a variant meets them together)', async () => {
    assert.deepEqual(sorted(await titles('collection=tops')), ['Blue Hoodie', 'Classic T-Shirt']);
    assert.deepEqual(await titles('collection=nowhere'), []);
    assert.deepEqual(sorted(await titles('tag=WINTER')), ['Blue Hoodie', 'Red Hoodie']);
    assert.deepEqual(await titles('minPrice=5000'), ['Blue Hoodie']);
    assert.deepEqual(sorted(await titles('maxPrice=2000')), ['Café Mug', 'Classic T-Shirt']);
    assert.deepEqual(sorted(await titles('minPrice=4000&maxPrice=4600')), ['Red Hoodie']);
    assert.deepEqual(sorted(await titles('option.Size=S')), ['Blue Hoodie', 'Classic T-Shirt']);
    assert.deepEqual(sorted(await titles('option.Size=S&option.Size=L')), [
      'Blue Hoodie',
      'Classic T-Shirt',
      'Red Hoodie',
    ]);
    assert.deepEqual(await titles('option.Colour=Blue'), ['Blue Hoodie']);
    // Blue Hoodie's M is sold out; Red Hoodie's L is.
    assert.deepEqual(sorted(await titles('option.Size=M&available=true')), ['Classic T-Shirt', 'Red Hoodie']);
    assert.deepEqual(sorted(await titles('option.Size=L&available=true')), ['Blue Hoodie']);
    assert.deepEqual(sorted(await titles('option.Size=M&maxPrice=5000')), ['Classic T-Shirt', 'Red Hoodie']);
    assert.deepEqual(sorted(await titles('q=hoodie&collection=tops')), ['Blue Hoodie']);
    assert.equal((await titles('available=false')).length, 4, 'false is no filter');
  });

  test('sorts: price, title, newest, oldest, relevance; without parameters the spec order', async () => {
    assert.deepEqual(await titles('sort=price_asc'), [
      'Café Mug',
      'Classic T-Shirt',
      'Red Hoodie',
      'Blue Hoodie',
    ]);
    assert.deepEqual(await titles('sort=price_desc'), [
      'Blue Hoodie',
      'Red Hoodie',
      'Classic T-Shirt',
      'Café Mug',
    ]);
    assert.deepEqual(await titles('sort=title_asc'), [
      'Blue Hoodie',
      'Café Mug',
      'Classic T-Shirt',
      'Red Hoodie',
    ]);
    assert.deepEqual(await titles('sort=oldest'), [
      'Blue Hoodie',
      'Red Hoodie',
      'Classic T-Shirt',
      'Café Mug',
    ]);
    assert.deepEqual(await titles('sort=newest'), [
      'Café Mug',
      'Classic T-Shirt',
      'Red Hoodie',
      'Blue Hoodie',
    ]);
    assert.deepEqual(await titles(''), await titles('sort=oldest'));
    assert.deepEqual(await titles('sort=relevance'), await titles('sort=oldest'), 'relevance without words');
    // "blue" is in Blue Hoodie's title and option values; Red Hoodie only matches "hoodie".
    assert.deepEqual(await titles('q=hoodie%20blue'), ['Blue Hoodie']);
    const ranked = await titles('q=hoodie');
    assert.deepEqual(sorted(ranked), ['Blue Hoodie', 'Red Hoodie']);
  });

  test('cursors: every sort pages through the same order one by one; a cursor belongs to its search', async () => {
    for (const sort of ['relevance', 'newest', 'oldest', 'price_asc', 'price_desc', 'title_asc']) {
      for (const query of [`sort=${sort}`, `sort=${sort}&q=hoodie`, `sort=${sort}&maxPrice=4500`]) {
        assert.deepEqual(await walk(query), await titles(query), query);
      }
    }
    const first = await search('sort=price_asc&limit=1');
    assert.ok(first.nextCursor);
    const cursor = encodeURIComponent(first.nextCursor);
    for (const other of [
      'sort=price_desc',
      'sort=title_asc',
      'sort=price_asc&q=hoodie',
      'sort=price_asc&tag=winter',
      '',
    ]) {
      const refused = await t.storefront(shop).get(`/products?${other}&limit=1&cursor=${cursor}`);
      assert.equal(refused.statusCode, 400, `${other}: ${refused.body}`);
    }
    const plain = await search('limit=1');
    const mixed = await t
      .storefront(shop)
      .get(`/products?sort=newest&cursor=${encodeURIComponent(plain.nextCursor!)}`);
    assert.equal(mixed.statusCode, 400, 'the plain list’s cursor is not a search’s');
  });

  test('facets count the products the same filters list', async () => {
    const all = await facets('');
    assert.equal(all.total, 4);
    assert.deepEqual(all.price, { min: 1500, max: 5400 });
    assert.deepEqual(all.available, { count: 4 });
    assert.deepEqual(all.collections, [{ slug: 'tops', title: 'Tops', count: 2 }]);
    const size = all.options.find((option) => option.name === 'Size');
    assert.deepEqual(size?.values, [
      { value: 'M', count: 3 },
      { value: 'L', count: 2 },
      { value: 'S', count: 2 },
    ]);
    assert.deepEqual(all.options.find((option) => option.name === 'Colour')?.values, [
      { value: 'Blue', count: 1 },
    ]);

    for (const query of [
      '',
      'q=hoodie',
      'collection=tops',
      'tag=winter',
      'maxPrice=4600',
      'q=hodie&minPrice=1',
    ]) {
      const counted = await facets(query);
      const listed = await titles(`${query}&limit=100`);
      assert.equal(counted.total, listed.length, query);
      for (const option of counted.options)
        for (const { value, count } of option.values) {
          const withValue = await titles(
            `${query}&option.${option.name}=${encodeURIComponent(value)}&limit=100`,
          );
          assert.equal(count, withValue.length, `${query} ${option.name}=${value}`);
        }
      for (const collection of query.includes('collection=') ? [] : counted.collections)
        assert.equal(
          collection.count,
          (await titles(`${query}&collection=${collection.slug}&limit=100`)).length,
        );
      assert.equal(
        counted.available.count,
        (await titles(`${query}&available=true&limit=100`)).length,
        query,
      );
    }
    const none = await facets('q=zebra');
    assert.deepEqual(none, {
      total: 0,
      options: [],
      price: { min: null, max: null },
      collections: [],
      available: { count: 0 },
    });
  });

  test('bad parameters are 400 problems naming them', async () => {
    for (const query of [
      'sort=cheapest',
      'minPrice=-1',
      'minPrice=1e3',
      'minPrice=500&maxPrice=100',
      'available=maybe',
      'colour=blue',
      `q=${'x'.repeat(201)}`,
      `option.Size=${'x'.repeat(101)}`,
    ]) {
      const response = await t.storefront(shop).get(`/products?${query}`);
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.match(response.headers['content-type'] ?? '', /problem\+json/);
    }
    const facetsBad = await t.storefront(shop).get('/products/facets?sort=newest');
    assert.equal(facetsBad.statusCode, 400, 'facets take no sort');
  });

  test('another store’s products are never found', async () => {
    const other = await createTestStore(t);
    const response = await t.storefront(other).get('/products?q=hoodie');
    assert.deepEqual(response.json<CardPage>().items, []);
    assert.equal((await t.storefront(other).get('/products/facets')).json<Facets>().total, 0);
  });

  test('cached, and current within a second after stock and status change', async () => {
    const query = 'q=mug&available=true';
    assert.deepEqual(await titles(query), ['Café Mug']);
    const again = await t.storefront(shop).get(`/products?${query}`);
    const etag = again.headers.etag;
    assert.ok(etag);
    const revalidated = await t.storefront(shop).get(`/products?${query}`, { 'if-none-match': etag });
    assert.equal(revalidated.statusCode, 304);
    const mug = await t.admin(shop).get(`/products/${ids.mug}`);
    const variantId = mug.json<{ variants: { id: string }[] }>().variants[0]!.id;
    const stocked = await t.admin(shop).patch(`/variants/${variantId}`, { onHand: 0 });
    assert.ok(stocked.statusCode < 300, stocked.body);
    await eventually(async () => assert.deepEqual(await titles(query), []));
    await eventually(async () => assert.equal((await facets('q=mug')).available.count, 0));
    assert.equal((await t.admin(shop).patch(`/products/${ids.mug}`, { status: 'draft' })).statusCode, 200);
    await eventually(async () => assert.deepEqual(await titles('q=mug'), []));
  });
});

async function eventually(check: () => Promise<void>, ms = 1500): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
