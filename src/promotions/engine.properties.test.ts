/**
 * The promotions engine's properties (decision `promotion-engine`) over random carts, buyers and
 * promotion sets (thousands per run): exact shares, nothing below zero, combination rules kept, the
 * best allowed total (checked against every subset), never worse than any one promotion alone,
 * deterministic ties, buy X get Y on the cheapest units (checked against every assignment of units).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { applyPromotions, pickPromotions, percentOf } from './engine.ts';
import type { EngineInput, EnginePromotion, PromotionAction, UnitSelector } from './engine.types.ts';
import { subsets } from './engine.test-support.ts';

const PRODUCTS = ['p1', 'p2', 'p3', 'p4'];
const COLLECTIONS = ['c1', 'c2'];
const some = (values: string[]) => fc.subarray(values, { maxLength: 2 });
const price = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 20_000 }));

const lines = fc
  .array(
    fc.record({
      productId: fc.constantFrom(...PRODUCTS),
      collectionIds: some(COLLECTIONS),
      unitPrice: price,
      quantity: fc.integer({ min: 1, max: 4 }),
      discountable: fc.integer({ min: 0, max: 9 }).map((n) => n !== 0),
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((list) => list.map((each, index) => ({ ...each, key: `l${index}`, variantId: `v${index}` })));

const selector: fc.Arbitrary<UnitSelector> = fc.record(
  { quantity: fc.integer({ min: 1, max: 3 }), productIds: some(PRODUCTS), collectionIds: some(COLLECTIONS) },
  { requiredKeys: ['quantity'] },
);
const bps = fc.oneof(fc.integer({ min: 0, max: 10000 }), fc.constantFrom(1000, 5000, 10000));
const action: fc.Arbitrary<PromotionAction> = fc.oneof(
  fc.record({
    kind: fc.constant('percent' as const),
    target: fc.constantFrom('order' as const, 'items' as const),
    bps,
  }),
  fc.record({
    kind: fc.constant('amount' as const),
    target: fc.constantFrom('order' as const, 'items' as const),
    amount: price,
  }),
  fc.constant({ kind: 'free_shipping' as const }),
  fc.record(
    {
      kind: fc.constant('buy_x_get_y' as const),
      buy: selector,
      get: selector.chain((get) => bps.map((value) => ({ ...get, bps: value }))),
      usesPerOrder: fc.integer({ min: 1, max: 3 }),
    },
    { requiredKeys: ['kind', 'buy', 'get'] },
  ),
);
/** Mostly true: combinations are where the search has work to do. */
const often = fc.integer({ min: 0, max: 3 }).map((n) => n !== 0);
const promotionShape = fc.record({
  coded: fc.boolean(),
  conditions: fc.oneof(
    { weight: 3, arbitrary: fc.constant({}) },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          minSubtotal: fc.integer({ min: 0, max: 10_000 }),
          minQuantity: fc.integer({ min: 0, max: 6 }),
          productIds: some(PRODUCTS),
          collectionIds: some(COLLECTIONS),
          customerGroupIds: some(['g1', 'g2']),
          marketIds: some(['m1', 'm2']),
          firstOrderOnly: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    },
  ),
  action,
  combinesWith: fc.record({ order: often, items: often, shipping: often }),
  created: fc.integer({ min: 0, max: 3 }),
});

