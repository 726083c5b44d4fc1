import { byCreated } from '../db/keyset.ts';
import { readSnapshot } from '../db/snapshot.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound } from '../lib/errors.ts';
import { orderPayments } from './order-payments.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import {
  countOrdersPlatformWide,
  orderCounts,
  ordersQuery,
  type OrderCountsRow,
} from './order-lists.repository.ts';
import { findBuyerOrder, findOrder, orderLines } from './orders.repository.ts';
import { orderFulfillments, orderReturns } from './fulfillments.repository.ts';
import type { AdminOrder, AdminOrdersQuery, StorefrontOrder } from './orders.schemas.ts';
import type { OrderRow } from './orders.tables.ts';
import {
  fulfillmentView,
  maskAddress,
  maskEmail,
  maskPhone,
  orderView,
  paymentView,
  refundView,
  returnView,
  buyerReturnView,
} from './orders.views.ts';
import { mailsAbout } from '../mail/outbox.ts';
import { orderRefunds } from './refunds.repository.ts';

/** Reading orders: the buyer's polling view and the staff's views. */

type ReadDeps = Pick<OrdersDeps, 'db'>;

async function loadOrder(deps: ReadDeps, storeId: string, orderId: string): Promise<OrderRow> {
  const order = await findOrder(deps.db, storeId, orderId);
  if (!order) throw notFound('No order with that id in this store.');
  return order;
}

/** The buyer's view for polling (decision `order-reads-one-snapshot`): the order with its current payment, the address masked. */
export async function storefrontOrder(
  deps: ReadDeps,
  storeId: string,
  orderId: string,
): Promise<StorefrontOrder> {
  // One statement, so one snapshot: the status and the payment agree (never `pending` with a
  // succeeded payment).
  const found = await findBuyerOrder(deps.db, storeId, orderId);
  if (!found) throw notFound('No order with that id in this store.');
  const { order, lines, payment, fulfillments, returns } = found;
  const view = orderView(order, lines);
  return {
    ...view,
    email: maskEmail(order.email),
    shippingAddress: view.shippingAddress && maskAddress(view.shippingAddress),
    billingAddress: view.billingAddress && maskAddress(view.billingAddress),
    phone: view.phone && maskPhone(view.phone),
    fulfillments: fulfillments.map(fulfillmentView),
    returns: returns.map((row) => buyerReturnView(row, order.currency)),
    payment: payment ? { provider: payment.provider, ref: payment.ref, status: payment.status } : null,
  };
}

export async function adminView(deps: ReadDeps, order: OrderRow): Promise<AdminOrder> {
  const [lines, payments, refunds, fulfillments, returns, mails] = await Promise.all([
    orderLines(deps.db, order),
    orderPayments(deps.db, order.store_id, order.id),
    orderRefunds(deps.db, order.store_id, order.id),
    orderFulfillments(deps.db, order.store_id, order.id),
    orderReturns(deps.db, order.store_id, order.id),
    mailsAbout(deps.db, order.store_id, `order:${order.id}`),
  ]);
  return {
    ...orderView(order, lines),
    oversold: order.oversold,
    cancelReason: order.cancel_reason,
    customerId: order.customer_id,
    erasedAt: order.erased_at?.toISOString() ?? null,
    payments: payments.map(paymentView),
    refunds: refunds.map((r) => refundView(r, order.currency)),
    fulfillments: fulfillments.map(fulfillmentView),
    returns: returns.map((row) => returnView(row, order.currency)),
    mails: mails.map((mail) => ({
      id: mail.id,
      kind: mail.kind,
      subject: mail.subject,
      status: mail.status,
      createdAt: mail.created_at.toISOString(),
      sentAt: mail.sent_at?.toISOString() ?? null,
    })),
  };
}

export async function adminOrder(deps: ReadDeps, storeId: string, orderId: string): Promise<AdminOrder> {
  // One snapshot: the refunded amount and the refunds' statuses agree.
  return readSnapshot(deps.db, async (db) => adminView({ db }, await loadOrder({ db }, storeId, orderId)));
}

/**
 * Orders, newest first, optionally of one status, of one fulfilment status and matching a search
 * (`q`, see `matchesOrderSearch`). A cursor is bound to its filters and search (its scope).
 */
export async function listOrders(
  deps: Pick<OrdersDeps, 'db' | 'cursors'>,
  storeId: string,
  query: AdminOrdersQuery,
): Promise<ListPage<AdminOrder>> {
  const q = query.q?.trim() || undefined;
  const { status, fulfillmentStatus, customerId } = query;
  const scope = [
    `${storeId}:admin-orders:${status ?? '*'}`,
    fulfillmentStatus === undefined ? '' : `:fulfillment=${fulfillmentStatus}`,
    customerId === undefined ? '' : `:customer=${customerId}`,
    q === undefined ? '' : `:q=${JSON.stringify(q)}`,
  ].join('');
  return readSnapshot(deps.db, async (db) => {
    const page = await byCreated(
      deps.cursors,
      scope,
      ordersQuery(db, storeId, { status, fulfillmentStatus, q, customerId }),
      query,
      (row) => row,
      '',
      true,
    );
    return {
      items: await Promise.all(page.items.map((order) => adminView({ db }, order))),
      nextCursor: page.nextCursor,
    };
  });
}

/**
 * The console's home numbers: orders paid since `since` and the sum of their totals (minor units of
 * the store currency), orders awaiting payment now, and orders that expired since `since`.
 */
export function orderActivity(deps: ReadDeps, storeId: string, since: Date): Promise<OrderCountsRow> {
  return orderCounts(deps.db, storeId, since);
}

/** Grace before a pending order past its expiry counts as backlog (the expiry loop runs every few seconds). */
const EXPIRY_GRACE_MS = 60_000;

/**
 * Orders by status across every store (all four statuses, zeros included), and unpaid orders over
 * a minute past their expiry that the expiry loop has not cancelled yet (metrics, decision `metrics-off-until-readable`).
 */
export async function platformOrderCounts(
  db: Kysely<Database>,
  now: Date,
): Promise<{ byStatus: Record<string, number>; pastExpiry: number }> {
  const counts = await countOrdersPlatformWide(db, new Date(now.getTime() - EXPIRY_GRACE_MS));
  const byStatus: Record<string, number> = { pending: 0, paid: 0, expired: 0, cancelled: 0 };
  for (const row of counts.byStatus) byStatus[row.status] = Number(row.count);
  return { byStatus, pastExpiry: counts.pastExpiry };
}
