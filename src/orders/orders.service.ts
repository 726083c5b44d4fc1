import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Line } from '../carts/carts.schemas.ts';
import type { Money } from '../lib/money.ts';
import type { OrderLineRow, OrderRow, PaymentRow, RefundRow } from './orders.tables.ts';
import { notFound } from '../lib/errors.ts';

const money = (amount: number, currency: string): Money => ({ amount, currency: currency.trim() });

export interface OrderView {
  id: string;
  number: number;
  status: OrderRow['status'];
  email: string;
  country: string | null;
  lines: Line[];
  subtotal: Money;
  discount: Money;
  discountCode: string | null;
  tax: Money;
  shipping: Money;
  total: Money;
  refunded: Money;
  createdAt: string;
  expiresAt: string;
  paidAt: string | null;
}

export function orderView(order: OrderRow, lines: OrderLineRow[]): OrderView {
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

export interface PaymentView {
  id: string;
  provider: string;
  ref: string;
  status: PaymentRow['status'];
  amount: Money;
  createdAt: string;
}

export const paymentView = (row: PaymentRow): PaymentView => ({
  id: row.id,
  provider: row.provider,
  ref: row.ref,
  status: row.status,
  amount: money(row.amount, row.currency),
  createdAt: row.created_at.toISOString(),
});

export interface RefundView {
  id: string;
  amount: Money;
  status: RefundRow['status'];
  providerRef: string | null;
  reason: string | null;
  lastError: string | null;
  createdAt: string;
  settledAt: string | null;
}

export const refundView = (row: RefundRow, currency: string): RefundView => ({
  id: row.id,
  amount: money(row.amount, currency),
  status: row.status,
  providerRef: row.provider_ref,
  reason: row.reason,
  lastError: row.last_error,
  createdAt: row.created_at.toISOString(),
  settledAt: row.settled_at?.toISOString() ?? null,
});

type Db = Kysely<Database> | Transaction<Database>;

export async function loadOrder(db: Db, storeId: string, orderId: string) {
  const order = await db
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', orderId)
    .executeTakeFirst();
  if (!order) throw notFound('No order with that id in this store.');
  const [lines, payments, refunds] = await Promise.all([
    db
      .selectFrom('order_lines')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('order_id', '=', orderId)
      .orderBy('position')
      .execute(),
    db
      .selectFrom('payments')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('refunds')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .execute(),
  ]);
  return { order, lines, payments, refunds };
}

/** The buyer's view for polling (D4): the order with its current payment. */
export async function storefrontOrder(db: Db, storeId: string, orderId: string) {
  const { order, lines, payments } = await loadOrder(db, storeId, orderId);
  const payment = payments.at(-1);
  return {
    ...orderView(order, lines),
    payment: payment ? { provider: payment.provider, ref: payment.ref, status: payment.status } : null,
  };
}

export async function adminOrder(db: Db, storeId: string, orderId: string) {
  const { order, lines, payments, refunds } = await loadOrder(db, storeId, orderId);
  return {
    ...orderView(order, lines),
    oversold: order.oversold,
    payments: payments.map(paymentView),
    refunds: refunds.map((r) => refundView(r, order.currency)),
  };
}
