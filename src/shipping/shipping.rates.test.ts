/** Zone matching and method pricing (decision `shipping-zones-and-methods`), as pure functions. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { methodAmount, ratedMethods, zoneFor, type RatedMethod } from './shipping.rates.ts';
import type { ZoneArea } from './shipping.tables.ts';

const area = (country: string, narrowing: Partial<ZoneArea> = {}): ZoneArea => ({
  country,
  regions: [],
  postalCodePrefixes: [],
  ...narrowing,
});
const method = (name: string, fields: Partial<RatedMethod>): RatedMethod & { name: string } => ({
  name,
  kind: 'flat',
  amount: null,
  freeOverAmount: null,
  weightTiers: null,
  active: true,
  ...fields,
});

const zones = [
  { id: 'world', areas: [area('*')], methods: [method('World', { amount: 2500 })] },
  { id: 'us', areas: [area('US')], methods: [method('US', { amount: 800 })] },
  {
    id: 'west',
    areas: [area('US', { regions: ['US-CA', 'US-OR'] })],
    methods: [method('West', { amount: 600 })],
  },
  {
    id: 'sf',
    areas: [area('US', { postalCodePrefixes: ['941'] })],
    methods: [method('SF', { amount: 300 })],
  },
  { id: 'sf-downtown', areas: [area('US', { postalCodePrefixes: ['9410'] })], methods: [] },
];

describe('zoneFor: the most specific matching area wins', () => {
  test('postal prefix (longest first), then region, then country, then the rest of the world', () => {
    assert.equal(zoneFor(zones, { country: 'US', region: 'US-CA', postalCode: '94103' })?.id, 'sf-downtown');
    assert.equal(zoneFor(zones, { country: 'US', region: 'US-CA', postalCode: '94110' })?.id, 'sf');
    assert.equal(zoneFor(zones, { country: 'US', region: 'US-CA', postalCode: '90210' })?.id, 'west');
    assert.equal(zoneFor(zones, { country: 'US', region: 'US-NY', postalCode: '10001' })?.id, 'us');
    assert.equal(zoneFor(zones, { country: 'US' })?.id, 'us', 'a country alone matches the country zone');
    assert.equal(zoneFor(zones, { country: 'DE', postalCode: '10117' })?.id, 'world');
  });

  test('without a rest-of-the-world zone, an uncovered destination has none', () => {
    assert.equal(zoneFor(zones.slice(1), { country: 'DE' }), null);
    assert.equal(zoneFor([], { country: 'US' }), null);
  });
});

describe('methodAmount', () => {
  const parcel = { subtotal: 4000, weightGrams: 1200 };
  test('flat and pickup charge their amount', () => {
    assert.equal(methodAmount(method('a', { amount: 500 }), parcel), 500);
    assert.equal(methodAmount(method('b', { kind: 'pickup', amount: 0 }), parcel), 0);
  });

  test('free_over is free from its threshold (inclusive)', () => {
    const free = method('c', { kind: 'free_over', amount: 700, freeOverAmount: 5000 });
    assert.equal(methodAmount(free, parcel), 700);
    assert.equal(methodAmount(free, { ...parcel, subtotal: 5000 }), 0);
  });

  test('weight takes the first tier the parcel fits; heavier than the last is not offered', () => {
    const weight = method('d', {
      kind: 'weight',
      weightTiers: [
        { upToGrams: 2000, amount: 900 },
        { upToGrams: 500, amount: 400 },
      ],
    });
    assert.equal(methodAmount(weight, { ...parcel, weightGrams: 0 }), 400);
    assert.equal(methodAmount(weight, { ...parcel, weightGrams: 500 }), 400, 'up to is inclusive');
    assert.equal(methodAmount(weight, { ...parcel, weightGrams: 501 }), 900);
    assert.equal(methodAmount(weight, { ...parcel, weightGrams: 2001 }), null);
  });

  test('an inactive method is not offered', () => {
    assert.equal(methodAmount(method('e', { amount: 1, active: false }), parcel), null);
  });
});

test('ratedMethods: the matched zone’s methods the parcel can take, cheapest first', () => {
  const home = {
    id: 'home',
    areas: [area('DE')],
    methods: [
      method('Express', { amount: 1500 }),
      method('Standard', { kind: 'free_over', amount: 495, freeOverAmount: 5000 }),
      method('Heavy', { kind: 'weight', weightTiers: [{ upToGrams: 1000, amount: 300 }] }),
      method('Off', { amount: 0, active: false }),
    ],
  };
  const rated = ratedMethods([home], { country: 'DE' }, { subtotal: 6000, weightGrams: 1500 });
  assert.deepEqual(
    rated.map(({ method: m, amount }) => [m.name, amount]),
    [
      ['Standard', 0],
      ['Express', 1500],
    ],
  );
  assert.deepEqual(ratedMethods([home], { country: 'FR' }, { subtotal: 1, weightGrams: 1 }), []);
});
