import { sql, type Kysely } from 'kysely';
import { fairBatch } from '../db/fair-batch.ts';
import type { Database } from '../db/tables.ts';
import type { OrderRow } from './orders.tables.ts';

/** The SQL of the pending-order sweep: which orders are due, a longer hold, a later look. */

type Db = Kysely<Database>;

export type DueOrder = Pick<OrderRow, 'store_id' | 'id' | 'sweep_attempts' | 'created_at'>;

/** Pending orders whose sweep time has come, fairly across stores (decision `worker-loops`). */
export async function dueOrders(db: Db, now: Date, limit: number): Promise<DueOrder[]> {
  const { rows } = await fairBatch<DueOrder>({
    table: 'orders',
    open: sql`t.status = 'pending'`,
    due: sql`t.next_sweep_at <= ${now}`,
    orderBy: sql`t.next_sweep_at, t.id`,
    columns: sql`t.store_id, t.id, t.sweep_attempts, t.created_at`,
    limit,
  }).execute(db);
  return rows;
}

/**
 * A pending order whose buyer tried to pay holds its stock until `until` (decision
 * `short-hold-until-payment-tried`), when the sweep looks at it again.
 */
export async function extendHold(db: Db, order: DueOrder, until: Date, now: Date): Promise<void> {
  await db
    .updateTable('orders')
    .set({ expires_at: until, next_sweep_at: until, sweep_attempts: 0, updated_at: now })
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .where('status', '=', 'pending')
    .execute();
}

/** A pending order the sweep could not settle is looked at again at `at`. */
export async function postponeSweep(db: Db, order: DueOrder, attempts: number, at: Date): Promise<void> {
  await db
    .updateTable('orders')
    .set({ sweep_attempts: attempts, next_sweep_at: at })
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .where('status', '=', 'pending')
    .execute();
}
