import { sql, type Kysely } from 'kysely';

/**
 * The tax report (decision `tax-report`) reads a window of a store's orders by paid time and of its
 * succeeded refunds by settle time: an index for each, so a report costs what its window holds,
 * never the store's whole history.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX orders_paid_idx ON orders (store_id, paid_at) WHERE paid_at IS NOT NULL`.execute(db);
  await sql`CREATE INDEX refunds_settled_idx ON refunds (store_id, settled_at, id)
    WHERE status = 'succeeded'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS refunds_settled_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS orders_paid_idx`.execute(db);
}
