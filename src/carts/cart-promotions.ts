import type { Pricing, PricedLine } from '../pricing/order-pricing.ts';
import type { NotAppliedReason } from '../promotions/engine.types.ts';
import type { CodeProblem, PromotionOffer } from '../promotions/offer.ts';
import type { CartNotice } from './carts.schemas.ts';

/**
 * What a cart says of its promotions (decision `cart-promotions`): why a code it holds takes
 * nothing off, and how far it is from free shipping.
 */

const PROBLEMS: Record<CodeProblem, string> = {
  unknown: 'is not a code of this store',
  not_started: 'is not valid yet',
  ended: 'has ended',
  used_up: 'has been used up',
  customer_limit: 'has been used as many times as one buyer may',
};

const REASONS: Record<NotAppliedReason, string> = {
  market: 'is not valid in this market',
  customer_group: 'is for other customers (a customer group)',
  first_order_only: 'is for a first order only',
  no_matching_items: 'needs items the cart does not have',
  minimum_not_met: 'needs a larger order (its minimum is not reached)',
  no_shipping: 'takes shipping off, and this cart has no shipping to take off yet',
  nothing_to_discount: 'has nothing left to take off',
  not_considered: 'was not considered: the cart has more promotions than are weighed together',
  not_combinable: 'cannot be combined with the promotions that apply',
  not_better: 'would take less off than the promotions that apply',
};

/** The notices of the cart's codes that take nothing off: refused (checkout would refuse them) or not applicable now. */
export function codeNotices(offer: PromotionOffer | null, pricing: Pricing): CartNotice[] {
  if (offer === null) return [];
  const notices: CartNotice[] = offer.refused.map(({ code, problem }) => ({
    code: 'discount_code_invalid',
    detail: `The discount code ${code} ${PROBLEMS[problem]}; checkout would refuse it.`,
    discountCode: code,
    reason: problem,
  }));
  for (const { code, reason } of pricing.promotions?.result.notApplied ?? []) {
    if (code === null) continue;
    notices.push({
      code: 'discount_not_applicable',
      detail: `The discount code ${code} ${REASONS[reason]}: it takes nothing off now.`,
      discountCode: code,
      reason,
    });
  }
  return notices;
}

/**
 * How much more of the goods (before discounts) the nearest free-shipping promotion wants: one the
 * cart would qualify for but for its minimum subtotal over every line (no product, collection or
 * quantity condition). Null when shipping is free already, nothing ships, or none is that close.
 */
export function freeShippingRemaining(
  offer: PromotionOffer | null,
  pricing: Pricing,
  lines: readonly PricedLine[],
): number | null {
  const result = pricing.promotions?.result;
  if (offer === null || result === undefined || result.shippingDiscount > 0) return null;
  if (!lines.some((line) => line.requiresShipping)) return null;
  const short = new Set(
    result.notApplied.filter((entry) => entry.reason === 'minimum_not_met').map((entry) => entry.promotionId),
  );
  let goods = 0;
  for (const line of lines) if (line.giftCard !== true) goods += line.unitPrice * line.quantity;
  let nearest: number | null = null;
  for (const promotion of offer.promotions) {
    const { conditions, action } = promotion;
    if (action.kind !== 'free_shipping' || !short.has(promotion.id)) continue;
    if (conditions.minSubtotal === undefined || conditions.minQuantity !== undefined) continue;
    if ((conditions.productIds?.length ?? 0) > 0 || (conditions.collectionIds?.length ?? 0) > 0) continue;
    const remaining = conditions.minSubtotal - goods;
    if (remaining > 0 && (nearest === null || remaining < nearest)) nearest = remaining;
  }
  return nearest;
}
