/**
 * Corrected queries in storefront search (decision `typos-from-the-store-dictionary`): a word found
 * as typed ranks above its corrections and a known word is never corrected; filters, sorts, pages
 * and facets hold for a corrected query; the store's dictionary follows every product write in its
 * transaction; migration 0038 fills the dictionaries of existing stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../db/database.ts';
import { migrateTo, migrateToLatest } from '../../db/migrate.ts';
import { pgliteOptions } from '../../db/pglite.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';
import { storefrontSearch } from '../../test/storefront-search.ts';

let t: TestApp;
let shop: TestStore;

async function product(title: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await t.admin(shop).post('/products', {
    title,
    status: 'active',
    variants: [{ label: 'One', priceAmount: 1000, onHand: 1 }],
    ...body,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

const { search, titles, walk } = storefrontSearch({ storefront: (store) => t.storefront(store) }, () => shop);

/** The words of the store's dictionary that begin with `prefix`, with their counts. */
async function dictionary(prefix: string): Promise<Record<string, number>> {
  const rows = await t.db.kysely
    .selectFrom('search_words')
    .select(['word', 'products'])
    .where('store_id', '=', shop.store.id)
    .where('word', 'like', `${prefix}%`)
    .orderBy('word')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.word, row.products]));
}

const sized = (sizes: [string, number, number][]) => ({
  options: [{ name: 'Size', values: sizes.map(([size]) => size) }],
  variants: sizes.map(([size, priceAmount, onHand]) => ({ options: { Size: size }, priceAmount, onHand })),
});

before(async () => {
  t = await startTestApp();
  shop = await createTestStore(t);
  await product('Wool Sweater');
  await product('Plain Scarf', { description: 'Knitted like a sweter, softer.' });
  await product(
    'Linen Shirt',
    sized([
      ['S', 4000, 2],
      ['M', 4200, 0],
    ]),
  );
  await product(
    'Linen Trousers',
    sized([
      ['M', 6000, 1],
      ['L', 6000, 1],
    ]),
  );
  await product('Linen Napkins', { variants: [{ label: 'Set', priceAmount: 2500, onHand: 4 }] });
});
after(() => t.close());

describe('corrected queries', () => {
  test('a word found as typed ranks above its corrections; a known word is never corrected', async () => {
    assert.deepEqual(await titles('q=sweter'), ['Plain Scarf', 'Wool Sweater'], 'exact (description) first');
    assert.deepEqual(await titles('q=sweater'), ['Wool Sweater'], 'a known word finds only itself');
    assert.deepEqual(await titles('q=swaeter'), ['Wool Sweater'], 'a swap is one typo');
    assert.deepEqual(await titles('q=lnien%20sihrt'), ['Linen Shirt'], 'every word, each corrected');
    assert.deepEqual(await titles('q=wol'), [], 'three letters are never corrected');
  });

  test('filters, sorts, pages and facets hold for a corrected query', async () => {
    const all = ['Linen Napkins', 'Linen Shirt', 'Linen Trousers'];
    assert.deepEqual((await titles('q=lnien')).sort(), all);
    assert.deepEqual(await walk('q=lnien&sort=price_asc'), [
      'Linen Napkins',
      'Linen Shirt',
      'Linen Trousers',
    ]);
    assert.deepEqual((await walk('q=lnien')).sort(), all, 'relevance, page by page');
    assert.deepEqual(await titles('q=lnien&option.Size=M&available=true'), ['Linen Trousers']);
    assert.deepEqual((await titles('q=lnien&maxPrice=4100')).sort(), ['Linen Napkins', 'Linen Shirt']);
    const facets = await t.storefront(shop).get('/products/facets?q=lnien');
    assert.equal(facets.statusCode, 200, facets.body);
    const body = facets.json<{
      total: number;
      options: { name: string; values: { value: string; count: number }[] }[];
    }>();
    assert.equal(body.total, 3);
    assert.deepEqual(body.options.find((option) => option.name === 'Size')?.values, [
      { value: 'M', count: 2 },
      { value: 'L', count: 1 },
      { value: 'S', count: 1 },
    ]);
    const page = await search('q=lnien&limit=1');
    const other = await t
      .storefront(shop)
      .get(`/products?q=linen&limit=1&cursor=${encodeURIComponent(page.nextCursor!)}`);
    assert.equal(other.statusCode, 400, 'a corrected search’s cursor belongs to it');
  });

  test('the dictionary follows product writes in their transaction', async () => {
    assert.deepEqual(await titles('q=blazr'), []);
    const id = await product('Velvet Blazer', { tags: ['Evening'] });
    assert.deepEqual(await titles('q=blazr'), ['Velvet Blazer'], 'a new product at once');
    assert.deepEqual(await titles('q=evneing'), ['Velvet Blazer'], 'its tags too');
    assert.deepEqual(await dictionary('velv'), { velvet: 1 });
    await product('Velvet Scrunchie');
    assert.deepEqual(await dictionary('velv'), { velvet: 2 });

    const renamed = await t.admin(shop).patch(`/products/${id}`, { title: 'Velvet Jacket' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(await titles('q=blazr'), [], 'the old title word is gone');
    assert.deepEqual(await titles('q=jakcet'), ['Velvet Jacket']);
    assert.deepEqual(await dictionary('bla'), {});

    const archived = await t.admin(shop).patch(`/products/${id}`, { status: 'archived' });
    assert.equal(archived.statusCode, 200, archived.body);
    assert.deepEqual(await titles('q=jakcet'), [], 'an archived product’s words are gone');
    assert.deepEqual(await dictionary('velv'), { velvet: 1 });
    const deleted = await t.admin(shop).delete(`/products/${id}`);
    assert.ok(deleted.statusCode < 300, deleted.body);
    assert.deepEqual(await dictionary('velv'), { velvet: 1 }, 'deleting an archived product counts nothing');
  });
});

describe('0038: the dictionaries of existing stores', () => {
  test('are filled from their active products', async () => {
    const pglite = await PGlite.create({ ...pgliteOptions });
    const db = await openDatabase({ databaseUrl: null, dataDir: '', pglite });
    const k = db.kysely as Kysely<unknown>;
    try {
      await migrateTo(k, '0035_endpoint_event_watermark');
      const store = '6f1c2f7e-0000-4000-8000-000000000038';
      await sql`INSERT INTO stores (id, name, slug, currency) VALUES (${store}, 'Old shop', 'old-shop', 'EUR')`.execute(
        k,
      );
      await sql`
        INSERT INTO products (store_id, title, handle, status, tags, options, price_amount)
        VALUES (${store}, 'Linen Shirt', 'linen-shirt', 'active', '{Summer}', '[{"name":"Colour","values":["Natural"]}]', 100),
               (${store}, 'Linen Trousers 2', 'linen-trousers', 'active', '{}', '[]', 100),
               (${store}, 'Draft Blazer', 'draft-blazer', 'draft', '{}', '[]', 100)`.execute(k);
      await migrateToLatest(k);
      const { rows } = await sql<{ word: string; products: number }>`
        SELECT word, products FROM search_words WHERE store_id = ${store} ORDER BY word`.execute(k);
      assert.deepEqual(rows, [
        { word: 'linen', products: 2 },
        { word: 'natural', products: 1 },
        { word: 'shirt', products: 1 },
        { word: 'summer', products: 1 },
        { word: 'trousers', products: 1 },
      ]);
    } finally {
      await db.close();
    }
  });
});
