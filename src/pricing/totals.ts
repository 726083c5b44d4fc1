import type { DiscountKind } from './pricing.service.ts';
import { AppError } from '../lib/errors.ts';

export interface PricingInput {
  lines: readonly { unitPrice: number; quantity: number }[];
  discount: { kind: DiscountKind; value: number } | null;
  /** Tax rate in basis points (2000 = 20 %). */
  taxRateBps: number;
  shippingAmount: number;
}

export interface Totals {
  subtotal: number;
  discount: number;
  tax: number;
  shipping: number;
  total: number;
}

/**
 * Order arithmetic, integers only (minor units; BigInt inside so no step can lose precision):
 *
 * - subtotal = Σ unitPrice × quantity
 * - discount: percent → ⌊subtotal × value / 100⌋ (rounded down, in the buyer's disfavour by less
 *   than one minor unit); fixed → min(value, subtotal). Never more than the subtotal.
 * - tax = (subtotal − discount) × rate, rounded half up to a whole minor unit, on the order as a
 *   whole (not per line). Shipping is not taxed.
 * - total = subtotal − discount + tax + shipping
 */
export function computeTotals(input: PricingInput): Totals {
  const subtotal = input.lines.reduce(
    (sum, line) => sum + BigInt(line.unitPrice) * BigInt(line.quantity),
    0n,
  );
  let discount = 0n;
  if (input.discount?.kind === 'percent') discount = (subtotal * BigInt(input.discount.value)) / 100n;
  if (input.discount?.kind === 'fixed') discount = BigInt(input.discount.value);
  if (discount > subtotal) discount = subtotal;
  const taxable = subtotal - discount;
  const tax = (taxable * BigInt(input.taxRateBps) + 5000n) / 10000n;
  const shipping = BigInt(input.shippingAmount);
  const total = taxable + tax + shipping;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new AppError('order_too_large', 400, 'The order total is larger than the service can process.');
  }
  return {
    subtotal: Number(subtotal),
    discount: Number(discount),
    tax: Number(tax),
    shipping: Number(shipping),
    total: Number(total),
  };
}
