import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';

/** All SQL on a buyer's orders as a whole: each customer's order figures, and the erasure of a buyer. */

type Db = Kysely<Database>;

/** Per customer: paid orders, what they spent (paid totals less refunds), orders still open. */
export interface CustomerOrderStatsRow {
  customer_id: string;
  orders_count: number;
  total_spent: number;
  open_orders: number;
}

export async function customerOrderStats(
  db: Db,
  storeId: string,
  customerIds: readonly string[],
): Promise<CustomerOrderStatsRow[]> {
  if (customerIds.length === 0) return [];
  const { rows } = await sql<CustomerOrderStatsRow>`
    SELECT customer_id,
           count(*) FILTER (WHERE paid_at IS NOT NULL)::int AS orders_count,
           coalesce(sum(total_amount - refunded_amount) FILTER (WHERE paid_at IS NOT NULL), 0)::bigint AS total_spent,
           count(*) FILTER (WHERE status = 'pending' OR (status = 'paid' AND fulfillment_status <> 'fulfilled'))::int AS open_orders
    FROM orders
    WHERE store_id = ${storeId} AND customer_id = ANY(${[...customerIds]}::uuid[])
    GROUP BY customer_id`.execute(db);
  return rows.map((row) => ({ ...row, total_spent: Number(row.total_spent) }));
}

/** The address an erased buyer's orders keep instead of theirs: no one's, and never mailed. */
export const ERASED_EMAIL = 'erased@erased.invalid';

/**
 * Scrubs the personal data of a buyer's orders (by customer or email): the email becomes
 * ERASED_EMAIL, addresses, phone and the staff's cancel reason are cleared, the link to the
 * customer dropped; numbers, lines and amounts stay. Returns what else must be forgotten.
 */
export async function eraseOrders(
  trx: Db,
  storeId: string,
  who: { customerId: string; email: string },
  now: Date,
): Promise<{ id: string; cart_id: string | null; idempotency_key: string | null }[]> {
  return trx
    .updateTable('orders')
    .set({
      email: ERASED_EMAIL,
      shipping_address: null,
      billing_address: null,
      phone: null,
      cancel_reason: null,
      customer_id: null,
      client_key: null,
      erased_at: now,
      updated_at: now,
    })
    .where('store_id', '=', storeId)
    .where((eb) => eb.or([eb('customer_id', '=', who.customerId), eb('email', '=', who.email)]))
    .returning(['id', 'cart_id', 'idempotency_key'])
    .execute();
}

/** Clears the free text staff typed on some orders' returns and refunds (it may name the buyer). */
export async function clearStaffNotes(trx: Db, storeId: string, orderIds: readonly string[]): Promise<void> {
  if (orderIds.length === 0) return;
  await trx
    .updateTable('returns')
    .set({ reason: null })
    .where('store_id', '=', storeId)
    .where('order_id', 'in', [...orderIds])
    .execute();
  await trx
    .updateTable('refunds')
    .set({ note: null })
    .where('store_id', '=', storeId)
    .where('order_id', 'in', [...orderIds])
    .execute();
}
