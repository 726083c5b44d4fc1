/**
 * Price lists through the Admin API (decision `price-lists`): create, read, list, change and
 * delete; every bad field a 400 at its pointer (variants, markets and customer groups that are not
 * the store's included); 10,000 prices and not one more; what deleting a variant, a market or a
 * group does to a list; roles; and the read caches a change drops.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import currencyCodes from 'currency-codes';
import { currencyDigits } from '../../markets/currencies.ts';
import { openStaffSession } from '../../staff/staff.service.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';
import { activePriceListPrices } from './price-lists.ts';
import { ok } from '../../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface PriceList {
  id: string;
  name: string;
  kind: string;
  marketIds: string[];
  customerGroupIds: string[];
  startsAt: string | null;
  endsAt: string | null;
  priceCount: number;
  createdAt: string;
  updatedAt: string;
  prices?: { variantId: string; currency: string; amount: number }[];
}

/** The answer's status, and its problem's pointers (each once). */
async function refused(response: Promise<{ statusCode: number; body: string }>, status = 400) {
  const answer = await response;
  assert.equal(answer.statusCode, status, answer.body);
  const body = JSON.parse(answer.body) as { title: string; errors?: { pointer: string }[] };
  return [...new Set((body.errors ?? []).map((error) => error.pointer))];
}

