import { completeAddress } from '@storefront/address';
import type { Money } from '../lib/money.ts';
import type { Order } from '../orders/orders.schemas.ts';
import { taxLinesView } from '../pricing/tax-arithmetic.ts';
import type { PricedDraft } from './draft-orders.pricing.ts';
import type { DraftOrder, DraftOrderListItem } from './draft-orders.schemas.ts';
import type { DraftOrderLineRow, DraftOrderRow } from './draft-orders.tables.ts';

/** Draft rows and their quote as the Admin API shows them (decision `draft-orders`). */

export function draftView(
  draft: DraftOrderRow,
  lines: readonly DraftOrderLineRow[],
  { market, quoted }: PricedDraft,
): DraftOrder {
  const currency = market.currency;
  const money = (amount: number): Money => ({ amount, currency });
  const missing = new Set(quoted.missing.map((line) => line.variantId));
  let next = 0;
  const priced: DraftOrder['lines'] = [];
  for (const line of lines) {
    if (line.variant_id !== null && missing.has(line.variant_id)) continue;
    const index = next++;
    const q = quoted.lines[index]!;
    const tax = quoted.tax.lines[index]!;
    priced.push({
      id: line.id,
      variantId: line.variant_id,
      productId: line.variant_id === null ? null : q.productId,
      title: q.title,
      variantLabel: q.label,
      sku: q.sku,
      custom: line.variant_id === null,
      quantity: q.quantity,
      unitPrice: money(q.unitPrice),
      priceSet: q.priceSet === true,
      lineTotal: money(q.unitPrice * q.quantity),
      discount: money(tax.discount),
      tax: { amount: tax.tax, rateBps: tax.rateBps, class: tax.taxClass },
      taxClass: q.taxClass,
      requiresShipping: q.requiresShipping,
    });
  }
  const method = quoted.shipping.method;
  const { totals } = quoted;
  return {
    id: draft.id,
    status: draft.status,
    customerId: draft.customer_id,
    email: draft.email,
    currency,
    lines: priced,
    unavailable: quoted.missing.map((line) => ({ variantId: line.variantId, quantity: line.requested })),
    shippingAddress: draft.shipping_address && completeAddress(draft.shipping_address),
    billingAddress: draft.billing_address && completeAddress(draft.billing_address),
    shippingMethodId: draft.shipping_method_id,
    customShipping: draft.custom_shipping && {
      title: draft.custom_shipping.title,
      amount: money(draft.custom_shipping.amount),
    },
    shipping:
      method === null
        ? null
        : {
            id: draft.custom_shipping ? null : method.id,
            name: method.name,
            amount: money(totals.shipping),
          },
    discount: draft.discount && { ...draft.discount, amount: money(quoted.extraDiscount) },
    promotions: quoted.promotions.map((promotion) => ({
      id: promotion.id,
      name: promotion.name,
      code: promotion.code,
      amount: money(promotion.amount),
      shipping: money(promotion.shipping ?? 0),
    })),
    totals: {
      subtotal: money(totals.subtotal),
      discount: money(totals.discount),
      shipping: money(totals.shipping),
      tax: money(totals.tax),
      total: money(totals.total),
      taxIncluded: totals.taxIncluded,
    },
    taxLines: taxLinesView(quoted.tax.breakdown, currency),
    note: draft.note,
    reserveUntil: draft.reserve_until?.toISOString() ?? null,
    orderId: draft.order_id,
    createdAt: draft.created_at.toISOString(),
    updatedAt: draft.updated_at.toISOString(),
  };
}

export function draftListItem(row: DraftOrderRow & { line_count: number }): DraftOrderListItem {
  return {
    id: row.id,
    status: row.status,
    customerId: row.customer_id,
    email: row.email,
    lineCount: Number(row.line_count),
    orderId: row.order_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * A draft that made its order, as that order charged it (decision `draft-orders`): its lines,
 * discounts, promotions, tax, shipping and totals are the order's as kept, not a price of now; what
 * is not money (whether a line ships) is the draft's as read now.
 */
export function asCharged(live: DraftOrder, lines: readonly DraftOrderLineRow[], order: Order): DraftOrder {
  const currency = order.total.currency;
  const money = (amount: number): Money => ({ amount, currency });
  const charged: DraftOrder['lines'] = order.lines.map((line) => {
    const custom = line.custom === true;
    const draftLine = lines.find((row) => (custom ? row.id : row.variant_id) === line.variantId);
    const now = draftLine && live.lines.find((each) => each.id === draftLine.id);
    return {
      id: draftLine?.id ?? line.variantId,
      variantId: custom ? null : line.variantId,
      productId: custom ? null : line.productId,
      title: line.title,
      variantLabel: line.variantLabel,
      sku: line.sku,
      custom,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      priceSet: custom || (draftLine?.unit_price ?? null) !== null,
      lineTotal: line.lineTotal,
      discount: line.discount ?? money(0),
      tax: line.tax ?? { amount: 0, rateBps: 0, class: 'standard' },
      taxClass: line.tax?.class ?? draftLine?.tax_class ?? 'standard',
      requiresShipping: now?.requiresShipping ?? draftLine?.requires_shipping ?? true,
    };
  });
  // The staff discount is what the order's discount has beyond the promotions' share of the goods.
  const promotionsOnGoods = order.promotions.reduce(
    (sum, promotion) => sum + promotion.amount.amount - promotion.shipping.amount,
    0,
  );
  return {
    ...live,
    currency,
    lines: charged,
    unavailable: [],
    shipping: order.shippingMethod && {
      id: live.customShipping ? null : order.shippingMethod.id,
      name: order.shippingMethod.name,
      amount: order.shipping,
    },
    discount: live.discount && {
      ...live.discount,
      amount: money(Math.max(0, order.discount.amount - promotionsOnGoods)),
    },
    promotions: order.promotions.map((promotion) => ({
      id: promotion.id,
      name: promotion.name,
      code: promotion.code,
      amount: promotion.amount,
      shipping: promotion.shipping,
    })),
    totals: {
      subtotal: order.subtotal,
      discount: order.discount,
      shipping: order.shipping,
      tax: order.tax,
      total: order.total,
      taxIncluded: order.taxIncluded,
    },
    taxLines: order.taxLines,
  };
}
