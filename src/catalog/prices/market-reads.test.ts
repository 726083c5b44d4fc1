/**
 * Catalog reads in a market (decisions `markets`, `market-prices`, `market-cards`): `?country=`
 * prices cards, details, search (filters, sorts, facets) and collections in the market's currency,
 * explicit prices win over converted ones, card prices follow every change, and a read without a
 * country is answered exactly as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';
import { ok } from '../../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Card {
  id: string;
  title: string;
  priceAmount: number;
  compareAtAmount: number | null;
  currency: string;
}
interface Detail extends Card {
  variants: { id: string; priceAmount: number; compareAtAmount: number | null }[];
}

/**
 * A USD store: a shirt at 24.00 (compare-at 30.00) and 30.00, a mug at 10.00 with an explicit
 * 8.99 EUR price; a collection of both; Europe (DE, FR) in EUR at 0.92 rounded to .99; Japan in JPY
 * at 150.
 */
async function store() {
  const shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const shirt = await ok<Detail>(
    admin.post('/products', {
      title: 'Shirt',
      status: 'active',
      options: [{ name: 'Size', values: ['S', 'L'] }],
      variants: [
        { options: { Size: 'S' }, priceAmount: 2400, compareAtAmount: 3000, onHand: 5 },
        { options: { Size: 'L' }, priceAmount: 3000, onHand: 5 },
      ],
    }),
    201,
  );
  const mug = await ok<Detail>(
    admin.post('/products', {
      title: 'Mug',
      status: 'active',
      variants: [{ label: 'Mug', priceAmount: 1000, onHand: 5, prices: [{ currency: 'eur', amount: 899 }] }],
    }),
    201,
  );
  await ok(
    admin.post('/collections', {
      title: 'All',
      slug: 'all',
      kind: 'manual',
      productIds: [shirt.id, mug.id],
    }),
    201,
  );
  const europe = await ok<{ id: string }>(
    admin.post('/markets', {
      name: 'Europe',
      countries: ['DE', 'FR'],
      currency: 'EUR',
      exchangeRate: '0.92',
      rounding: 'to_99',
    }),
    201,
  );
  const japan = await ok<{ id: string }>(
    admin.post('/markets', { name: 'Japan', countries: ['JP'], currency: 'JPY', exchangeRate: '150' }),
    201,
  );
  return { shop, shirt, mug, europe, japan };
}

const cards = (shop: TestStore, query: string) =>
  ok<{ items: Card[] }>(t.storefront(shop).get(`/products${query}`)).then((page) => page.items);
const brief = (items: Card[]) => items.map((c) => [c.title, c.priceAmount, c.compareAtAmount, c.currency]);

