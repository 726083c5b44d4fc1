/** What the shop says of gift cards: a card's reason, a refusal, the pay button, a checkout paid by cards, a cart of cards only. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StorefrontError, type CartNotice, type Checkout } from '@storefront/client';
import {
  giftCardRefusal,
  isGiftCardNotice,
  onlyGiftCards,
  paidAtCheckout,
  payingCards,
  payWords,
  typedCode,
  unusableWords,
} from '../src/gift-cards.ts';

const notice = (reason?: string): CartNotice => ({
  code: 'gift_card_unusable',
  detail: `The service's own sentence (${reason ?? 'none'}).`,
  giftCard: 'C4RW',
  ...(reason === undefined ? {} : { reason }),
});

const problem = (status: number, title: string, detail: string, retryAfter: number | null = null) =>
  new StorefrontError(
    { type: 'about:blank', title, status, detail },
    { status, requestId: null, retryAfter },
    { method: 'POST', url: '/storefront/v1/carts/x/gift-cards' },
  );

const usd = (amount: number) => ({ amount, currency: 'USD' });

describe('unusableWords', () => {
  test('each reason the service gives is a sentence of its own, and says checkout refuses the card', () => {
    const said = ['disabled', 'expired', 'currency', 'empty'].map((reason) => unusableWords(notice(reason)));
    assert.equal(new Set(said).size, 4);
    for (const words of said) assert.match(words, /^This card .+\. Remove it to pay\.$/);
    assert.equal(unusableWords(notice('expired')), 'This card has expired. Remove it to pay.');
  });
  test('a reason the table does not know yet, or none, is the service’s own sentence', () => {
    assert.equal(unusableWords(notice('stolen')), "The service's own sentence (stolen). Remove it to pay.");
    assert.equal(unusableWords(notice()), "The service's own sentence (none). Remove it to pay.");
  });
  test('only gift_card_unusable notices are a card’s', () => {
    assert.equal(isGiftCardNotice(notice('empty')), true);
    assert.equal(isGiftCardNotice({ code: 'discount_code_invalid', detail: 'x', discountCode: 'A' }), false);
  });
});

describe('giftCardRefusal', () => {
  test('a code no card has, or a card that cannot pay: the service’s detail, which says which', () => {
    const detail = 'The gift card ending C4RW has expired.';
    assert.equal(giftCardRefusal(problem(409, 'gift_card_invalid', detail)), detail);
  });
  test('too many guesses: the detail, which says when to try again', () => {
    const detail = 'Too many gift card codes from this address; retry in 42 s.';
    assert.equal(giftCardRefusal(problem(429, 'rate_limited', detail, 42)), detail);
  });
  test('a sixth card, and a malformed code, in the shop’s words', () => {
    assert.equal(
      giftCardRefusal(problem(409, 'too_many_gift_cards', 'A cart holds at most 5 gift cards.')),
      'An order takes up to 5 gift cards. Remove one to add another.',
    );
    assert.equal(
      giftCardRefusal(problem(400, 'validation_failed', 'The request is invalid.')),
      'Enter the code as it is printed on the card.',
    );
  });
  test('anything else is not the field’s to say', () => {
    assert.equal(giftCardRefusal(problem(412, 'precondition_failed', 'changed')), null);
    assert.equal(giftCardRefusal(problem(500, 'internal', 'oops')), null);
    assert.equal(giftCardRefusal(new Error('network')), null);
  });
});

describe('typedCode', () => {
  test('the spaces and dashes of a printed code go; nothing typed is empty', () => {
    assert.equal(typedCode(' k7qm-2xhp 9tnv-c4rw '), 'k7qm2xhp9tnvc4rw');
    assert.equal(typedCode(' - - '), '');
  });
});

describe('payWords', () => {
  test('"Pay" what the provider charges, "Place order" when the cards pay it all', () => {
    assert.equal(payWords(usd(2500)), 'Pay $25.00');
    assert.equal(payWords(usd(0)), 'Place order');
    assert.equal(payWords({ amount: 1999, currency: 'EUR' }), 'Pay €19.99');
  });
});

describe('paidAtCheckout', () => {
  const answer = (orderStatus: string, paymentStatus: string) =>
    ({ order: { status: orderStatus }, payment: { status: paymentStatus } }) as unknown as Checkout;
  test('paid when the payment succeeded or the order is paid, else the provider’s page is next', () => {
    assert.equal(paidAtCheckout(answer('paid', 'succeeded')), true);
    assert.equal(paidAtCheckout(answer('pending', 'succeeded')), true);
    assert.equal(paidAtCheckout(answer('paid', 'pending')), true);
    assert.equal(paidAtCheckout(answer('pending', 'pending')), false);
  });
});

describe('onlyGiftCards', () => {
  const cards = new Set(['card-product']);
  test('every line a gift card product: nothing ships', () => {
    assert.equal(onlyGiftCards([{ productId: 'card-product' }, { productId: 'card-product' }], cards), true);
  });
  test('one line of another product, or no lines at all: not gift cards only', () => {
    assert.equal(onlyGiftCards([{ productId: 'card-product' }, { productId: 'mug' }], cards), false);
    assert.equal(onlyGiftCards([], cards), false);
  });
});

describe('payingCards', () => {
  test('a card that pays nothing is left out of the totals', () => {
    const held = [
      { last4: 'AAAA', amount: usd(1500) },
      { last4: 'BBBB', amount: usd(0) },
    ];
    assert.deepEqual(
      payingCards(held).map((card) => card.last4),
      ['AAAA'],
    );
  });
});
