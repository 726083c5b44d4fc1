/**
 * Markets through the admin API (decision `markets`): the default market every store has, countries
 * in one market at most, ISO 4217 currencies with their minor units, rates and rounding rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { ok } from '../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Problem {
  title: string;
  detail: string;
  errors: { pointer: string }[];
}

interface Market {
  id: string;
  name: string;
  default: boolean;
  countries: string[];
  currency: string;
  pricesIncludeTax: boolean;
  exchangeRate: string;
  rounding: string;
  createdAt: string;
  updatedAt: string;
}

describe('markets', () => {
  test('every store has its default market, in its currency, holding every other country', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const { items } = await ok<{ items: Market[] }>(t.admin(shop).get('/markets'));
    assert.equal(items.length, 1);
    const { id, createdAt, updatedAt, ...rest } = items[0]!;
    assert.deepEqual(rest, {
      name: 'Default',
      default: true,
      countries: [],
      currency: 'USD',
      pricesIncludeTax: false,
      exchangeRate: '1',
      rounding: 'none',
    });
    assert.ok(createdAt && updatedAt);
    assert.equal(id, shop.store.id);
  });

  test('a market takes countries, a currency, a rate and a rule; a country is in one market at most', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    const eu = await ok<Market>(
      admin.post('/markets', {
        name: 'Europe',
        countries: ['de', 'FR', 'DE'],
        currency: 'eur',
        exchangeRate: '0.920',
        rounding: 'to_99',
        pricesIncludeTax: true,
      }),
      201,
    );
    assert.deepEqual(
      [eu.name, eu.countries, eu.currency, eu.exchangeRate, eu.rounding, eu.pricesIncludeTax, eu.default],
      ['Europe', ['DE', 'FR'], 'EUR', '0.92', 'to_99', true, false],
    );
    const clash = await admin.post('/markets', {
      name: 'Germany',
      countries: ['DE'],
      currency: 'EUR',
      exchangeRate: '0.9',
    });
    assert.equal(clash.statusCode, 409, clash.body);
    assert.equal((JSON.parse(clash.body) as Problem).title, 'market_conflict');
    assert.match((JSON.parse(clash.body) as Problem).detail, /DE is in Europe/);

    const japan = await ok<Market>(
      admin.post('/markets', { name: 'Japan', countries: ['JP'], currency: 'JPY', exchangeRate: '150' }),
      201,
    );
    const moved = await admin.patch(`/markets/${japan.id}`, { countries: ['JP', 'FR'] });
    assert.equal(moved.statusCode, 409, moved.body);
    const patched = await ok<Market>(
      admin.patch(`/markets/${eu.id}`, { countries: ['DE'], rounding: 'none' }),
    );
    assert.deepEqual([patched.countries, patched.rounding], [['DE'], 'none']);
    await ok(admin.patch(`/markets/${japan.id}`, { countries: ['JP', 'FR'] }));

    const listed = await ok<{ items: Market[] }>(admin.get('/markets'));
    assert.deepEqual(
      listed.items.map((market) => [market.name, market.countries]),
      [
        ['Default', []],
        ['Europe', ['DE']],
        ['Japan', ['FR', 'JP']],
      ],
    );
    assert.equal((await admin.delete(`/markets/${japan.id}`)).statusCode, 204);
    assert.equal((await admin.get(`/markets/${japan.id}`)).statusCode, 404);
    // Its countries are free again.
    await ok(
      admin.post('/markets', { name: 'France', countries: ['FR'], currency: 'EUR', exchangeRate: '0.9' }),
      201,
    );
  });

  test('bad input is a 400 at its field; the default market changes only its name and tax setting', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    const bad = async (body: object, pointer: string) => {
      const answer = await admin.post('/markets', body);
      assert.equal(answer.statusCode, 400, answer.body);
      const pointers = (JSON.parse(answer.body) as Problem).errors.map((e) => e.pointer);
      assert.ok(pointers.includes(pointer), `${pointer} in ${answer.body}`);
    };
    const base = { name: 'X', countries: ['DE'], currency: 'EUR', exchangeRate: '0.9' };
    await bad({ ...base, currency: 'ABC' }, '/currency');
    await bad({ ...base, currency: 'XAU' }, '/currency');
    await bad({ ...base, countries: ['QQ'] }, '/countries/0');
    await bad({ ...base, exchangeRate: '0' }, '/exchangeRate');
    await bad({ ...base, exchangeRate: '1e3' }, '/exchangeRate');
    await bad({ ...base, exchangeRate: undefined }, '/exchangeRate');
    await bad({ ...base, rounding: 'up' }, '/rounding');
    await bad({ ...base, extra: 1 }, '/extra');

    const refused = await admin.patch(`/markets/${shop.store.id}`, { currency: 'EUR', countries: ['DE'] });
    assert.equal(refused.statusCode, 400, refused.body);
    const renamed = await ok<Market>(
      admin.patch(`/markets/${shop.store.id}`, { name: 'United States', pricesIncludeTax: true }),
    );
    assert.deepEqual([renamed.name, renamed.pricesIncludeTax], ['United States', true]);
    const settings = await ok<{ pricesIncludeTax: boolean }>(admin.get('/settings'));
    assert.equal(settings.pricesIncludeTax, true, 'the default market’s setting is the store’s');
    const undeletable = await admin.delete(`/markets/${shop.store.id}`);
    assert.equal(undeletable.statusCode, 409, undeletable.body);
    assert.equal((JSON.parse(undeletable.body) as Problem).title, 'market_is_default');
  });
});
