/**
 * Shipping zones and methods through the Admin API (decision `shipping-zones-and-methods`): areas checked against the address data,
 * a place in one zone per level, each method kind's fields, limits and tenancy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestAppWithStore, type TestApp, type TestStore } from '../test/harness.ts';
import { MAX_METHODS_PER_ZONE } from './shipping.service.ts';

let t: TestApp;
let shop: TestStore;

before(async () => ({ t, shop } = await startTestAppWithStore()));
after(() => t.close());

interface Zone {
  id: string;
  name: string;
  areas: { country: string; regions: string[]; postalCodePrefixes: string[] }[];
  methods: Method[];
}
interface Method {
  id: string;
  zoneId: string;
  name: string;
  kind: string;
  amount: number | null;
  freeOverAmount: number | null;
  weightTiers: { upToGrams: number; amount: number }[] | null;
  minDeliveryDays: number | null;
  maxDeliveryDays: number | null;
  active: boolean;
}
interface Problem {
  title: string;
  detail: string;
  errors?: { pointer: string; detail: string }[];
}

const zone = async (store: TestStore, body: object): Promise<Zone> => {
  const response = await t.admin(store).post('/shipping/zones', body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Zone>();
};
const pointersOf = (body: string) =>
  (JSON.parse(body) as Problem).errors?.map((error) => error.pointer) ?? [];

describe('shipping zones', () => {
  test('create, read, list, rename and delete a zone; areas come back normalised', async () => {
    const store = await createTestStore(t);
    const created = await zone(store, {
      name: 'West coast',
      areas: [
        { country: 'us', regions: ['ca', 'US-OR', 'us-wa'] },
        { country: 'CA', postalCodePrefixes: ['v6b', ' V5K '] },
      ],
    });
    assert.deepEqual(created.areas, [
      { country: 'US', regions: ['US-CA', 'US-OR', 'US-WA'], postalCodePrefixes: [] },
      { country: 'CA', regions: [], postalCodePrefixes: ['V6B', 'V5K'] },
    ]);
    assert.deepEqual(created.methods, []);

    const read = await t.admin(store).get(`/shipping/zones/${created.id}`);
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json<Zone>(), created);

    const world = await zone(store, { name: 'Rest of the world', areas: [{ country: '*' }] });
    const list = await t.admin(store).get('/shipping/zones?limit=1');
    const first = list.json<{ items: Zone[]; nextCursor: string | null }>();
    assert.deepEqual(
      first.items.map((item) => item.id),
      [created.id],
    );
    assert.ok(first.nextCursor);
    const second = await t
      .admin(store)
      .get(`/shipping/zones?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`);
    assert.deepEqual(
      second.json<{ items: Zone[] }>().items.map((item) => item.id),
      [world.id],
    );

    const renamed = await t.admin(store).patch(`/shipping/zones/${created.id}`, { name: 'Pacific' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json<Zone>().name, 'Pacific');
    assert.deepEqual(renamed.json<Zone>().areas, created.areas, 'areas untouched by a rename');

    assert.equal((await t.admin(store).delete(`/shipping/zones/${created.id}`)).statusCode, 204);
    assert.equal((await t.admin(store).get(`/shipping/zones/${created.id}`)).statusCode, 404);
    assert.equal((await t.admin(store).delete(`/shipping/zones/${created.id}`)).statusCode, 404);
  });

  test('bad areas are 400 with a pointer at each: unknown country, region of another country, both narrowings', async () => {
    const response = await t.admin(shop).post('/shipping/zones', {
      name: 'Bad',
      areas: [
        { country: 'XX' },
        { country: 'US', regions: ['US-CA', 'CA-ON'] },
        { country: 'DE', regions: ['DE-BE'] },
        { country: 'GB', regions: [], postalCodePrefixes: ['SW1', '!!'] },
        { country: '*', postalCodePrefixes: ['1'] },
        { country: 'FR', regions: ['FR-75'], postalCodePrefixes: ['75'] },
      ],
    });
    assert.equal(response.statusCode, 400, response.body);
    const pointers = pointersOf(response.body);
    for (const pointer of [
      '/areas/0/country',
      '/areas/1/regions/1',
      '/areas/3/postalCodePrefixes/1',
      '/areas/4',
      '/areas/5',
    ]) {
      assert.ok(pointers.includes(pointer), `${pointer} in ${pointers.join(', ')}`);
    }
    assert.equal((await t.admin(shop).post('/shipping/zones', { name: 'Empty', areas: [] })).statusCode, 400);
    const listed = await t.admin(shop).get('/shipping/zones');
    assert.equal(
      listed.json<{ items: Zone[] }>().items.filter((item) => item.name === 'Bad').length,
      0,
      'nothing written',
    );
  });

  test('a place belongs to one zone per level: 409 shipping_zone_conflict; a narrower area is fine', async () => {
    const store = await createTestStore(t);
    const germany = await zone(store, { name: 'Germany', areas: [{ country: 'DE' }] });
    const clash = await t
      .admin(store)
      .post('/shipping/zones', { name: 'DACH', areas: [{ country: 'AT' }, { country: 'de' }] });
    assert.equal(clash.statusCode, 409, clash.body);
    assert.equal(clash.json<Problem>().title, 'shipping_zone_conflict');
    assert.match(clash.json<Problem>().detail, /Germany/);
    // Berlin by postal-code prefix is more specific than Germany: a zone of its own.
    await zone(store, {
      name: 'Berlin',
      areas: [{ country: 'DE', postalCodePrefixes: ['10', '12', '13', '14'] }],
    });
    await zone(store, { name: 'World', areas: [{ country: '*' }] });
    const secondWorld = await t
      .admin(store)
      .post('/shipping/zones', { name: 'World 2', areas: [{ country: '*' }] });
    assert.equal(secondWorld.statusCode, 409);
    // Within one zone a place may not be listed twice.
    const twice = await t.admin(store).post('/shipping/zones', {
      name: 'Twice',
      areas: [{ country: 'FR' }, { country: 'fr' }],
    });
    assert.equal(twice.statusCode, 400);
    // A zone may keep its own areas when it is changed.
    const same = await t
      .admin(store)
      .patch(`/shipping/zones/${germany.id}`, { areas: [{ country: 'DE' }, { country: 'AT' }] });
    assert.equal(same.statusCode, 200, same.body);
  });

  test('two zones with the same country created at once: one wins, the other is 409', async () => {
    const store = await createTestStore(t);
    const answers = await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        t.admin(store).post('/shipping/zones', { name, areas: [{ country: 'NL' }] }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, 409, 409]);
  });
});

describe('shipping methods', () => {
  test('each kind with its fields; a method of another kind’s field is 400 with its pointer', async () => {
    const home = await zone(shop, { name: 'Home', areas: [{ country: 'US' }] });
    const add = (body: object) => t.admin(shop).post(`/shipping/zones/${home.id}/methods`, body);

    const flat = await add({
      name: 'Standard',
      kind: 'flat',
      amount: 500,
      minDeliveryDays: 3,
      maxDeliveryDays: 5,
    });
    assert.equal(flat.statusCode, 201, flat.body);
    assert.deepEqual(
      { ...flat.json<Method>(), id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        zoneId: home.id,
        name: 'Standard',
        kind: 'flat',
        amount: 500,
        freeOverAmount: null,
        weightTiers: null,
        minDeliveryDays: 3,
        maxDeliveryDays: 5,
        active: true,
        taxClass: null,
        countryDefault: null,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    const weight = await add({
      name: 'By weight',
      kind: 'weight',
      weightTiers: [
        { upToGrams: 500, amount: 400 },
        { upToGrams: 2000, amount: 900 },
      ],
    });
    assert.equal(weight.statusCode, 201, weight.body);
    const free = await add({ name: 'Free over $50', kind: 'free_over', amount: 700, freeOverAmount: 5000 });
    assert.equal(free.statusCode, 201, free.body);
    const pickup = await add({ name: 'Pick up in store', kind: 'pickup', amount: 0 });
    assert.equal(pickup.statusCode, 201, pickup.body);

    const bad = async (body: object, pointer: string) => {
      const response = await add(body);
      assert.equal(response.statusCode, 400, response.body);
      assert.ok(pointersOf(response.body).includes(pointer), `${pointer} in ${response.body}`);
    };
    await bad({ name: 'No amount', kind: 'flat' }, '/amount');
    await bad({ name: 'No tiers', kind: 'weight' }, '/weightTiers');
    await bad(
      { name: 'Amount', kind: 'weight', amount: 5, weightTiers: [{ upToGrams: 1, amount: 1 }] },
      '/amount',
    );
    await bad(
      {
        name: 'Down',
        kind: 'weight',
        weightTiers: [
          { upToGrams: 500, amount: 1 },
          { upToGrams: 100, amount: 2 },
        ],
      },
      '/weightTiers/1/upToGrams',
    );
    await bad({ name: 'No threshold', kind: 'free_over', amount: 1 }, '/freeOverAmount');
    await bad(
      { name: 'Tiers', kind: 'flat', amount: 1, weightTiers: [{ upToGrams: 1, amount: 1 }] },
      '/weightTiers',
    );
    await bad(
      { name: 'Days', kind: 'flat', amount: 1, minDeliveryDays: 5, maxDeliveryDays: 2 },
      '/maxDeliveryDays',
    );
    await bad({ name: 'Negative', kind: 'flat', amount: -1 }, '/amount');

    const read = await t.admin(shop).get(`/shipping/zones/${home.id}`);
    assert.deepEqual(
      read.json<Zone>().methods.map((method) => method.name),
      ['Standard', 'By weight', 'Free over $50', 'Pick up in store'],
    );
  });

  test('a change merges; changing the kind drops the old kind’s fields; deactivate and delete', async () => {
    const store = await createTestStore(t);
    const home = await zone(store, { name: 'Home', areas: [{ country: 'GB' }] });
    const method = (
      await t.admin(store).post(`/shipping/zones/${home.id}/methods`, {
        name: 'Royal Mail',
        kind: 'free_over',
        amount: 399,
        freeOverAmount: 4000,
      })
    ).json<Method>();
    const url = `/shipping/zones/${home.id}/methods/${method.id}`;

    const cheaper = await t.admin(store).patch(url, { amount: 299 });
    assert.equal(cheaper.statusCode, 200, cheaper.body);
    assert.deepEqual([cheaper.json<Method>().amount, cheaper.json<Method>().freeOverAmount], [299, 4000]);

    const toWeight = await t
      .admin(store)
      .patch(url, { kind: 'weight', weightTiers: [{ upToGrams: 1000, amount: 350 }] });
    assert.equal(toWeight.statusCode, 200, toWeight.body);
    assert.deepEqual(
      [toWeight.json<Method>().kind, toWeight.json<Method>().amount, toWeight.json<Method>().freeOverAmount],
      ['weight', null, null],
    );
    const toFlatWithoutAmount = await t.admin(store).patch(url, { kind: 'flat' });
    assert.equal(toFlatWithoutAmount.statusCode, 400);
    assert.deepEqual(pointersOf(toFlatWithoutAmount.body), ['/amount']);

    const off = await t.admin(store).patch(url, { active: false });
    assert.equal(off.json<Method>().active, false);
    assert.equal((await t.admin(store).delete(url)).statusCode, 204);
    assert.equal((await t.admin(store).delete(url)).statusCode, 404);
    assert.equal((await t.admin(store).patch(url, { amount: 1 })).statusCode, 404);
  });

  test(`at most ${MAX_METHODS_PER_ZONE} methods per zone (409 limit_reached)`, async () => {
    const store = await createTestStore(t);
    const home = await zone(store, { name: 'Home', areas: [{ country: 'FR' }] });
    for (let i = 0; i < MAX_METHODS_PER_ZONE; i++) {
      const added = await t
        .admin(store)
        .post(`/shipping/zones/${home.id}/methods`, { name: `M${i}`, kind: 'flat', amount: i });
      assert.equal(added.statusCode, 201);
    }
    const over = await t
      .admin(store)
      .post(`/shipping/zones/${home.id}/methods`, { name: 'One more', kind: 'flat', amount: 1 });
    assert.equal(over.statusCode, 409);
    assert.equal(over.json<Problem>().title, 'limit_reached');
  });

  test('deleting a zone deletes its methods; another store’s zones and methods are 404', async () => {
    const store = await createTestStore(t);
    const other = await createTestStore(t);
    const home = await zone(store, { name: 'Home', areas: [{ country: 'IT' }] });
    const method = (
      await t
        .admin(store)
        .post(`/shipping/zones/${home.id}/methods`, { name: 'Corriere', kind: 'flat', amount: 900 })
    ).json<Method>();
    const url = `/shipping/zones/${home.id}/methods/${method.id}`;
    assert.equal((await t.admin(other).get(`/shipping/zones/${home.id}`)).statusCode, 404);
    assert.equal(
      (await t.admin(other).patch(`/shipping/zones/${home.id}`, { name: 'Mine' })).statusCode,
      404,
    );
    assert.equal((await t.admin(other).delete(`/shipping/zones/${home.id}`)).statusCode, 404);
    assert.equal(
      (
        await t
          .admin(other)
          .post(`/shipping/zones/${home.id}/methods`, { name: 'x', kind: 'flat', amount: 1 })
      ).statusCode,
      404,
    );
    assert.equal((await t.admin(other).patch(url, { amount: 1 })).statusCode, 404);
    assert.equal((await t.admin(other).delete(url)).statusCode, 404);
    assert.equal((await t.admin(other).get('/shipping/zones')).json<{ items: Zone[] }>().items.length, 0);

    assert.equal((await t.admin(store).delete(`/shipping/zones/${home.id}`)).statusCode, 204);
    const left = await t.db.kysely
      .selectFrom('shipping_methods')
      .select('id')
      .where('store_id', '=', store.store.id)
      .execute();
    assert.deepEqual(left, []);
  });
});
