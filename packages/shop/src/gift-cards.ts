/**
 * What the shop says of gift cards (decision `shop-gift-cards`): why a card the cart holds pays
 * nothing now, why a code was refused (the service's own detail, which names the card), what the
 * pay button says when the cards leave nothing to pay, whether a checkout's answer is paid already
 * (the cards paid it all: no payment page), and whether a cart sells only gift cards (nothing to
 * ship, so no address).
 */
import {
  formatMoney,
  StorefrontError,
  type Cart,
  type CartNotice,
  type Checkout,
  type Money,
} from '@storefront/client';

/** A card the cart holds: its last 4 characters, what it pays of this cart, its balance. */
export type HeldGiftCard = Cart['giftCards'][number];

/** Why a card the cart holds pays nothing now (`gift_card_unusable`), by the notice's reason. */
const UNUSABLE: Record<string, string> = {
  disabled: 'This card has been disabled by the store.',
  expired: 'This card has expired.',
  currency: 'This card is in another currency than your order.',
  empty: 'This card has no balance left.',
};

/** Whether a notice is about one of the cart's gift cards (the shop shows those beside the card). */
export function isGiftCardNotice(notice: CartNotice): boolean {
  return notice.code === 'gift_card_unusable';
}

/**
 * Why a card pays nothing, in a shopper's words, and that checkout would refuse it: the reason of
 * its notice, else the service's own sentence (a reason this table does not know yet).
 */
export function unusableWords(notice: CartNotice): string {
  const reason = notice.reason ?? '';
  const words = Object.hasOwn(UNUSABLE, reason) ? UNUSABLE[reason] : undefined;
  return `${words ?? notice.detail} Remove it to pay.`;
}

/**
 * What the gift card field says when a code is not added: the service's detail for a code no card
 * has or a card that cannot pay (it says which), for a sixth card, and for too many guesses (it
 * says when to try again); null for another error (shown above the form).
 */
export function giftCardRefusal(error: unknown): string | null {
  if (!(error instanceof StorefrontError)) return null;
  if (error.title === 'too_many_gift_cards')
    return 'An order takes up to 5 gift cards. Remove one to add another.';
  if (error.title === 'gift_card_invalid' || error.status === 429)
    return error.detail || 'This gift card cannot be used.';
  if (error.status === 400) return 'Enter the code as it is printed on the card.';
  return null;
}

/** The code typed, as worth sending: without the spaces and dashes a printed code has ('' when nothing is left). */
export function typedCode(value: string): string {
  return value.replace(/[\s-]+/g, '');
}

/** The review's button: "Pay $20.00" when the provider charges something, "Place order" when the cards pay it all. */
export function payWords(amountDue: Money): string {
  return amountDue.amount === 0 ? 'Place order' : `Pay ${formatMoney(amountDue.amount, amountDue.currency)}`;
}

/**
 * Whether the checkout's order is paid already: the gift cards paid it all (`payment.status`
 * `succeeded`, provider `gift_card`), so there is no payment page to go to.
 */
export function paidAtCheckout(checkout: Pick<Checkout, 'order' | 'payment'>): boolean {
  return checkout.payment.status === 'succeeded' || checkout.order.status === 'paid';
}

/**
 * Whether every line sells gift cards (by its product: `giftCard` on the products read), so the
 * order ships nothing. False for an empty cart, and for a line whose product is not known.
 */
export function onlyGiftCards(
  lines: readonly Pick<Cart['items'][number], 'productId'>[],
  giftCardProducts: ReadonlySet<string>,
): boolean {
  return lines.length > 0 && lines.every((line) => giftCardProducts.has(line.productId));
}

/** The cards that pay something, for the totals (a card that pays nothing is said beside it instead). */
export function payingCards<T extends { amount: Money }>(cards: readonly T[]): T[] {
  return cards.filter((card) => card.amount.amount > 0);
}
