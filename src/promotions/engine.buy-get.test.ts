/**
 * Buy X get Y in the promotions engine (decision `promotion-engine`): the anchors' reported bugs as
 * fixed cases (Medusa #13431, #11259, #14432, #14934, #13265, #16396, #8829), and the rule that the
 * units got are the cheapest that qualify once enough are left to satisfy the buy side.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pickPromotions } from './engine.ts';
import type { EngineLine, PromotionAction, UnitSelector } from './engine.types.ts';
import { ALL, input, line, percentOff, promotion } from './engine.test-support.ts';

const buyGet = (
  buy: UnitSelector,
  get: UnitSelector & { bps: number },
  usesPerOrder?: number,
): PromotionAction => ({ kind: 'buy_x_get_y', buy, get, ...(usesPerOrder ? { usesPerOrder } : {}) });

const pick = (lines: EngineLine[], action: PromotionAction) =>
  pickPromotions(input(lines, [promotion('bxgy', action)]));

/** Every order of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('a buy X get Y whose cheapest units are free', () => {
  test('takes nothing alone, yet something after another has used those units: it stays a candidate', () => {
    // Found by the property test (fast-check seed 1414592077, shrunk): a free line, a 2.00 line and
    // three 5.00 units of a collection.
    const lines = [
      line('free', 'p1', 0),
      line('two', 'p4', 2),
      line('five', 'p1', 5, 3, { collectionIds: ['c1'] }),
    ];
    const first = promotion(
      'first',
      buyGet({ quantity: 1 }, { quantity: 2, collectionIds: ['c1'], bps: 1000 }),
      {
        combinesWith: { order: false, items: true, shipping: false },
      },
    );
    const second = promotion(
      'second',
      buyGet({ quantity: 1, productIds: ['p1'] }, { quantity: 1, bps: 5000 }, 1),
      {
        combinesWith: { order: false, items: true, shipping: false },
      },
    );
    // Alone, the second gets the free unit: nothing. After the first (10 % of two 5.00 units: 1),
    // the free unit paid for the first's buy side, so the second gets the 2.00 unit at half: 1.
    assert.equal(pickPromotions(input(lines, [second])).discount, 0);
    const both = pickPromotions(input(lines, [first, second]));
    assert.deepEqual(
      both.applied.map((each) => [each.promotionId, each.amount]),
      [
        ['first', 1],
        ['second', 1],
      ],
    );
  });
});

describe('the anchors’ buy X get Y bugs', () => {
  test('Medusa #13431: buy 4 of a collection, get its T-shirt free: applies when the T-shirt is added last, in every order', () => {
    const apparel = { collectionIds: ['apparel'] };
    const lines = [
      line('hoodies', 'hoodie', 5000, 2, apparel),
      line('jeans', 'jeans', 6000, 2, apparel),
      line('tee', 'tshirt', 2500, 1, apparel),
    ];
    const action = buyGet(
      { quantity: 4, collectionIds: ['apparel'] },
      { quantity: 1, productIds: ['tshirt'], bps: 10000 },
    );
    for (const order of permutations(lines)) {
      const result = pick(order, action);
      assert.deepEqual(result.applied[0]?.lineShares, [{ key: 'tee', amount: 2500 }]);
    }
  });

  test('Medusa #11259: a get percent of 50 % takes half the unit, not all of it', () => {
    const result = pick(
      [line('a', 'sock', 3000, 2)],
      buyGet({ quantity: 1, productIds: ['sock'] }, { quantity: 1, productIds: ['sock'], bps: 5000 }),
    );
    assert.equal(result.discount, 1500);
  });

  test('Medusa #14432: buy 1 get 1 on one line of several units: one unit free per two, never more', () => {
    const action = buyGet(
      { quantity: 1, productIds: ['mug'] },
      { quantity: 1, productIds: ['mug'], bps: 10000 },
    );
    const freeOf = (quantity: number) => pick([line('a', 'mug', 3000, quantity)], action).discount / 3000;
    assert.deepEqual([1, 2, 3, 4, 5].map(freeOf), [0, 1, 1, 2, 2]);
  });

  test('Medusa #14934: the get side is a percentage of the unit (100 % = the unit’s price, never more); more is refused', () => {
    const lines = [line('a', 'pen', 700, 2)];
    const free = pick(lines, buyGet({ quantity: 1 }, { quantity: 1, bps: 10000 }));
    assert.equal(free.discount, 700);
    assert.throws(() => pick(lines, buyGet({ quantity: 1 }, { quantity: 1, bps: 50000 })), RangeError);
  });

  test('Medusa #13265: buy 2 get 1 applies as often as the cart allows, up to usesPerOrder', () => {
    const lines = [line('a', 'pen', 100, 7)];
    assert.equal(
      pick(lines, buyGet({ quantity: 2 }, { quantity: 1, bps: 10000 })).discount,
      200,
      '7 units: twice',
    );
    assert.equal(pick(lines, buyGet({ quantity: 2 }, { quantity: 1, bps: 10000 }, 1)).discount, 100);
  });

  test('Medusa #16396: buy 2 of A, B, C, get 1 A at 61 %: applies whatever the order of the lines', () => {
    const lines = [line('a', 'A', 125), line('b', 'B', 125), line('c', 'C', 125)];
    const action = buyGet(
      { quantity: 2, productIds: ['A', 'B', 'C'] },
      { quantity: 1, productIds: ['A'], bps: 6100 },
    );
    for (const order of permutations(lines))
      assert.deepEqual(pick(order, action).applied[0]?.lineShares, [{ key: 'a', amount: 76 }]);
  });

  test('Medusa #8829: the get item not in the cart: nothing taken off, no negative total', () => {
    const action = buyGet(
      { quantity: 1, productIds: ['shirt'] },
      { quantity: 1, productIds: ['cap'], bps: 10000 },
    );
    const without = pick([line('a', 'shirt', 2000, 10)], action);
    assert.deepEqual([without.discount, without.notApplied[0]?.reason], [0, 'no_matching_items']);
    const short = pick([line('a', 'cap', 2000, 10)], action);
    assert.deepEqual([short.discount, short.notApplied[0]?.reason], [0, 'no_matching_items']);
  });
});

describe('the units got', () => {
  test('the cheapest qualifying units, whatever line they are on', () => {
    const result = pick(
      [line('a', 'x', 3000), line('b', 'y', 1000), line('c', 'z', 2000)],
      buyGet({ quantity: 2 }, { quantity: 1, bps: 10000 }),
    );
    assert.deepEqual(result.applied[0]?.lineShares, [{ key: 'b', amount: 1000 }]);
  });

  test('not the units the buy side needs: a cheaper hat stays bought when only hats satisfy it', () => {
    // Buy 2 hats, get 1 of anything: the 500 hat is the cheapest unit, but both hats must be bought.
    const result = pick(
      [line('hat', 'hat', 500), line('hat2', 'hat', 900), line('cap', 'cap', 1000)],
      buyGet({ quantity: 2, productIds: ['hat'] }, { quantity: 1, bps: 10000 }),
    );
    assert.deepEqual(result.applied[0]?.lineShares, [{ key: 'cap', amount: 1000 }]);
  });

  test('a percent of several units got is rounded once and shared by their value', () => {
    const result = pick(
      [line('a', 'x', 333, 3), line('b', 'y', 1000, 3)],
      buyGet({ quantity: 1, productIds: ['y'] }, { quantity: 1, productIds: ['x'], bps: 3333 }),
    );
    // Three applications: three units of x got at 33.33 %: 999 × 0.3333 = 332.97 → 332 (once, not
    // 110 per unit, which would make 330).
    assert.deepEqual(result.applied[0]?.lineShares, [{ key: 'a', amount: 332 }]);
  });

  test('two buy X get Y together use different units; an order percent then acts on what they left', () => {
    const lines = [line('a', 'pen', 100, 4)];
    const result = pickPromotions(
      input(lines, [
        promotion('first', buyGet({ quantity: 1 }, { quantity: 1, bps: 10000 }), { combinesWith: ALL }),
        promotion('second', buyGet({ quantity: 1 }, { quantity: 1, bps: 5000 }), { combinesWith: ALL }),
        promotion('order', percentOff(1000), { combinesWith: ALL }),
      ]),
    );
    assert.deepEqual(
      result.applied.map((each) => [each.promotionId, each.amount]),
      [
        ['first', 200],
        ['order', 20],
      ],
      'the first takes all four units (two free); the second finds none left',
    );
    assert.deepEqual(result.notApplied, [{ promotionId: 'second', code: null, reason: 'not_better' }]);
  });
});
