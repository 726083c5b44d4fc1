import type { DiscountKind } from './pricing.service.ts';
import { AppError } from '../lib/errors.ts';

/** What an order costs, in minor units (decision `tax-arithmetic`). */
export interface Totals {
  subtotal: number;
  discount: number;
  /** The lines' taxes and the shipping's: on top of the total, or a part of it (`taxIncluded`). */
  tax: number;
  shipping: number;
  total: number;
  /** Decision `prices-include-tax`: the amounts include their tax (`total = subtotal − discount + shipping`). */
  taxIncluded: boolean;
}

/**
 * The order-level discount of a code on a subtotal, integers only: percent → ⌊subtotal × value /
 * 100⌋ (rounded down, in the buyer's disfavour by less than one minor unit); fixed → the value.
 * Never more than the subtotal.
 */
export function discountAmount(
  subtotal: number,
  discount: { kind: DiscountKind; value: number } | null,
): number {
  if (discount === null) return 0;
  const whole = BigInt(subtotal);
  const amount =
    discount.kind === 'percent' ? (whole * BigInt(discount.value)) / 100n : BigInt(discount.value);
  return Number(amount > whole ? whole : amount);
}

/** An order the service cannot charge: larger than the integers it counts in exactly. */
export function assertChargeable(total: number): void {
  if (!Number.isSafeInteger(total))
    throw new AppError('order_too_large', 400, 'The order total is larger than the service can process.');
}
