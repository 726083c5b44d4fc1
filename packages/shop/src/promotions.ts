/**
 * What the shop says of a cart's promotions (decision `cart-promotions`): why a code the cart holds
 * takes nothing off, in a short sentence a shopper understands, and which of the promotions that
 * apply took shipping off (the totals show those as free shipping, the others as lines off the goods).
 */
import type { Cart, CartNotice } from '@storefront/client';

export type AppliedPromotion = Cart['promotions'][number];

/** A code the cart holds but that takes nothing off now (`discount_not_applicable`), by the engine's reason. */
const NOT_APPLICABLE: Record<string, string> = {
  market: 'This code cannot be used in your country.',
  customer_group: 'This code is for certain customers only.',
  first_order_only: 'This code is for a first order only.',
  no_matching_items: 'This code is for items that are not in your cart.',
  minimum_not_met: 'Add more to your cart to use this code.',
  no_shipping: 'This code takes shipping off: it applies once your order has shipping.',
  nothing_to_discount: 'There is nothing in your cart for this code to take off.',
  not_considered: 'Too many offers apply to your cart to weigh this one too.',
  not_combinable: 'This code cannot be combined with the other offers in your cart.',
  not_better: 'Your other offers already take more off.',
};

/** A code that can no longer be used (`discount_code_invalid`): checkout refuses it. */
const INVALID: Record<string, string> = {
  unknown: 'This code is not valid.',
  not_started: 'This code is not valid yet.',
  ended: 'This code has expired.',
  used_up: 'This code has been used up.',
  customer_limit: 'You have already used this code.',
};

/** Whether a notice is about one of the cart's discount codes (the shop shows those beside the code). */
export function isCodeNotice(notice: CartNotice): boolean {
  return notice.code === 'discount_not_applicable' || notice.code === 'discount_code_invalid';
}

/**
 * Why a code takes nothing off, in a shopper's words: the reason of its notice, else the service's
 * own sentence (a reason this table does not know yet). A code checkout would refuse says so.
 */
export function codeWords(notice: CartNotice): string {
  const table = notice.code === 'discount_code_invalid' ? INVALID : NOT_APPLICABLE;
  const reason = notice.reason ?? '';
  const words = Object.hasOwn(table, reason) ? table[reason] : undefined;
  if (words === undefined) return notice.detail;
  return notice.code === 'discount_code_invalid' ? `${words} Remove it to pay.` : words;
}

/**
 * The promotions that apply, parted into those off the goods and those that took shipping off: by
 * the `shipping` part each one says it took off. Orders placed before that part was kept say 0
 * for every one; for them, the cart lists shipping's last (items, then the order, then shipping)
 * and `discount` is the goods' part alone, so shipping's are the last ones whose amounts make up
 * the rest. When the amounts do not add up that way (an order from before promotions), every one
 * is shown off the goods.
 */
export function partPromotions(
  promotions: readonly AppliedPromotion[],
  discount: number,
): { goods: AppliedPromotion[]; shipping: AppliedPromotion[] } {
  if (promotions.some((promotion) => promotion.shipping.amount > 0))
    return {
      goods: promotions.filter((promotion) => promotion.shipping.amount === 0),
      shipping: promotions.filter((promotion) => promotion.shipping.amount > 0),
    };
  let shippingOff = promotions.reduce((sum, promotion) => sum + promotion.amount.amount, 0) - discount;
  let at = promotions.length;
  while (shippingOff > 0 && at > 0 && promotions[at - 1]!.amount.amount <= shippingOff) {
    at--;
    shippingOff -= promotions[at]!.amount.amount;
  }
  if (shippingOff !== 0) return { goods: [...promotions], shipping: [] };
  return { goods: promotions.slice(0, at), shipping: promotions.slice(at) };
}