/** A store with a product of `count` variants, a market in EUR and a customer group. */
async function setUp(count = 2) {
  const shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const product = await ok<{ variants: { id: string }[] }>(
    admin.post('/products', {
      title: 'Shirt',
      status: 'active',
      variants: Array.from({ length: count }, (_, i) => ({ label: `V${i}`, priceAmount: 2000, onHand: 5 })),
    }),
    201,
  );
  const market = await ok<{ id: string }>(
    admin.post('/markets', { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.9' }),
    201,
  );
  const group = await ok<{ id: string }>(admin.post('/customer-groups', { name: 'VIP' }), 201);
  return { shop, admin, variants: product.variants.map((v) => v.id), marketId: market.id, groupId: group.id };
}

async function readVersion(shop: TestStore): Promise<number> {
  const { rows } = await sql<{ v: string | null }>`
    SELECT sum(version) AS v FROM read_versions WHERE store_id = ${shop.store.id} AND scope = 'c'`.execute(
    t.db.kysely,
  );
  return Number(rows[0]?.v ?? 0);
}

describe('price lists', () => {
  test('create, read, list, change and delete', async () => {
    const { shop, admin, variants, marketId, groupId } = await setUp();
    const [v1, v2] = variants as [string, string];
    const before = await readVersion(shop);
    const created = await ok<PriceList>(
      admin.post('/price-lists', {
        name: ' Summer sale ',
        kind: 'sale',
        marketIds: [marketId, marketId.toUpperCase()],
        customerGroupIds: [groupId],
        startsAt: '2030-06-01T00:00:00Z',
        endsAt: '2030-07-01T00:00:00.000+02:00',
        prices: [
          { variantId: v2, currency: 'eur', amount: 900 },
          { variantId: v1, currency: 'USD', amount: 1800 },
          { variantId: v1, currency: 'EUR', amount: 1500 },
        ],
      }),
      201,
    );
    const byVariant = (
      a: { variantId: string; currency: string },
      b: { variantId: string; currency: string },
    ) => a.variantId.localeCompare(b.variantId) || a.currency.localeCompare(b.currency);
    assert.deepEqual(
      {
        ...created,
        id: undefined,
        createdAt: undefined,
        updatedAt: undefined,
      },
      {
        id: undefined,
        name: 'Summer sale',
        kind: 'sale',
        marketIds: [marketId],
        customerGroupIds: [groupId],
        startsAt: '2030-06-01T00:00:00.000Z',
        endsAt: '2030-06-30T22:00:00.000Z',
        priceCount: 3,
        createdAt: undefined,
        updatedAt: undefined,
        prices: [
          { variantId: v2, currency: 'EUR', amount: 900 },
          { variantId: v1, currency: 'USD', amount: 1800 },
          { variantId: v1, currency: 'EUR', amount: 1500 },
        ].sort(byVariant),
      },
    );
    assert.ok((await readVersion(shop)) > before, 'a price list drops the read caches');
    assert.deepEqual(await ok<PriceList>(admin.get(`/price-lists/${created.id}`)), created);

    const wholesale = await ok<PriceList>(
      admin.post('/price-lists', { name: 'Wholesale', kind: 'override', prices: [] }),
      201,
    );
    assert.deepEqual(
      [
        wholesale.marketIds,
        wholesale.customerGroupIds,
        wholesale.startsAt,
        wholesale.endsAt,
        wholesale.priceCount,
      ],
      [[], [], null, null, 0],
    );
    const first = await ok<{ items: PriceList[]; nextCursor: string }>(admin.get('/price-lists?limit=1'));
    const { prices: _prices, ...summary } = created;
    assert.deepEqual(first.items, [summary], 'the list leaves the prices out');
    const second = await ok<{ items: PriceList[]; nextCursor: null }>(
      admin.get(`/price-lists?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`),
    );
    assert.deepEqual([second.items.map((list) => list.name), second.nextCursor], [['Wholesale'], null]);

    // A change: the fields given; a list given replaces the list's.
    const changed = await ok<PriceList>(
      admin.patch(`/price-lists/${created.id}`, {
        name: 'Summer',
        prices: [{ variantId: v1, currency: 'EUR', amount: 1400 }],
        marketIds: [],
        endsAt: null,
      }),
    );
    assert.deepEqual(
      [
        changed.name,
        changed.kind,
        changed.marketIds,
        changed.customerGroupIds,
        changed.startsAt,
        changed.endsAt,
      ],
      ['Summer', 'sale', [], [groupId], '2030-06-01T00:00:00.000Z', null],
    );
    assert.deepEqual(changed.prices, [{ variantId: v1, currency: 'EUR', amount: 1400 }]);
    assert.equal(changed.priceCount, 1);
    assert.deepEqual(
      await refused(admin.patch(`/price-lists/${created.id}`, { endsAt: '2030-05-01T00:00:00Z' })),
      ['/endsAt'],
      'the dates checked with the ones kept',
    );
    await ok(admin.patch(`/price-lists/${created.id}`, { kind: 'override', customerGroupIds: [] }));

    assert.equal((await admin.delete(`/price-lists/${created.id}`)).statusCode, 204);
    await refused(admin.get(`/price-lists/${created.id}`), 404);
    await refused(admin.delete(`/price-lists/${created.id}`), 404);
    await refused(admin.patch(`/price-lists/${created.id}`, { name: 'X' }), 404);
    const other = t.admin(await createTestStore(t));
    await refused(other.get(`/price-lists/${wholesale.id}`), 404);
    await refused(other.delete(`/price-lists/${wholesale.id}`), 404);
    assert.deepEqual((await ok<{ items: unknown[] }>(other.get('/price-lists'))).items, []);
  });

  test('bad input is a 400 at each field, and nothing is written', async () => {
    const { admin, variants, marketId, groupId } = await setUp();
    const [v1, v2] = variants as [string, string];
    const elsewhere = await setUp();
    const base = { name: 'Sale', kind: 'sale', prices: [{ variantId: v1, currency: 'EUR', amount: 100 }] };
    const post = (body: object) => refused(admin.post('/price-lists', { ...base, ...body }));

    assert.deepEqual(
      await post({
        prices: [
          { variantId: v1, currency: 'ABC', amount: 1 },
          { variantId: v1, currency: 'XAU', amount: 1 },
          { variantId: v2, currency: 'eur', amount: 1 },
          { variantId: v2, currency: 'EUR', amount: 2 },
        ],
      }),
      ['/prices/0/currency', '/prices/1/currency', '/prices/3'],
    );
    assert.deepEqual(
      await post({
        prices: [
          { variantId: v1, currency: 'EUR', amount: 1 },
          { variantId: randomUUID(), currency: 'EUR', amount: 1 },
          { variantId: v2, currency: 'EUR', amount: 1 },
          { variantId: elsewhere.variants[0], currency: 'EUR', amount: 1 },
        ],
      }),
      ['/prices/1/variantId', '/prices/3/variantId'],
    );
    assert.deepEqual(await post({ marketIds: [marketId, randomUUID(), elsewhere.marketId] }), [
      '/marketIds/1',
      '/marketIds/2',
    ]);
    assert.deepEqual(await post({ customerGroupIds: [groupId, randomUUID()] }), ['/customerGroupIds/1']);
    assert.deepEqual(await post({ customerGroupIds: [elsewhere.groupId] }), ['/customerGroupIds/0']);
    assert.deepEqual(await post({ startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-01T00:00:00Z' }), [
      '/endsAt',
    ]);
    assert.deepEqual(await post({ kind: 'discount' }), ['/kind']);
    assert.deepEqual(await post({ name: ' ' }), ['/name']);
    assert.deepEqual(await post({ startsAt: 'tomorrow' }), ['/startsAt']);
    assert.deepEqual(await post({ prices: [{ variantId: v1, currency: 'EUR', amount: -1 }] }), [
      '/prices/0/amount',
    ]);
    assert.deepEqual(await post({ prices: [{ variantId: v1, currency: 'EUR', amount: 1.5 }] }), [
      '/prices/0/amount',
    ]);
    assert.deepEqual(await post({ prices: [{ variantId: 'v1', currency: 'EUR', amount: 1 }] }), [
      '/prices/0/variantId',
    ]);
    assert.ok((await post({ extra: true })).length > 0);
    assert.deepEqual(await refused(admin.post('/price-lists', { name: 'No prices', kind: 'sale' })), [
      '/prices',
    ]);

    const list = await ok<PriceList>(admin.post('/price-lists', base), 201);
    const patch = (body: object) => refused(admin.patch(`/price-lists/${list.id}`, body));
    assert.deepEqual(await patch({}), ['/']);
    assert.deepEqual(await patch({ customerGroupIds: [randomUUID()] }), ['/customerGroupIds/0']);
    assert.deepEqual(await patch({ prices: [{ variantId: randomUUID(), currency: 'EUR', amount: 1 }] }), [
      '/prices/0/variantId',
    ]);
    assert.deepEqual(await patch({ marketIds: [randomUUID()] }), ['/marketIds/0']);
    assert.deepEqual(
      await ok<PriceList>(admin.get(`/price-lists/${list.id}`)),
      list,
      'the refused changes wrote nothing',
    );
    assert.equal((await ok<{ items: unknown[] }>(admin.get('/price-lists'))).items.length, 1);
  });

  test('10,000 prices in a list, and not one more', async () => {
    const { admin, variants } = await setUp(100);
    const currencies = currencyCodes
      .codes()
      .filter((code) => currencyDigits(code) !== undefined)
      .slice(0, 100);
    assert.equal(currencies.length, 100);
    const prices = variants.flatMap((variantId, i) =>
      currencies.map((currency, j) => ({ variantId, currency, amount: i * 100 + j })),
    );
    assert.equal(prices.length, 10_000);
    const big = await ok<PriceList>(
      admin.post('/price-lists', { name: 'Big', kind: 'override', prices }),
      201,
    );
    assert.equal(big.priceCount, 10_000);
    assert.equal((await ok<PriceList>(admin.get(`/price-lists/${big.id}`))).prices!.length, 10_000);
    const tooMany = [...prices, { variantId: variants[0], currency: 'XXX', amount: 1 }];
    assert.deepEqual(
      await refused(admin.post('/price-lists', { name: 'Bigger', kind: 'sale', prices: tooMany })),
      ['/prices'],
    );
  });

  test('a deleted variant leaves the lists; a list whose markets or groups are all deleted applies to nobody', async () => {
    const { shop, admin, variants, marketId, groupId } = await setUp();
    const [v1, v2] = variants as [string, string];
    const list = await ok<PriceList>(
      admin.post('/price-lists', {
        name: 'VIP in Europe',
        kind: 'sale',
        marketIds: [marketId],
        customerGroupIds: [groupId],
        prices: [
          { variantId: v1, currency: 'EUR', amount: 100 },
          { variantId: v2, currency: 'EUR', amount: 200 },
        ],
      }),
      201,
    );
    const applies = async (market: string, groups: string[]) =>
      (
        await activePriceListPrices(t.db.kysely, shop.store.id, [v1, v2], {
          marketId: market,
          currency: 'EUR',
          groupIds: groups,
          at: t.clock.now(),
        })
      ).size > 0;
    assert.equal(await applies(marketId, [groupId]), true);

    assert.equal((await admin.delete(`/variants/${v2}`)).statusCode, 204);
    const after = await ok<PriceList>(admin.get(`/price-lists/${list.id}`));
    assert.deepEqual(
      [after.priceCount, after.prices],
      [1, [{ variantId: v1, currency: 'EUR', amount: 100 }]],
    );

    assert.equal((await admin.delete(`/customer-groups/${groupId}`)).statusCode, 204);
    assert.deepEqual((await ok<PriceList>(admin.get(`/price-lists/${list.id}`))).customerGroupIds, []);
    assert.equal(await applies(marketId, []), false, 'not opened to everyone');
    assert.equal(await applies(marketId, [groupId]), false);

    const open = await ok<PriceList>(admin.patch(`/price-lists/${list.id}`, { customerGroupIds: [] }));
    assert.deepEqual(open.customerGroupIds, []);
    assert.equal(await applies(marketId, []), true, 'an explicit [] is everyone');
    assert.equal((await admin.delete(`/markets/${marketId}`)).statusCode, 204);
    assert.deepEqual((await ok<PriceList>(admin.get(`/price-lists/${list.id}`))).marketIds, []);
    assert.equal(await applies(marketId, []), false);
    assert.equal(await applies(shop.store.id, []), false, 'not opened to the other markets');
  });

  test('staff read price lists; writing them is an admin’s', async () => {
    const { shop, admin } = await setUp();
    const list = await ok<PriceList>(
      admin.post('/price-lists', { name: 'A', kind: 'sale', prices: [] }),
      201,
    );
    const invited = await ok<{ email: string }>(
      admin.post('/staff', { email: `clerk-${randomUUID().slice(0, 6)}@example.com`, role: 'staff' }),
      201,
    );
    const clerk = t.admin((await openStaffSession(t.deps, shop.store.id, invited.email)).token);
    await ok(clerk.get('/price-lists'));
    await ok(clerk.get(`/price-lists/${list.id}`));
    await refused(clerk.post('/price-lists', { name: 'B', kind: 'sale', prices: [] }), 403);
    await refused(clerk.patch(`/price-lists/${list.id}`, { name: 'B' }), 403);
    await refused(clerk.delete(`/price-lists/${list.id}`), 403);
  });
});
