/**
 * Which price-list entries apply (`activePriceListPrices`, decision `price-lists`): in force at the
 * moment asked ([startsAt, endsAt)), in the market asked or every market, for the buyer's groups or
 * every buyer, in the currency asked; ranked as the price function takes them (sales lowest first,
 * then overrides newest first). The lists are made through the Admin API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../../test/harness.ts';
import { activePriceListPrices } from './price-lists.ts';
import { ok } from '../../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

const HOUR = 3_600_000;

describe('the price-list entries that apply', () => {
  test('dates, markets, groups and currency decide; sales lowest first, then overrides newest first', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    const product = await ok<{ variants: { id: string }[] }>(
      admin.post('/products', {
        title: 'Shirt',
        status: 'active',
        variants: [
          { label: 'S', priceAmount: 2000, onHand: 5 },
          { label: 'M', priceAmount: 2000, onHand: 5 },
        ],
      }),
      201,
    );
    const [v1, v2] = product.variants.map((v) => v.id) as [string, string];
    const eu = (
      await ok<{ id: string }>(
        admin.post('/markets', { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.9' }),
        201,
      )
    ).id;
    const vip = (await ok<{ id: string }>(admin.post('/customer-groups', { name: 'VIP' }), 201)).id;
    const trade = (await ok<{ id: string }>(admin.post('/customer-groups', { name: 'Trade' }), 201)).id;

    const now = t.clock.now().getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    const lists: Record<string, string> = {};
    /** A list made a second after the one before (so that "newest" is well defined). */
    const list = async (name: string, kind: string, amount: number, extra: object = {}, currency = 'EUR') => {
      t.clock.advance(1000);
      const made = await ok<{ id: string }>(
        admin.post('/price-lists', {
          name,
          kind,
          prices: [{ variantId: v1, currency, amount }],
          ...extra,
        }),
        201,
      );
      lists[made.id] = name;
    };
    await list('old override', 'override', 2100);
    await list('sale', 'sale', 1500, { startsAt: iso(now - HOUR), endsAt: iso(now + 10 * HOUR) });
    await list('EU sale', 'sale', 1400, { marketIds: [eu] });
    await list('VIP override', 'override', 2000, { customerGroupIds: [vip] });
    await list('VIP or Trade sale in Europe', 'sale', 1450, {
      customerGroupIds: [vip, trade],
      marketIds: [eu],
    });
    await list('next week', 'sale', 100, { startsAt: iso(now + 7 * 24 * HOUR) });
    await list('ended', 'sale', 50, { startsAt: iso(now - 10 * HOUR), endsAt: iso(now - HOUR) });
    await list('in dollars', 'sale', 10, {}, 'USD');

    const names = async (
      scope: Partial<{ marketId: string; currency: string; groupIds: string[]; at: number }>,
      variantIds = [v1, v2],
    ) => {
      const found = await activePriceListPrices(t.db.kysely, shop.store.id, variantIds, {
        marketId: scope.marketId ?? eu,
        currency: scope.currency ?? 'EUR',
        groupIds: scope.groupIds ?? [],
        at: new Date(scope.at ?? t.clock.now().getTime()),
      });
      assert.ok(!found.has(v2), 'a variant no list prices is absent');
      return (found.get(v1) ?? []).map((entry) => entry.name);
    };

    assert.deepEqual(await names({}), ['EU sale', 'sale', 'old override']);
    assert.deepEqual(
      await names({ marketId: shop.store.id }),
      ['sale', 'old override'],
      'the default market',
    );
    assert.deepEqual(await names({ groupIds: [vip] }), [
      'EU sale',
      'VIP or Trade sale in Europe',
      'sale',
      'VIP override',
      'old override',
    ]);
    assert.deepEqual(await names({ groupIds: [trade], marketId: shop.store.id }), ['sale', 'old override']);
    assert.deepEqual(await names({ groupIds: [trade] }), [
      'EU sale',
      'VIP or Trade sale in Europe',
      'sale',
      'old override',
    ]);
    assert.deepEqual(await names({ currency: 'USD' }), ['in dollars']);
    assert.deepEqual(await names({ currency: 'JPY' }), []);

    // In force from startsAt (included) until endsAt (not included).
    assert.deepEqual(await names({ at: now + 10 * HOUR - 1 }), ['EU sale', 'sale', 'old override']);
    assert.deepEqual(await names({ at: now + 10 * HOUR }), ['EU sale', 'old override']);
    assert.deepEqual(await names({ at: now - HOUR }), ['EU sale', 'sale', 'old override']);
    assert.deepEqual(await names({ at: now - HOUR - 1 }), ['ended', 'EU sale', 'old override']);
    assert.deepEqual(await names({ at: now + 7 * 24 * HOUR }), ['next week', 'EU sale', 'old override']);

    // The entry as the price function gets it.
    const [first] = (
      await activePriceListPrices(t.db.kysely, shop.store.id, [v1], {
        marketId: eu,
        currency: 'EUR',
        groupIds: [],
        at: t.clock.now(),
      })
    ).get(v1)!;
    const id = Object.entries(lists).find(([, name]) => name === 'EU sale')![0];
    assert.deepEqual(
      { ...first, createdAt: undefined },
      {
        priceListId: id,
        name: 'EU sale',
        kind: 'sale',
        amount: 1400,
        startsAt: null,
        endsAt: null,
        createdAt: undefined,
      },
    );
    assert.ok(first!.createdAt instanceof Date);

    // Another store's lists never apply; no variants, no statement and no entries.
    const other = await createTestStore(t, { currency: 'USD' });
    const none = await activePriceListPrices(t.db.kysely, other.store.id, [v1], {
      marketId: other.store.id,
      currency: 'EUR',
      groupIds: [],
      at: t.clock.now(),
    });
    assert.equal(none.size, 0);
    assert.equal(
      (
        await activePriceListPrices(t.db.kysely, shop.store.id, [], {
          marketId: eu,
          currency: 'EUR',
          groupIds: [],
          at: t.clock.now(),
        })
      ).size,
      0,
    );
  });
});