/** A cart, a buyer and up to `most` promotions (at most five with codes, all entered, in a random order). */
const cart = (most: number): fc.Arbitrary<EngineInput> =>
  fc
    .record({
      lines,
      shipping: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2000 })),
      buyer: fc.record({
        customerGroupIds: some(['g1', 'g2']),
        marketId: fc.constantFrom('m1', 'm2'),
        firstOrder: fc.boolean(),
      }),
      shapes: fc.array(promotionShape, { maxLength: most }),
      order: fc.array(fc.nat(), { maxLength: 5 }),
    })
    .map(({ shapes, order, ...rest }) => {
      let codes = 0;
      const promotions: EnginePromotion[] = shapes.map((shape, index) => {
        const coded = shape.coded && (codes += 1) <= 5;
        return {
          id: `pr${index}`,
          name: `promotion ${index}`,
          code: coded ? `CODE${index}` : null,
          automatic: !coded,
          conditions: shape.conditions,
          action: shape.action,
          combinesWith: shape.combinesWith,
          createdAt: new Date(Date.UTC(2026, 0, 1) + shape.created),
        };
      });
      const entered = promotions.flatMap((each) => (each.code ? [each.code] : []));
      const codesInOrder = entered
        .map((code, index) => ({ code, at: order[index] ?? index }))
        .sort((a, b) => a.at - b.at);
      return { ...rest, promotions, codes: codesInOrder.map((each) => each.code) };
    });

const sum = (values: readonly number[]) => values.reduce((acc, value) => acc + value, 0);
const totalOf = (result: { discount: number; shippingDiscount: number }) =>
  result.discount + result.shippingDiscount;

/** The documented order of application: kind (items: buy X get Y, percent, amount; order: percent, amount; shipping), then rank. */
function applicationOrder(input: EngineInput): string[] {
  const kind = (a: PromotionAction) =>
    a.kind === 'buy_x_get_y'
      ? 0
      : a.kind === 'free_shipping'
        ? 5
        : (a.target === 'items' ? 1 : 3) + (a.kind === 'percent' ? 0 : 1);
  const codeRank = (p: EnginePromotion) =>
    p.code === null ? input.codes.length : input.codes.indexOf(p.code);
  return [...input.promotions]
    .sort(
      (a, b) =>
        kind(a.action) - kind(b.action) ||
        codeRank(a) - codeRank(b) ||
        a.createdAt.getTime() - b.createdAt.getTime() ||
        (a.id < b.id ? -1 : 1),
    )
    .map((each) => each.id);
}

