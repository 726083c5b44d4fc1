import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

/**
 * Runs several reads that must agree with each other (an order and its refunds, say) in one
 * read-only REPEATABLE READ transaction: every statement sees the same committed state. Without it,
 * under READ COMMITTED on PostgreSQL, a refund settling between the order's read and its refunds'
 * read gives a view with the refund succeeded and the order's refunded amount still 0.
 */
export function readSnapshot<T>(
  db: Kysely<Database>,
  read: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
}
