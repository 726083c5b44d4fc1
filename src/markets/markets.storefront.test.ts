/**
 * The store's markets on the Storefront API (`GET /storefront/v1/store/markets`, decision
 * `markets`): what a shop's country selector needs (countries, currency, tax display, which is the
 * default), from the read cache, current after every change of a market or of the store's setting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface StorefrontMarket {
  countries: string[];
  currency: string;
  pricesIncludeTax: boolean;
  default: boolean;
}

async function markets(shop: TestStore): Promise<StorefrontMarket[]> {
  const response = await t.storefront(shop).get('/store/markets');
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ items: StorefrontMarket[] }>().items;
}

async function created(response: Promise<{ statusCode: number; body: string }>): Promise<{ id: string }> {
  const answer = await response;
  assert.ok(answer.statusCode === 200 || answer.statusCode === 201, answer.body);
  return JSON.parse(answer.body) as { id: string };
}

const defaultUsd = { countries: [], currency: 'USD', pricesIncludeTax: false, default: true };

describe('GET /storefront/v1/store/markets', () => {
  test('a store without markets: its default market alone, with no id, name, rate or rule', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const response = await t.storefront(shop).get('/store/markets');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { items: [defaultUsd] });
  });

  test('the default first, then each market with its countries, currency and tax display', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    await created(
      admin.post('/markets', {
        name: 'Europe',
        countries: ['FR', 'de'],
        currency: 'EUR',
        exchangeRate: '0.92',
        rounding: 'to_99',
        pricesIncludeTax: true,
      }),
    );
    await created(
      admin.post('/markets', { name: 'Japan', countries: ['JP'], currency: 'JPY', exchangeRate: '150' }),
    );
    assert.deepEqual(await markets(shop), [
      defaultUsd,
      { countries: ['DE', 'FR'], currency: 'EUR', pricesIncludeTax: true, default: false },
      { countries: ['JP'], currency: 'JPY', pricesIncludeTax: false, default: false },
    ]);

    // Another store sees only its own.
    const other = await createTestStore(t, { currency: 'GBP' });
    assert.deepEqual(await markets(other), [{ ...defaultUsd, currency: 'GBP' }]);
  });

  test('served from the read cache with an ETag, and current after each change', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    // Nothing is kept for a store before its versions were read once.
    await t.storefront(shop).get('/store/markets');
    await t.app.readCache!.recheck();
    const first = await t.storefront(shop).get('/store/markets');
    const etag = first.headers.etag;
    assert.equal(typeof etag, 'string');
    assert.match(String(first.headers['cache-control']), /public/);
    const hits = t.app.readCache!.stats().hits;
    const again = await t.storefront(shop).get('/store/markets', { 'if-none-match': String(etag) });
    assert.equal(again.statusCode, 304);
    assert.equal(t.app.readCache!.stats().hits, hits + 1, 'the second read is the cache’s');

    const europe = await created(
      admin.post('/markets', { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.9' }),
    );
    assert.deepEqual(await markets(shop), [
      defaultUsd,
      { countries: ['DE'], currency: 'EUR', pricesIncludeTax: false, default: false },
    ]);

    await created(admin.patch(`/markets/${europe.id}`, { countries: ['AT', 'DE'], pricesIncludeTax: true }));
    assert.deepEqual((await markets(shop))[1], {
      countries: ['AT', 'DE'],
      currency: 'EUR',
      pricesIncludeTax: true,
      default: false,
    });

    // The default market's tax display is the store setting.
    assert.equal((await admin.put('/settings', { pricesIncludeTax: true })).statusCode, 200);
    assert.deepEqual((await markets(shop))[0], { ...defaultUsd, pricesIncludeTax: true });

    assert.equal((await admin.delete(`/markets/${europe.id}`)).statusCode, 204);
    assert.deepEqual(await markets(shop), [{ ...defaultUsd, pricesIncludeTax: true }]);
  });

  test('needs a publishable key; the store summary keeps exactly its fields', async () => {
    const shop = await createTestStore(t, { currency: 'EUR' });
    const anonymous = await t.app.inject({ method: 'GET', url: '/storefront/v1/store/markets' });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    const store = await t.storefront(shop).get('/store');
    assert.deepEqual(Object.keys(store.json<object>()).sort(), ['currency', 'name', 'slug']);
  });
});