describe('properties', () => {
  test('shares add up exactly; no line below zero; gift cards untouched; shipping within the shipping; rules kept', () => {
    fc.assert(
      fc.property(cart(8), (input) => {
        const result = pickPromotions(input);
        const byId = new Map(input.promotions.map((p) => [p.id, p]));
        for (const applied of result.applied) {
          assert.ok(applied.amount > 0, 'an applied promotion takes something off');
          assert.equal(
            sum(applied.lineShares.map((share) => share.amount)) + applied.shipping,
            applied.amount,
          );
        }
        assert.equal(sum(result.lines.map((each) => each.discount)), result.discount);
        assert.equal(
          sum(result.applied.map((each) => each.amount)),
          result.discount + result.shippingDiscount,
        );
        input.lines.forEach((each, index) => {
          const discount = result.lines[index]!.discount;
          assert.equal(result.lines[index]!.key, each.key);
          assert.ok(discount >= 0 && discount <= each.unitPrice * each.quantity, 'a line never below zero');
          if (each.discountable === false) assert.equal(discount, 0, 'a gift card is never discounted');
        });
        assert.ok(result.shippingDiscount >= 0 && result.shippingDiscount <= (input.shipping ?? 0));
        const classOf = (p: EnginePromotion) =>
          p.action.kind === 'free_shipping'
            ? 'shipping'
            : p.action.kind === 'buy_x_get_y'
              ? 'items'
              : p.action.target;
        for (const a of result.applied)
          for (const b of result.applied) {
            if (a === b) continue;
            const [pa, pb] = [byId.get(a.promotionId)!, byId.get(b.promotionId)!];
            assert.ok(pa.combinesWith[classOf(pb)] && pb.combinesWith[classOf(pa)], 'combination rules kept');
          }
        assert.equal(result.applied.length + result.notApplied.length, input.promotions.length);
      }),
      { numRuns: 3000 },
    );
  });

  test('the best allowed total, checked against every subset; ties to the set that has the earliest promotion in the order of application', () => {
    fc.assert(
      fc.property(cart(6), (input) => {
        const result = pickPromotions(input);
        const order = applicationOrder(input);
        let best = { total: 0, key: '' };
        for (const set of subsets(input.promotions.map((p) => p.id))) {
          const applied = applyPromotions(input, set);
          if (applied === null) continue;
          const key = order.map((id) => (set.includes(id) ? '1' : '0')).join('');
          if (totalOf(applied) > best.total || (totalOf(applied) === best.total && key > best.key))
            best = { total: totalOf(applied), key };
        }
        assert.equal(totalOf(result), best.total);
        const chosen = order.filter((id, index) => best.key[index] === '1');
        assert.deepEqual(
          result.applied.map((each) => each.promotionId),
          chosen,
        );
      }),
      { numRuns: 1500 },
    );
  });

  test('never worse for the buyer than any one promotion alone', () => {
    fc.assert(
      fc.property(cart(8), (input) => {
        const total = totalOf(pickPromotions(input));
        for (const promotion of input.promotions) {
          const alone = applyPromotions(input, [promotion.id]);
          if (alone !== null) assert.ok(total >= totalOf(alone));
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('deterministic: the same result whatever order the promotions come in', () => {
    fc.assert(
      fc.property(cart(8), fc.nat(), (input, seed) => {
        const shuffled = [...input.promotions].sort(
          (a, b) =>
            ((a.id.length * 31 + seed) % 7) - ((b.id.length * 17 + seed) % 5) || (a.id < b.id ? 1 : -1),
        );
        assert.deepEqual(pickPromotions({ ...input, promotions: shuffled }), pickPromotions(input));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('buy X get Y: the cheapest units, checked against every assignment of units', () => {
  /** The most applications and, for that many, the least value of the units got, over every assignment. */
  function cheapest(input: EngineInput, action: Extract<PromotionAction, { kind: 'buy_x_get_y' }>) {
    const matches = (s: UnitSelector, l: EngineInput['lines'][number]) =>
      l.discountable !== false &&
      ((!s.productIds?.length && !s.collectionIds?.length) ||
        s.productIds?.includes(l.productId) === true ||
        l.collectionIds.some((c) => s.collectionIds?.includes(c)));
    const units = input.lines.flatMap((l) => Array.from({ length: l.quantity }, () => l));
    let best = { applications: 0, value: 0 };
    const visit = (index: number, buy: number, get: number, value: number) => {
      if (index === units.length) {
        const k = get / action.get.quantity;
        if (!Number.isInteger(k) || buy !== k * action.buy.quantity || k > (action.usesPerOrder ?? Infinity))
          return;
        if (k > best.applications || (k === best.applications && value < best.value))
          best = { applications: k, value };
        return;
      }
      const unit = units[index]!;
      visit(index + 1, buy, get, value);
      if (matches(action.buy, unit)) visit(index + 1, buy + 1, get, value);
      if (matches(action.get, unit)) visit(index + 1, buy, get + 1, value + unit.unitPrice);
    };
    visit(0, 0, 0, 0);
    return best;
  }

  test('the discount is the get percent of the cheapest units the most applications can get', () => {
    const small = fc
      .tuple(
        cart(0),
        action.filter((a) => a.kind === 'buy_x_get_y'),
      )
      .filter(([input]) => sum(input.lines.map((l) => l.quantity)) <= 8);
    fc.assert(
      fc.property(small, ([input, bxgy]) => {
        const only: EnginePromotion = {
          id: 'bxgy',
          name: 'bxgy',
          code: null,
          automatic: true,
          conditions: {},
          action: bxgy,
          combinesWith: { order: false, items: false, shipping: false },
          createdAt: new Date(0),
        };
        const result = pickPromotions({ ...input, promotions: [only] });
        const best = cheapest(input, bxgy);
        assert.equal(
          result.discount,
          best.applications === 0 ? 0 : percentOf(best.value, (bxgy as { get: { bps: number } }).get.bps),
        );
      }),
      { numRuns: 1000 },
    );
  });
});
