/** What the shop says of a cart's promotions: a code's reason in a shopper's words, shipping's promotions apart. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CartNotice } from '@storefront/client';
import { codeWords, isCodeNotice, partPromotions, type AppliedPromotion } from '../src/promotions.ts';

const notice = (code: CartNotice['code'], reason?: string): CartNotice => ({
  code,
  detail: `The service's own sentence (${reason ?? 'none'}).`,
  discountCode: 'BIG',
  ...(reason === undefined ? {} : { reason }),
});

/** An applied promotion; `shipping`: what of it was shipping (0, as orders from before it was kept say). */
const applied = (
  name: string,
  amount: number,
  code: string | null = null,
  shipping = 0,
): AppliedPromotion => ({
  id: name,
  name,
  code,
  amount: { amount, currency: 'USD' },
  shipping: { amount: shipping, currency: 'USD' },
});

describe('codeWords', () => {
  test('every reason the engine gives, and every refusal, is a short sentence of its own', () => {
    const reasons = [
      'market',
      'customer_group',
      'first_order_only',
      'no_matching_items',
      'minimum_not_met',
      'no_shipping',
      'nothing_to_discount',
      'not_considered',
      'not_combinable',
      'not_better',
    ];
    const said = reasons.map((reason) => codeWords(notice('discount_not_applicable', reason)));
    assert.equal(new Set(said).size, reasons.length);
    for (const words of said) {
      assert.doesNotMatch(words, /service's own/);
      assert.ok(words.length < 80, words);
    }
    assert.equal(
      codeWords(notice('discount_not_applicable', 'minimum_not_met')),
      'Add more to your cart to use this code.',
    );
    const problems = ['unknown', 'not_started', 'ended', 'used_up', 'customer_limit'];
    for (const problem of problems)
      assert.match(codeWords(notice('discount_code_invalid', problem)), /\. Remove it to pay\.$/, problem);
    assert.equal(
      codeWords(notice('discount_code_invalid', 'ended')),
      'This code has expired. Remove it to pay.',
    );
  });

  test('a reason it does not know, or none, is the service’s own sentence; nothing from the prototype', () => {
    assert.equal(
      codeWords(notice('discount_not_applicable', 'a_new_reason')),
      "The service's own sentence (a_new_reason).",
    );
    assert.equal(codeWords(notice('discount_not_applicable')), "The service's own sentence (none).");
    assert.equal(
      codeWords(notice('discount_not_applicable', 'constructor')),
      "The service's own sentence (constructor).",
    );
  });

  test('only the code notices are said beside the code', () => {
    assert.equal(isCodeNotice(notice('discount_not_applicable')), true);
    assert.equal(isCodeNotice(notice('discount_code_invalid')), true);
    assert.equal(isCodeNotice(notice('market_changed')), false);
    assert.equal(isCodeNotice(notice('shipping_method_cleared')), false);
  });
});

describe('partPromotions', () => {
  test('the goods’ promotions make up the discount; the last ones took shipping off', () => {
    const promotions = [
      applied('Half-price mugs', 500, 'MUGS'),
      applied('10 % off over $50', 530),
      applied('Free shipping over $80', 495),
    ];
    assert.deepEqual(partPromotions(promotions, 1030), {
      goods: promotions.slice(0, 2),
      shipping: promotions.slice(2),
    });
  });

  test('without shipping taken off, every promotion is off the goods', () => {
    const promotions = [applied('10 % off over $50', 600), applied('Welcome', 500, 'WELCOME')];
    assert.deepEqual(partPromotions(promotions, 1100), { goods: promotions, shipping: [] });
    assert.deepEqual(partPromotions([], 0), { goods: [], shipping: [] });
  });

  test('free shipping alone; a goods promotion worth as much as the shipping stays with the goods', () => {
    const free = applied('Free shipping', 500);
    assert.deepEqual(partPromotions([free], 0), { goods: [], shipping: [free] });
    const same = [applied('$5 off', 500, 'FIVE'), free];
    assert.deepEqual(partPromotions(same, 500), { goods: [same[0]], shipping: [free] });
  });

  test('a promotion that says it took shipping off is shipping’s, whatever the amounts', () => {
    const free = applied('Free shipping', 495, null, 495);
    const promotions = [free, applied('$5 off', 500, 'FIVE')];
    assert.deepEqual(partPromotions(promotions, 100), { goods: [promotions[1]], shipping: [free] });
  });

  test('amounts that do not add up (an order from before promotions) are all shown off the goods', () => {
    const promotions = [applied('Welcome', 500, 'WELCOME'), applied('Other', 300)];
    assert.deepEqual(partPromotions(promotions, 600), { goods: promotions, shipping: [] });
    assert.deepEqual(partPromotions([], 600), { goods: [], shipping: [] });
  });
});
