/**
 * A promotion's rule in plain words (src/screens/promotions/summary.ts, decision
 * `promotions-resource`): every action kind (percent and amount, off the order or the matching
 * items; free shipping; buy X get Y, free or at a percentage, of the same or other products), every
 * condition (minimum subtotal and quantity, products, collections, customer groups, markets, first
 * order only), the per-customer limit and the combinations; names not known are counted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  namedProductIds,
  promotionSummary,
  type PromotionRule,
  usageText,
  type SummaryNames,
} from '../src/screens/promotions/summary.ts';

const NAMES: Record<string, string> = {
  socks: 'Socks',
  hats: 'Hats',
  scarf: 'Scarf',
  belt: 'Belt',
  summer: 'Summer',
  linen: 'Linen',
  vip: 'VIP',
  trade: 'Wholesale',
  eu: 'Europe',
  jp: 'Japan',
};
const lookup = (id: string) => NAMES[id];
const names: SummaryNames = {
  currency: 'USD',
  product: lookup,
  collection: lookup,
  group: lookup,
  market: lookup,
};
const NONE = { order: false, items: false, shipping: false };

function rule(overrides: Partial<PromotionRule>): PromotionRule {
  return {
    action: { kind: 'percent', value: 10, target: 'order' },
    conditions: {},
    combinesWith: NONE,
    perCustomerLimit: null,
    ...overrides,
  };
}
const say = (overrides: Partial<PromotionRule>, with_: SummaryNames = names) =>
  promotionSummary(rule(overrides), with_);

describe('the action', () => {
  test('a percent off the order, with decimals', () => {
    assert.equal(say({ action: { kind: 'percent', value: 25, target: 'order' } }), '25 % off the order');
    assert.equal(say({ action: { kind: 'percent', value: 12.5, target: 'order' } }), '12.5 % off the order');
  });

  test('a percent off the matching items, or every item', () => {
    assert.equal(
      say({
        action: { kind: 'percent', value: 20, target: 'items' },
        conditions: { productIds: ['socks', 'hats'], collectionIds: ['summer'] },
      }),
      '20 % off Socks and Hats and items from Summer',
    );
    assert.equal(say({ action: { kind: 'percent', value: 20, target: 'items' } }), '20 % off every item');
  });

  test('an amount (minor units) off the order or the items, in the store currency', () => {
    assert.equal(say({ action: { kind: 'amount', value: 500, target: 'order' } }), '$5.00 off the order');
    assert.equal(
      say({
        action: { kind: 'amount', value: 1500, target: 'items' },
        conditions: { productIds: ['socks'] },
      }),
      '$15.00 off Socks',
    );
    assert.equal(
      say({ action: { kind: 'amount', value: 1500, target: 'order' } }, { ...names, currency: 'JPY' }),
      '¥1,500 off the order',
    );
  });

  test('free shipping', () => {
    assert.equal(say({ action: { kind: 'free_shipping' } }), 'Free shipping');
  });

  test('buy X get Y: the same products free, other products at a percentage, anything', () => {
    assert.equal(
      say({
        action: {
          kind: 'buy_x_get_y',
          buy: { quantity: 2, productIds: ['socks'] },
          get: { quantity: 1, productIds: ['socks'], percent: 100 },
        },
      }),
      'Buy 2 of Socks, get 1 free',
    );
    assert.equal(
      say({
        action: {
          kind: 'buy_x_get_y',
          buy: { quantity: 3, collectionIds: ['summer'] },
          get: { quantity: 1, productIds: ['hats'], percent: 50 },
        },
      }),
      'Buy 3 items from Summer, get 1 of Hats at 50 % off',
    );
    assert.equal(
      say({
        action: {
          kind: 'buy_x_get_y',
          buy: { quantity: 2, productIds: ['socks'] },
          get: { quantity: 1, percent: 100 },
        },
      }),
      'Buy 2 of Socks, get 1 of any product free',
    );
    assert.equal(
      say({
        action: {
          kind: 'buy_x_get_y',
          buy: { quantity: 1, productIds: ['socks'] },
          get: { quantity: 1, collectionIds: ['summer'], percent: 100 },
        },
      }),
      'Buy 1 of Socks, get 1 item from Summer free',
    );
    assert.equal(
      say({ action: { kind: 'buy_x_get_y', buy: { quantity: 2 }, get: { quantity: 1, percent: 25 } } }),
      'Buy 2, get 1 at 25 % off',
    );
  });

  test('a form still being filled in says what is missing with a question mark', () => {
    assert.equal(say({ action: { kind: 'percent', target: 'order' } }), '? % off the order');
    assert.equal(say({ action: { kind: 'amount', target: 'order' } }), '? off the order');
  });
});

describe('the conditions', () => {
  test('a minimum subtotal, in the store currency', () => {
    assert.equal(
      say({ action: { kind: 'free_shipping' }, conditions: { minSubtotal: 10000 } }),
      'Free shipping over $100.00',
    );
  });

  test('a minimum quantity', () => {
    assert.equal(say({ conditions: { minQuantity: 3 } }), '10 % off the order for 3 items or more');
    assert.equal(say({ conditions: { minQuantity: 1 } }), '10 % off the order for 1 item or more');
  });

  test('products and collections: in the cart, or what the minimums count', () => {
    assert.equal(
      say({ conditions: { productIds: ['socks'], collectionIds: ['summer', 'linen'] } }),
      '10 % off the order with Socks or items from Summer or Linen in the cart',
    );
    assert.equal(
      say({ conditions: { productIds: ['socks'], minSubtotal: 5000, minQuantity: 2 } }),
      '10 % off the order over $50.00 spent on Socks for 2 or more of them',
    );
    assert.equal(
      say({ action: { kind: 'free_shipping' }, conditions: { collectionIds: ['summer'], minQuantity: 2 } }),
      'Free shipping for 2 or more items from Summer',
    );
    assert.equal(
      say({
        action: { kind: 'percent', value: 10, target: 'items' },
        conditions: { collectionIds: ['summer'], minQuantity: 2 },
      }),
      '10 % off items from Summer for 2 or more of them',
    );
  });

  test('customer groups and markets, by name', () => {
    assert.equal(
      say({ conditions: { customerGroupIds: ['vip', 'trade'], marketIds: ['eu'] } }),
      '10 % off the order in Europe for members of VIP or Wholesale',
    );
  });

  test('first order only', () => {
    assert.equal(
      say({ conditions: { firstOrderOnly: true } }),
      '10 % off the order on a buyer’s first order',
    );
  });

  test('every condition at once, then the per-customer limit and the combinations', () => {
    assert.equal(
      say({
        action: { kind: 'percent', value: 25, target: 'order' },
        conditions: {
          minSubtotal: 5000,
          minQuantity: 2,
          productIds: ['socks'],
          collectionIds: ['summer'],
          customerGroupIds: ['vip'],
          marketIds: ['eu', 'jp'],
          firstOrderOnly: true,
        },
        perCustomerLimit: 1,
        combinesWith: { order: false, items: true, shipping: true },
      }),
      '25 % off the order over $50.00 spent on Socks or items from Summer for 2 or more of them in Europe or Japan for members of VIP on a buyer’s first order, once per customer, combines with item and shipping promotions',
    );
  });

  test('names not known are counted, and a long list names three', () => {
    const unknown = { ...names, product: () => undefined, market: () => undefined };
    assert.equal(
      say({ conditions: { productIds: ['a', 'b'], marketIds: ['x'] } }, unknown),
      '10 % off the order with 2 products in the cart in 1 market',
    );
    assert.equal(
      say({ conditions: { productIds: ['socks', 'hats', 'scarf', 'belt', 'gone'] } }),
      '10 % off the order with Socks, Hats, Scarf or 2 other products in the cart',
    );
    assert.equal(
      say({ conditions: { productIds: ['socks', 'gone'] } }),
      '10 % off the order with Socks or 1 other product in the cart',
    );
  });
});

describe('limits and combinations', () => {
  test('the per-customer limit', () => {
    assert.equal(say({ perCustomerLimit: 1 }), '10 % off the order, once per customer');
    assert.equal(say({ perCustomerLimit: 2 }), '10 % off the order, twice per customer');
    assert.equal(say({ perCustomerLimit: 5 }), '10 % off the order, up to 5 times per customer');
  });

  test('what it combines with; nothing said when it combines with nothing', () => {
    assert.equal(
      say({ combinesWith: { order: false, items: false, shipping: true } }),
      '10 % off the order, combines with shipping promotions',
    );
    assert.equal(
      say({ combinesWith: { order: true, items: true, shipping: true } }),
      '10 % off the order, combines with order, item and shipping promotions',
    );
    assert.equal(say({ combinesWith: NONE }), '10 % off the order');
  });

  test('the brief’s example', () => {
    assert.equal(
      say({
        action: { kind: 'percent', value: 25, target: 'order' },
        conditions: { minSubtotal: 5000 },
        perCustomerLimit: 1,
        combinesWith: { order: false, items: false, shipping: true },
      }),
      '25 % off the order over $50.00, once per customer, combines with shipping promotions',
    );
  });
});

test('the products a summary names are the first three of each list, once each', () => {
  assert.deepEqual(
    namedProductIds({
      action: {
        kind: 'buy_x_get_y',
        buy: { quantity: 1, productIds: ['a', 'b'] },
        get: { quantity: 1, productIds: ['b', 'c'], percent: 100 },
      },
      conditions: { productIds: ['d', 'e', 'f', 'g'] },
    }),
    ['d', 'e', 'f', 'a', 'b', 'c'],
  );
});

test('the uses so far, against the limit when there is one', () => {
  assert.equal(usageText({ usedCount: 12, usageLimit: 500 }), '12 of 500 used');
  assert.equal(usageText({ usedCount: 12, usageLimit: null }), '12 used');
});
