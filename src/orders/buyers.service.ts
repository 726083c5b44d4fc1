import type { Kysely } from 'kysely';
import { forgetCartAddresses } from '../carts/carts.service.ts';
import { byCreated } from '../db/keyset.ts';
import { readSnapshot } from '../db/snapshot.ts';
import type { Database } from '../db/tables.ts';
import { clearEventField } from '../events/events.ts';
import { forgetAnswers } from '../idempotency/idempotency.ts';
import type { ListPage } from '../lib/cursors.ts';
import { deleteMailsToOrAbout, mailsToOrAbout, type MailRecord } from '../mail/outbox.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { clearStaffNotes, customerOrderStats, eraseOrders } from './buyers.repository.ts';
import { ordersQuery } from './order-lists.repository.ts';
import type { AdminOrder, StorefrontOrder } from './orders.schemas.ts';
import { adminView, storefrontOrder } from './orders.service.ts';
import { ORDER_MAKING_ROUTES } from './placed-orders.service.ts';

/**
 * Orders as their buyer's (decision `erasure-is-immediate`): a customer's orders, what they spent, their export and erasure.
 * The customers feature calls these; it never reads the orders' tables.
 */

export { ERASED_EMAIL } from './buyers.repository.ts';

type ReadDeps = Pick<OrdersDeps, 'db'>;

export interface CustomerOrderStats {
  ordersCount: number;
  /** Minor units of the store currency: paid totals less refunds. */
  totalSpent: number;
  openOrders: number;
}

const NO_ORDERS: CustomerOrderStats = { ordersCount: 0, totalSpent: 0, openOrders: 0 };

/** The order numbers of some customers, one statement for a page of them. */
export async function customerOrderTotals(
  deps: ReadDeps,
  storeId: string,
  customerIds: readonly string[],
): Promise<(id: string) => CustomerOrderStats> {
  const rows = await customerOrderStats(deps.db, storeId, customerIds);
  const byId = new Map(
    rows.map((row) => [
      row.customer_id,
      { ordersCount: row.orders_count, totalSpent: row.total_spent, openOrders: row.open_orders },
    ]),
  );
  return (id) => byId.get(id) ?? NO_ORDERS;
}

/**
 * GET /customers/me/orders: the buyer's view of each of their orders, newest first: those placed
 * signed in, and the paid ones with their email (decision `account-shows-own-or-paid-orders`).
 */
export function buyerOrdersPage(
  deps: Pick<OrdersDeps, 'db' | 'cursors'>,
  storeId: string,
  customerId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<StorefrontOrder>> {
  return readSnapshot(deps.db, async (db) => {
    const ids = await byCreated(
      deps.cursors,
      `${storeId}:customer-orders:${customerId}`,
      ordersQuery(db, storeId, { customerId, account: true }),
      page,
      (row) => row.id,
      '',
      true,
    );
    return {
      items: await Promise.all(ids.items.map((id) => storefrontOrder({ db }, storeId, id))),
      nextCursor: ids.nextCursor,
    };
  });
}

/** A customer's orders as staff see them, newest first (at most `limit`, all without one). */
export function customerAdminOrders(
  deps: ReadDeps,
  storeId: string,
  customerId: string,
  limit?: number,
): Promise<AdminOrder[]> {
  return readSnapshot(deps.db, async (db) => {
    let query = ordersQuery(db, storeId, { customerId }).orderBy('created_at', 'desc').orderBy('id', 'desc');
    if (limit !== undefined) query = query.limit(limit);
    const rows = await query.execute();
    return Promise.all(rows.map((row) => adminView({ db }, row)));
  });
}

/** The mail a buyer was sent (to their address, or about their orders), for their export. */
export function buyerMails(
  deps: ReadDeps,
  storeId: string,
  email: string,
  orderIds: readonly string[],
): Promise<MailRecord[]> {
  return mailsToOrAbout(deps.db, storeId, { to: email, about: orderIds.map((id) => `order:${id}`) });
}

/**
 * Erases a buyer's personal data from their orders, in the caller's transaction (decision `erasure-is-immediate`): emails,
 * addresses, phones and staff notes on the orders, their returns and refunds; the addresses of
 * their carts; every mail to them or about their orders (sent or not); the stored answers of their
 * checkouts; the staff's reasons in their `order.cancelled` events. Numbers, lines, amounts,
 * payments and events stay, so the store's accounts still add up. Returns how many orders.
 */
export async function eraseBuyer(
  deps: { db: Kysely<Database> },
  storeId: string,
  who: { customerId: string; email: string },
  now: Date,
): Promise<number> {
  const orders = await eraseOrders(deps.db, storeId, who, now);
  const orderIds = orders.map((order) => order.id);
  await clearStaffNotes(deps.db, storeId, orderIds);
  await forgetCartAddresses(deps, storeId, [
    ...new Set(orders.flatMap((order) => (order.cart_id === null ? [] : [order.cart_id]))),
  ]);
  await deleteMailsToOrAbout(deps.db, storeId, {
    to: who.email,
    about: orderIds.map((id) => `order:${id}`),
  });
  const keys = orders.flatMap((order) => (order.idempotency_key === null ? [] : [order.idempotency_key]));
  for (const route of ORDER_MAKING_ROUTES) await forgetAnswers(deps, storeId, route, keys);
  await clearEventField(
    deps.db,
    storeId,
    'order.cancelled',
    orderIds.map((id) => `order:${id}`),
    'reason',
  );
  return orders.length;
}
