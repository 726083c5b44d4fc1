import type { Kysely, Transaction } from 'kysely';
import type { StockLine } from '../catalog/inventory.ts';
import type { Database } from '../db/tables.ts';
import type { OrderLineRow, OrderRow, PaymentRow } from './orders.tables.ts';

/**
 * SQL on orders, payments and refunds shared by the payment events, refunds and expiry. Every
 * write path that needs both a payment and its order locks them in one order, payment first and
 * then order (D24), through `lockPaymentAndOrder`, so no two of them can deadlock.
 */

type Db = Kysely<Database> | Transaction<Database>;

export interface Locked {
  payment: PaymentRow;
  order: OrderRow;
}

/** Locks a payment (found by provider and ref, or by order) and then its order. */
export async function lockPaymentAndOrder(
  trx: Transaction<Database>,
  storeId: string,
  by: { provider: string; ref: string } | { orderId: string },
): Promise<Locked | null> {
  let query = trx.selectFrom('payments').selectAll().where('store_id', '=', storeId);
  query =
    'ref' in by
      ? query.where('provider', '=', by.provider).where('ref', '=', by.ref)
      : query.where('order_id', '=', by.orderId).orderBy('created_at', 'desc').limit(1);
  const payment = await query.forUpdate().executeTakeFirst();
  if (!payment) return null;
  const order = await trx
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', payment.order_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { payment, order };
}

export async function orderLines(db: Db, order: Pick<OrderRow, 'store_id' | 'id'>): Promise<OrderLineRow[]> {
  return db
    .selectFrom('order_lines')
    .selectAll()
    .where('store_id', '=', order.store_id)
    .where('order_id', '=', order.id)
    .orderBy('position')
    .execute();
}

export const stockLinesOf = (lines: readonly OrderLineRow[]): StockLine[] =>
  lines.map((line) => ({ variantId: line.variant_id, quantity: line.quantity }));

export async function storeName(db: Db, storeId: string): Promise<string> {
  return (await db.selectFrom('stores').select('name').where('id', '=', storeId).executeTakeFirstOrThrow())
    .name;
}

/** What refunds already hold of a payment: settled plus still pending (failed ones hold nothing). */
export async function refundsHeld(db: Db, storeId: string, paymentId: string): Promise<number> {
  const row = await db
    .selectFrom('refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum'))
    .where('store_id', '=', storeId)
    .where('payment_id', '=', paymentId)
    .where('status', 'in', ['pending', 'succeeded'])
    .executeTakeFirstOrThrow();
  return Number(row.sum);
}
