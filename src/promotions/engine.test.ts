/**
 * The promotions engine (decision `promotion-engine`): the worked example of docs/promotions.md,
 * combinations, stacking, rounding, conditions, ties and the input it refuses. The anchors' buy X
 * get Y reports are in engine.buy-get.test.ts, the bound on its work and the properties over random
 * carts in engine.properties.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pickPromotions, percentOf } from './engine.ts';
import { ALL, amountOff, freeShipping, input, line, percentOff, promotion } from './engine.test-support.ts';
import { discountAmount } from '../pricing/totals.ts';

const ids = (result: ReturnType<typeof pickPromotions>) => result.applied.map((each) => each.promotionId);
const reasons = (result: ReturnType<typeof pickPromotions>) =>
  Object.fromEntries(result.notApplied.map((each) => [each.promotionId, each.reason]));

describe('how the engine picks (docs/promotions.md)', () => {
  test('the worked example: buy 2 get 1 on the cap, then 10 % off what is left; free shipping does not combine with the code', () => {
    const apparel = { collectionIds: ['apparel'] };
    const result = pickPromotions(
      input(
        [
          line('tees', 'tee', 2000, 3, apparel),
          line('cap', 'cap', 1500, 1, apparel),
          line('card', 'gift-card', 5000, 1, { discountable: false }),
        ],
        [
          promotion(
            'b2g1',
            {
              kind: 'buy_x_get_y',
              buy: { quantity: 2, collectionIds: ['apparel'] },
              get: { quantity: 1, collectionIds: ['apparel'], bps: 10000 },
            },
            { combinesWith: { order: true, items: false, shipping: true } },
          ),
          promotion('save10', percentOff(1000), {
            code: 'SAVE10',
            automatic: false,
            combinesWith: { order: false, items: true, shipping: false },
          }),
          promotion('ship50', freeShipping, {
            conditions: { minSubtotal: 5000 },
            combinesWith: { order: false, items: true, shipping: false },
          }),
        ],
        { shipping: 495 },
      ),
    );
    assert.deepEqual(result.applied, [
      {
        promotionId: 'b2g1',
        code: null,
        amount: 1500,
        lineShares: [{ key: 'cap', amount: 1500 }],
        shipping: 0,
      },
      {
        promotionId: 'save10',
        code: 'SAVE10',
        amount: 600,
        lineShares: [{ key: 'tees', amount: 600 }],
        shipping: 0,
      },
    ]);
    assert.deepEqual(result.lines, [
      { key: 'tees', discount: 600 },
      { key: 'cap', discount: 1500 },
      { key: 'card', discount: 0 },
    ]);
    assert.deepEqual([result.discount, result.shippingDiscount], [2100, 0]);
    assert.deepEqual(result.notApplied, [{ promotionId: 'ship50', code: null, reason: 'not_combinable' }]);
  });
});

describe('combinations', () => {
  const cart = [line('a', 'shirt', 6000), line('b', 'mug', 4000)];

  test('two order discounts: only the better one when either does not allow the order class', () => {
    const result = pickPromotions(
      input(cart, [
        promotion('ten', percentOff(1000), { combinesWith: ALL }),
        promotion('five', amountOff(500), { combinesWith: { order: false, items: true, shipping: true } }),
      ]),
    );
    assert.deepEqual(ids(result), ['ten']);
    assert.equal(result.discount, 1000);
    assert.deepEqual(reasons(result), { five: 'not_combinable' });
  });

  test('both allowing the order class: the percent first, then the amount off what is left', () => {
    const result = pickPromotions(
      input(cart, [
        promotion('five', amountOff(500), { combinesWith: ALL }),
        promotion('ten', percentOff(1000), { combinesWith: ALL }),
      ]),
    );
    assert.deepEqual(
      result.applied.map((each) => [each.promotionId, each.amount]),
      [
        ['ten', 1000],
        ['five', 500],
      ],
    );
    assert.deepEqual(result.lines, [
      { key: 'a', discount: 600 + 300 },
      { key: 'b', discount: 400 + 200 },
    ]);
  });

  test('items first, then the order on the discounted subtotal', () => {
    const result = pickPromotions(
      input(
        [line('shirt', 'shirt', 4000), line('mug', 'mug', 1000)],
        [
          promotion('order10', percentOff(1000), {
            combinesWith: { order: false, items: true, shipping: true },
          }),
          promotion('shirts25', percentOff(2500, 'items'), {
            conditions: { productIds: ['shirt'] },
            combinesWith: { order: true, items: false, shipping: true },
          }),
        ],
      ),
    );
    assert.deepEqual(
      result.applied.map((each) => [each.promotionId, each.amount, each.lineShares]),
      [
        ['shirts25', 1000, [{ key: 'shirt', amount: 1000 }]],
        [
          'order10',
          400,
          [
            { key: 'shirt', amount: 300 },
            { key: 'mug', amount: 100 },
          ],
        ],
      ],
    );
  });

  test('a pair combines only if each allows the other: a one-sided allowance is not enough', () => {
    const result = pickPromotions(
      input(
        cart,
        [
          promotion('items', percentOff(1000, 'items'), { combinesWith: ALL }),
          promotion('ship', freeShipping, { combinesWith: { order: true, items: false, shipping: true } }),
        ],
        { shipping: 2000 },
      ),
    );
    assert.deepEqual(
      ids(result),
      ['ship'],
      'free shipping (2000) alone beats 10 % (1000); together not allowed',
    );
    assert.deepEqual(reasons(result), { items: 'not_combinable' });
  });

  test('free shipping: the shipping is its amount and it has no line shares; without shipping it does not apply', () => {
    const ship = promotion('ship', freeShipping);
    const applied = pickPromotions(input(cart, [ship], { shipping: 495 }));
    assert.deepEqual(applied.applied, [
      { promotionId: 'ship', code: null, amount: 495, lineShares: [], shipping: 495 },
    ]);
    assert.deepEqual([applied.discount, applied.shippingDiscount], [0, 495]);
    for (const shipping of [null, 0])
      assert.deepEqual(reasons(pickPromotions(input(cart, [ship], { shipping }))), { ship: 'no_shipping' });
  });

  test('a second promotion that would take nothing more off is not applied: not_better', () => {
    const result = pickPromotions(
      input(
        [line('a', 'shirt', 1000)],
        [
          promotion('all', percentOff(10000), { combinesWith: ALL }),
          promotion('more', amountOff(100), { combinesWith: ALL }),
        ],
      ),
    );
    assert.deepEqual(ids(result), ['all']);
    assert.deepEqual(reasons(result), { more: 'not_better' });
  });
});

describe('amounts', () => {
  test('a percent is rounded down to the minor unit, as discount codes always were', () => {
    assert.equal(percentOf(333, 1500), 49, '49.95 → 49');
    assert.equal(percentOf(10, 500), 0, '0.5 → 0');
    assert.equal(percentOf(20, 500), 1);
    assert.equal(percentOf(999, 10000), 999);
    assert.equal(percentOf(9_007_199_254_740_991, 10000), 9_007_199_254_740_991, 'BigInt: no precision lost');
    const result = pickPromotions(input([line('a', 'x', 111, 3)], [promotion('p', percentOff(1500))]));
    assert.equal(result.discount, 49, '15 % of 333');
    // The same figure as the discount code of before (whole percents, rounded down).
    assert.equal(result.discount, discountAmount(333, { kind: 'percent', value: 15 }));
  });

  test('an amount larger than what it acts on takes off exactly that, never below zero', () => {
    const result = pickPromotions(
      input(
        [line('a', 'shirt', 1234), line('b', 'mug', 800)],
        [promotion('big', amountOff(5000, 'items'), { conditions: { productIds: ['shirt'] } })],
      ),
    );
    assert.deepEqual(result.lines, [
      { key: 'a', discount: 1234 },
      { key: 'b', discount: 0 },
    ]);
  });

  test('an order discount is shared over the lines by largest remainder, ties to the earlier line', () => {
    const result = pickPromotions(
      input(
        [line('a', 'x', 333), line('b', 'y', 333), line('c', 'z', 334)],
        [promotion('p', amountOff(100))],
      ),
    );
    assert.deepEqual(
      result.lines.map((each) => each.discount),
      [33, 33, 34],
    );
    const even = pickPromotions(
      input([line('a', 'x', 1), line('b', 'y', 1)], [promotion('p', amountOff(1))]),
    );
    assert.deepEqual(
      even.lines.map((each) => each.discount),
      [1, 0],
    );
  });

  test('gift cards are never discounted and do not count toward a minimum', () => {
    const lines = [line('card', 'gift', 10000, 1, { discountable: false }), line('mug', 'mug', 1000)];
    const result = pickPromotions(input(lines, [promotion('p', percentOff(1000))]));
    assert.deepEqual(result.lines, [
      { key: 'card', discount: 0 },
      { key: 'mug', discount: 100 },
    ]);
    const minimum = pickPromotions(
      input(lines, [promotion('p', percentOff(1000), { conditions: { minSubtotal: 5000 } })]),
    );
    assert.deepEqual(reasons(minimum), { p: 'minimum_not_met' });
  });
});

describe('conditions', () => {
  const lines = [line('a', 'shirt', 3000, 2, { collectionIds: ['summer'] }), line('b', 'mug', 0)];
  const buyer = { customerGroupIds: ['vip'], marketId: 'eu', firstOrder: false };
  const cases: [string, object, string | null][] = [
    ['another market', { marketIds: ['us'] }, 'market'],
    ['the buyer’s market', { marketIds: ['us', 'eu'] }, null],
    ['another group', { customerGroupIds: ['wholesale'] }, 'customer_group'],
    ['one of the buyer’s groups', { customerGroupIds: ['wholesale', 'vip'] }, null],
    ['first order only', { firstOrderOnly: true }, 'first_order_only'],
    ['a product not in the cart', { productIds: ['hat'] }, 'no_matching_items'],
    ['a collection in the cart', { collectionIds: ['summer'] }, null],
    ['a minimum subtotal not reached', { minSubtotal: 6001 }, 'minimum_not_met'],
    ['a minimum subtotal reached', { minSubtotal: 6000 }, null],
    [
      'a minimum quantity over the matching lines',
      { productIds: ['shirt'], minQuantity: 3 },
      'minimum_not_met',
    ],
    ['only free items match', { productIds: ['mug'] }, 'nothing_to_discount'],
  ];
  for (const [name, conditions, reason] of cases)
    test(`${name}: ${reason ?? 'applies'}`, () => {
      const result = pickPromotions(
        input(lines, [promotion('p', percentOff(1000, 'items'), { conditions })], { buyer }),
      );
      if (reason === null) assert.deepEqual(ids(result), ['p']);
      else assert.deepEqual(result.notApplied, [{ promotionId: 'p', code: null, reason }]);
    });

  test('an entered code that does not apply is named with its code and reason', () => {
    const result = pickPromotions(
      input(lines, [
        promotion('p', percentOff(1000), {
          code: 'FIRST',
          automatic: false,
          conditions: { firstOrderOnly: true },
        }),
      ]),
    );
    assert.deepEqual(result.notApplied, [{ promotionId: 'p', code: 'FIRST', reason: 'first_order_only' }]);
  });
});

describe('ties', () => {
  const lines = [line('a', 'shirt', 5000)];
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

  test('equal totals: a code before automatic ones, then the earlier created, then the lower id; input order does not matter', () => {
    const early = promotion('b-early', percentOff(1000), { createdAt: at(1) });
    const late = promotion('a-late', percentOff(1000), { createdAt: at(2) });
    const sameTime = promotion('a-same', percentOff(1000), { createdAt: at(1) });
    const code = promotion('z-code', percentOff(1000), { code: 'TEN', automatic: false, createdAt: at(9) });
    assert.deepEqual(ids(pickPromotions(input(lines, [early, late, code]))), ['z-code']);
    assert.deepEqual(ids(pickPromotions(input(lines, [late, early]))), ['b-early']);
    assert.deepEqual(ids(pickPromotions(input(lines, [early, sameTime]))), ['a-same']);
    const forward = pickPromotions(input(lines, [early, late, sameTime, code]));
    const backward = pickPromotions(input(lines, [code, sameTime, late, early]));
    assert.deepEqual(backward, forward);
  });

  test('codes rank in the order entered', () => {
    const first = promotion('first', percentOff(1000), { code: 'ONE', automatic: false });
    const second = promotion('second', percentOff(1000), { code: 'TWO', automatic: false });
    assert.deepEqual(ids(pickPromotions(input(lines, [first, second], { codes: ['TWO', 'ONE'] }))), [
      'second',
    ]);
    assert.deepEqual(ids(pickPromotions(input(lines, [first, second], { codes: ['ONE', 'TWO'] }))), [
      'first',
    ]);
  });
});

describe('input the engine refuses (a caller’s error)', () => {
  const lines = [line('a', 'x', 100)];
  const refused: [string, () => unknown][] = [
    ['a percent above 100 %', () => pickPromotions(input(lines, [promotion('p', percentOff(10001))]))],
    ['a negative amount', () => pickPromotions(input(lines, [promotion('p', amountOff(-1))]))],
    ['a fractional price', () => pickPromotions(input([line('a', 'x', 1.5)], []))],
    ['repeated line keys', () => pickPromotions(input([line('a', 'x', 1), line('a', 'y', 1)], []))],
    ['six codes', () => pickPromotions(input(lines, [], { codes: ['A', 'B', 'C', 'D', 'E', 'F'] }))],
    [
      'a code promotion whose code was not entered',
      () =>
        pickPromotions(
          input(lines, [promotion('p', percentOff(10), { code: 'X', automatic: false })], { codes: [] }),
        ),
    ],
    [
      'a buy X get Y of no units',
      () =>
        pickPromotions(
          input(lines, [
            promotion('p', { kind: 'buy_x_get_y', buy: { quantity: 0 }, get: { quantity: 1, bps: 10000 } }),
          ]),
        ),
    ],
  ];
  for (const [name, call] of refused) test(name, () => assert.throws(call, RangeError));
});