describe('catalog reads in a market', () => {
  test('cards, details and handles in the market’s currency; explicit prices win', async () => {
    const { shop, shirt, mug } = await store();
    // 2400 × 0.92 = 2208 → 22.99; its compare-at 3000 × 0.92 = 2760 → 27.99; the mug's own 8.99.
    assert.deepEqual(brief(await cards(shop, '?country=DE')), [
      ['Shirt', 2299, 2799, 'EUR'],
      ['Mug', 899, null, 'EUR'],
    ]);
    // JPY has no minor unit: 2400 cents × 150 = ¥3,600.
    assert.deepEqual(brief(await cards(shop, '?country=jp')), [
      ['Shirt', 3600, 4500, 'JPY'],
      ['Mug', 1500, null, 'JPY'],
    ]);
    const detail = await ok<Detail>(t.storefront(shop).get(`/products/${shirt.id}?country=FR`));
    assert.deepEqual(
      [detail.currency, detail.priceAmount, detail.variants.map((v) => [v.priceAmount, v.compareAtAmount])],
      [
        'EUR',
        2299,
        [
          [2299, 2799],
          [2799, null],
        ],
      ],
    );
    const byHandle = await ok<Detail>(t.storefront(shop).get(`/products/handle/mug?country=DE`));
    assert.deepEqual([byHandle.id, byHandle.priceAmount, byHandle.currency], [mug.id, 899, 'EUR']);
  });

  test('a read without a country, or in the default market, is answered as before markets', async () => {
    const { shop, shirt } = await store();
    const storefront = t.storefront(shop);
    const plain = await storefront.get('/products');
    const us = await storefront.get('/products?country=US');
    assert.deepEqual(JSON.parse(us.body), JSON.parse(plain.body));
    assert.deepEqual(brief((JSON.parse(plain.body) as { items: Card[] }).items), [
      ['Shirt', 2400, 3000, 'USD'],
      ['Mug', 1000, null, 'USD'],
    ]);
    const detail = await ok<Detail>(storefront.get(`/products/${shirt.id}`));
    assert.deepEqual(
      detail.variants.map((v) => v.priceAmount),
      [2400, 3000],
    );
    const facets = await ok<Record<string, unknown>>(storefront.get('/products/facets'));
    assert.equal('currency' in facets, false, 'no new field without a country');
  });

  test('search filters, sorts and facets by the market’s prices', async () => {
    const { shop } = await store();
    assert.deepEqual(
      (await cards(shop, '?country=DE&sort=price_asc')).map((c) => c.title),
      ['Mug', 'Shirt'],
    );
    // In EUR the shirt's S is 22.99 and its L 27.99: 25.00–28.00 finds the shirt by its L.
    assert.deepEqual(
      (await cards(shop, '?country=DE&minPrice=2500&maxPrice=2800')).map((c) => c.title),
      ['Shirt'],
    );
    assert.deepEqual(
      (await cards(shop, '?minPrice=2500&maxPrice=2800')).map((c) => c.title),
      [],
    );
    // The filter reads the mug's explicit 8.99 (converted, it would be 9.99).
    assert.deepEqual(
      (await cards(shop, '?country=DE&maxPrice=900')).map((c) => c.title),
      ['Mug'],
    );
    const facets = await ok<{ price: { min: number; max: number }; currency: string }>(
      t.storefront(shop).get('/products/facets?country=DE'),
    );
    assert.deepEqual([facets.price, facets.currency], [{ min: 899, max: 2799 }, 'EUR']);
  });

  test('collections: their cards and price range in the market', async () => {
    const { shop } = await store();
    const storefront = t.storefront(shop);
    const members = await ok<{ items: Card[] }>(storefront.get('/collections/all/products?country=DE'));
    assert.deepEqual(brief(members.items), [
      ['Shirt', 2299, 2799, 'EUR'],
      ['Mug', 899, null, 'EUR'],
    ]);
    const card = await ok<{ priceRange: { min: number; max: number } }>(
      storefront.get('/collections/all?country=DE'),
    );
    assert.deepEqual(card.priceRange, { min: 899, max: 2299 });
  });

  test('card prices follow a variant’s price, its explicit prices and the market’s rate', async () => {
    const { shop, shirt, mug, europe } = await store();
    const admin = t.admin(shop);
    await ok(admin.patch(`/variants/${shirt.variants[0]!.id}`, { priceAmount: 2000 }));
    assert.deepEqual(brief(await cards(shop, '?country=DE')), [
      ['Shirt', 1899, 2799, 'EUR'],
      ['Mug', 899, null, 'EUR'],
    ]);
    await ok(admin.patch(`/variants/${mug.variants[0]!.id}`, { prices: [] }));
    await ok(admin.patch(`/markets/${europe.id}`, { exchangeRate: '1.1', rounding: 'none' }));
    assert.deepEqual(brief(await cards(shop, '?country=DE')), [
      ['Shirt', 2200, 3300, 'EUR'],
      ['Mug', 1100, null, 'EUR'],
    ]);
    await ok(
      admin.patch(`/variants/${shirt.variants[1]!.id}`, {
        prices: [{ currency: 'EUR', amount: 1500, compareAtAmount: 2000 }],
      }),
    );
    assert.deepEqual(brief(await cards(shop, '?country=DE')), [
      ['Shirt', 1500, 2000, 'EUR'],
      ['Mug', 1100, null, 'EUR'],
    ]);
    const variant = await ok<{ prices: unknown[] }>(admin.get(`/products/${shirt.id}`)).then(
      (p) => (p as unknown as Detail & { variants: { prices: unknown[] }[] }).variants[1]!.prices,
    );
    assert.deepEqual(variant, [{ currency: 'EUR', amount: 1500, compareAtAmount: 2000 }]);
  });

  test('a bad country is 400; a price in the store’s own currency is refused', async () => {
    const { shop, shirt } = await store();
    for (const country of ['ZZ', '1A'])
      assert.equal((await t.storefront(shop).get(`/products?country=${country}`)).statusCode, 400);
    const answer = await t.admin(shop).patch(`/variants/${shirt.variants[0]!.id}`, {
      prices: [{ currency: 'USD', amount: 100 }],
    });
    assert.equal(answer.statusCode, 400, answer.body);
    assert.match(answer.body, /prices\/0\/currency/);
  });
});
