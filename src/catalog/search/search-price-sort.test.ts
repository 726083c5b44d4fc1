/**
 * A search sorted by price (decision `price-sort-walks-an-index`): in the default market and in
 * another, every page once, in the card price's order (no price as 0) with ties broken by id,
 * bounded by a maximum price, and a plan that walks the index of migration 0053 instead of sorting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';
import { ok } from '../../test/answers.ts';
import { after as afterPosition, before as beforePosition } from '../../db/keyset.ts';
import { marketOfRead, readPricing } from '../prices/prices.ts';
import { searchCardsQuery, type SearchFilter, type SearchSort } from './search.repository.ts';

let t: TestApp;
let shop: TestStore;

interface Card {
  id: string;
  title: string;
  priceAmount: number | null;
}

before(async () => {
  t = await startTestApp();
  shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const product = (title: string, prices: number[], eur?: number) =>
    ok(
      admin.post('/products', {
        title,
        status: 'active',
        variants: prices.map((priceAmount, i) => ({
          label: `${title} ${i}`,
          priceAmount,
          onHand: 5,
          ...(eur === undefined ? {} : { prices: [{ currency: 'EUR', amount: eur }] }),
        })),
      }),
      201,
    );
  // Ties (Apple and Cherry, and in EUR Grape too), a card below a dearer variant (Banana), an
  // explicit EUR price far below the converted one (Fig).
  await product('Apple', [1000]);
  await product('Banana', [2000, 500]);
  await product('Cherry', [1000]);
  await product('Elder', [3000]);
  await product('Fig', [1500], 100);
  const europe = { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.92' };
  await ok(admin.post('/markets', { ...europe, rounding: 'to_99' }), 201);
  // Made after the market: its card row there is written with it.
  await product('Grape', [1000]);
});
after(() => t.close());

/** Every page of a search, two cards at a time, following the cursors. */
async function walk(query: string): Promise<Card[]> {
  const seen: Card[] = [];
  let cursor: string | null = null;
  do {
    const response = await t
      .storefront(shop)
      .get(`/products?${query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json<{ items: Card[]; nextCursor: string | null }>();
    seen.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null && seen.length < 20);
  return seen;
}

const titles = (cards: Card[]) => cards.map((card) => card.title);
const byPrice = (a: Card, b: Card) =>
  (a.priceAmount ?? 0) - (b.priceAmount ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe('search sorted by price', () => {
  // A minimum price keeps a product by a dearer variant than its card's (Banana); Fig is 15.00 in
  // USD, 1.00 in EUR.
  for (const [market, country, dearer] of [
    ['the default market', '', ['Banana', 'Fig', 'Elder']],
    ['another market', '&country=DE', ['Banana', 'Elder']],
  ] as const) {
    test(`${market}: every product once, by card price then id, both ways; a maximum price bounds it`, async () => {
      const all = await walk(`sort=oldest${country}`);
      assert.equal(all.length, 6);
      const cheapest = [...all].sort(byPrice);
      assert.deepEqual(titles(await walk(`sort=price_asc${country}`)), titles(cheapest));
      assert.deepEqual(titles(await walk(`sort=price_desc${country}`)), titles([...cheapest].reverse()));
      const atMost = cheapest.filter((card) => card.priceAmount !== null && card.priceAmount <= 1000);
      assert.ok(atMost.length >= 3 && atMost.length < 6, JSON.stringify(atMost));
      assert.deepEqual(titles(await walk(`sort=price_asc&maxPrice=1000${country}`)), titles(atMost));
      assert.deepEqual(
        titles(await walk(`sort=price_desc&maxPrice=1000${country}`)),
        titles([...atMost].reverse()),
      );
      assert.deepEqual(titles(await walk(`sort=price_asc&minPrice=1001${country}`)), dearer);
      assert.deepEqual(titles(await walk(`sort=price_desc&minPrice=1001${country}`)), [...dearer].reverse());
    });
  }

  test('the cards are in the market’s prices', async () => {
    const cards = await walk('sort=price_asc&country=DE');
    assert.deepEqual(
      cards.map((card) => [card.title, card.priceAmount]),
      [['Fig', 100], ['Banana', 499], ...cards.slice(2, 5).map((card) => [card.title, 999]), ['Elder', 2799]],
    );
    assert.deepEqual(titles(cards.slice(2, 5)).sort(), ['Apple', 'Cherry', 'Grape']);
  });

  /** The plan of a page of a whole-catalog price search, with sorting disabled (so only an index can order). */
  async function plan(
    sort: SearchSort,
    country: string | undefined,
    filter: Partial<SearchFilter>,
    cursor = false,
  ) {
    const db = t.deps.db;
    const market = await marketOfRead({ db }, shop.store.id, country);
    const pricing = await readPricing({ db }, shop.store.id, market);
    const asked: SearchFilter = { words: [], corrections: [], options: [], pricing, ...filter };
    const descending = sort === 'price_desc';
    let query = searchCardsQuery(db, shop.store.id, asked, sort)
      .orderBy(sql.ref('s.sort_key'), descending ? 'desc' : 'asc')
      .orderBy(sql.ref('s.id'), descending ? 'desc' : 'asc');
    if (cursor)
      query = query.where(
        (descending ? beforePosition : afterPosition)(
          ['s.sort_key', 's.id'],
          [999, '00000000-0000-0000-0000-000000000000'],
        ),
      );
    const compiled = query.limit(21).compile();
    return db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_sort = off`.execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>({
        ...compiled,
        sql: `EXPLAIN ${compiled.sql}`,
      });
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  test('a page walks the card price index: no sort, the bound and the cursor in its condition', async () => {
    for (const [country, index] of [
      [undefined, 'products_active_price_sort_idx'],
      ['DE', 'market_card_prices_sort_idx'],
    ] as const) {
      for (const sort of ['price_asc', 'price_desc'] as const) {
        for (const cursor of [false, true]) {
          const text = await plan(sort, country, { maxPrice: 2000 }, cursor);
          assert.doesNotMatch(text, /\bSort\b/, text);
          assert.match(text, new RegExp(`Index Scan(?: Backward)? using ${index}`), text);
          assert.match(text, /Index Cond: .*COALESCE\(price_amount, '?0'?(::bigint)?\) <= /, text);
          if (cursor) assert.match(text, /Index Cond: .*ROW\(COALESCE\(price_amount/, text);
        }
      }
      // A minimum price, cheapest first: the products the filter keeps are sorted (the walk would
      // begin with the very cards it turns away).
      assert.match(await plan('price_asc', country, { minPrice: 1001 }), /\bSort\b/);
    }
  });
});
