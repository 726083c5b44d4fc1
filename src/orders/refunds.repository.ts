import { sql, type Insertable, type Kysely, type Transaction, type Updateable } from 'kysely';
import { fairBatch } from '../db/fair-batch.ts';
import type { Database } from '../db/tables.ts';
import type { PaymentRow, RefundRow, RefundTable } from './orders.tables.ts';

/** All SQL on refunds. */

type Db = Kysely<Database>;

export function findRefund(
  db: Db,
  storeId: string,
  refundId: string,
  options: { forUpdate?: boolean } = {},
): Promise<RefundRow | undefined> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', refundId)
    .$if(options.forUpdate === true, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** A refund named by our id (from the provider's metadata) or by the provider's reference. */
export function findRefundBy(
  db: Db,
  storeId: string,
  by: { id: string } | { providerRef: string },
): Promise<Pick<RefundRow, 'id' | 'payment_id'> | undefined> {
  const query = db.selectFrom('refunds').select(['id', 'payment_id']).where('store_id', '=', storeId);
  return (
    'id' in by ? query.where('id', '=', by.id) : query.where('provider_ref', '=', by.providerRef)
  ).executeTakeFirst();
}

export function orderRefunds(db: Db, storeId: string, orderId: string): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .execute();
}

/** What refunds already hold of a payment: settled plus still pending (failed ones hold nothing). */
export async function refundsHeld(db: Db, payment: Pick<PaymentRow, 'store_id' | 'id'>): Promise<number> {
  const row = await db
    .selectFrom('refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum'))
    .where('store_id', '=', payment.store_id)
    .where('payment_id', '=', payment.id)
    .where('status', 'in', ['pending', 'succeeded'])
    // Refunds to gift cards do not draw on the provider's payment.
    .where('gift_cards', '=', false)
    .executeTakeFirstOrThrow();
  return Number(row.sum);
}

/** Is there a pending or settled refund of this payment with this reason? */
export async function hasLiveRefund(
  db: Db,
  payment: Pick<PaymentRow, 'store_id' | 'id'>,
  reason: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('refunds')
    .select('id')
    .where('store_id', '=', payment.store_id)
    .where('payment_id', '=', payment.id)
    .where('reason', '=', reason)
    .where('status', 'in', ['pending', 'succeeded'])
    .where('gift_cards', '=', false)
    .executeTakeFirst();
  return row !== undefined;
}

export function insertRefund(
  trx: Transaction<Database>,
  values: Insertable<RefundTable>,
): Promise<RefundRow> {
  return trx.insertInto('refunds').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Changes a refund; with `whilePending` only while it is still pending. True when a row changed.
 */
export async function updateRefund(
  db: Db,
  refund: Pick<RefundRow, 'store_id' | 'id'>,
  changes: Updateable<RefundTable>,
  options: { whilePending?: boolean } = {},
): Promise<boolean> {
  const updated = await db
    .updateTable('refunds')
    .set(changes)
    .where('store_id', '=', refund.store_id)
    .where('id', '=', refund.id)
    .$if(options.whilePending === true, (qb) => qb.where('status', '=', 'pending'))
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** After an error while reconciling: one more attempt counted, asked again at `at`. */
export async function countReconcileError(
  db: Db,
  refund: Pick<RefundRow, 'store_id' | 'id'>,
  message: string,
  at: Date,
): Promise<void> {
  await db
    .updateTable('refunds')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: message, next_check_at: at }))
    .where('store_id', '=', refund.store_id)
    .where('id', '=', refund.id)
    .where('status', '=', 'pending')
    .execute();
}

/** Pending refunds whose check time has come, fairly across stores (decision `worker-loops`). */
export async function dueRefunds(
  db: Db,
  now: Date,
  limit: number,
): Promise<Pick<RefundRow, 'store_id' | 'id'>[]> {
  const { rows } = await fairBatch<Pick<RefundRow, 'store_id' | 'id'>>({
    table: 'refunds',
    open: sql`t.status = 'pending'`,
    due: sql`t.next_check_at <= ${now}`,
    orderBy: sql`t.next_check_at, t.id`,
    columns: sql`t.store_id, t.id`,
    limit,
  }).execute(db);
  return rows;
}

export type RefundWithPayment = RefundRow & {
  payment_ref: string;
  payment_currency: string;
  provider: string;
};

/** A pending refund with what asking the provider about it needs. */
export function pendingRefundWithPayment(
  db: Db,
  storeId: string,
  refundId: string,
): Promise<RefundWithPayment | undefined> {
  return db
    .selectFrom('refunds as r')
    .innerJoin('payments as p', (join) =>
      join.onRef('p.store_id', '=', 'r.store_id').onRef('p.id', '=', 'r.payment_id'),
    )
    .selectAll('r')
    .select(['p.ref as payment_ref', 'p.currency as payment_currency', 'p.provider'])
    .where('r.store_id', '=', storeId)
    .where('r.id', '=', refundId)
    .where('r.status', '=', 'pending')
    .executeTakeFirst();
}
