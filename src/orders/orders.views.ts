import type { StockLine } from '../catalog/inventory.ts';
import type { OrderLineFields } from './orders.repository.ts';
import type { Money } from '../lib/money.ts';
import type { Order, Payment, Refund } from './orders.schemas.ts';
import type { OrderRow, PaymentRow, RefundRow } from './orders.tables.ts';

/** Rows as the API shows them (the shapes are the schemas', Static<…>): snake_case never leaves orders/. */

const money = (amount: number, currency: string): Money => ({ amount, currency: currency.trim() });

export function orderView(order: OrderRow, lines: readonly OrderLineFields[]): Order {
  const c = order.currency;
  return {
    id: order.id,
    number: order.number,
    status: order.status,
    email: order.email,
    country: order.country?.trim() ?? null,
    lines: lines.map((line) => ({
      variantId: line.variant_id,
      productId: line.product_id,
      title: line.title,
      variantLabel: line.variant_label,
      sku: line.sku,
      quantity: line.quantity,
      unitPrice: money(line.unit_price_amount, c),
      lineTotal: money(line.line_total_amount, c),
    })),
    subtotal: money(order.subtotal_amount, c),
    discount: money(order.discount_amount, c),
    discountCode: order.discount_code,
    tax: money(order.tax_amount, c),
    shipping: money(order.shipping_amount, c),
    total: money(order.total_amount, c),
    refunded: money(order.refunded_amount, c),
    createdAt: order.created_at.toISOString(),
    expiresAt: order.expires_at.toISOString(),
    paidAt: order.paid_at?.toISOString() ?? null,
  };
}

/**
 * The buyer's address as the storefront's order view shows it, the way shops do: the first
 * character of the local part, `•••`, then `@` and the domain (`b•••@example.com`). The view is
 * read with nothing but the order's id and a publishable key, both of which sit in browsers and
 * URLs, so it must not carry the address itself. A one-character local part shows none of it
 * (`•••@example.com`: no address is ever shown whole); a value without `@` shows as `•••`.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at === -1) return '•••';
  const local = Array.from(email.slice(0, at));
  return `${local.length > 1 ? local[0] : ''}•••${email.slice(at)}`;
}

export const paymentView = (row: PaymentRow): Payment => ({
  id: row.id,
  provider: row.provider,
  ref: row.ref,
  status: row.status,
  amount: money(row.amount, row.currency),
  createdAt: row.created_at.toISOString(),
});

export const refundView = (row: RefundRow, currency: string): Refund => ({
  id: row.id,
  amount: money(row.amount, currency),
  status: row.status,
  providerRef: row.provider_ref,
  reason: row.reason,
  note: row.note,
  lastError: row.last_error,
  createdAt: row.created_at.toISOString(),
  settledAt: row.settled_at?.toISOString() ?? null,
});

/** Order lines as the catalog's inventory takes them. */
export const stockLinesOf = (lines: readonly OrderLineFields[]): StockLine[] =>
  lines.map((line) => ({ variantId: line.variant_id, quantity: line.quantity }));
