import { sql, type Transaction } from 'kysely';
import type { Database } from './tables.ts';

/**
 * Serialises one kind of write for one scope (e.g. "webhook endpoints of store X") until the
 * transaction ends: a transaction-level advisory lock, so count-then-insert limits hold under
 * concurrency on every process, on PostgreSQL and PGlite alike.
 */
export async function lockScope(trx: Transaction<Database>, kind: string, scope: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`storefront:${kind}:${scope}`}, 0))`.execute(trx);
}
