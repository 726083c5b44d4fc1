import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from './tables.ts';

/**
 * Serialises one kind of write for one scope (e.g. "webhook endpoints of store X") until the
 * transaction ends: a transaction-level advisory lock, so count-then-insert limits hold under
 * concurrency on every process, on PostgreSQL and PGlite alike.
 */
export async function lockScope(trx: Transaction<Database>, kind: string, scope: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`storefront:${kind}:${scope}`}, 0))`.execute(trx);
}

/**
 * The shared side of `lockScope`: any number of transactions hold it at once, and each waits for a
 * transaction holding `lockScope` of the same scope to end (and that one for them). A reader of
 * what `lockScope` guards that must not miss its change (a write derived from it) takes this first;
 * its next statement sees what the exclusive holder committed.
 */
export async function lockScopeShared(trx: Kysely<Database>, kind: string, scope: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${`storefront:${kind}:${scope}`}, 0))`.execute(
    trx,
  );
}

/**
 * `lockScope` for several scopes of one kind in one statement, always in the same order (by hash),
 * so two transactions locking overlapping sets never deadlock.
 */
export async function lockScopes(
  trx: Transaction<Database>,
  kind: string,
  scopes: readonly string[],
): Promise<void> {
  await sql`SELECT ${scopesLock(kind, scopes)}`.execute(trx);
}

/**
 * The locks of `lockScopes` as a scalar subquery, evaluated once. A statement after the one that
 * takes them sees what the previous holders committed; that statement does not (its snapshot is
 * older).
 */
function scopesLock(kind: string, scopes: readonly string[]): RawBuilder<number> {
  const names = [...new Set(scopes)].map((scope) => `storefront:${kind}:${scope}`);
  return sql<number>`(SELECT count(pg_advisory_xact_lock(h)::text)
    FROM (SELECT hashtextextended(name, 0) AS h FROM unnest(${names}::text[]) AS name ORDER BY 1) AS ordered)`;
}
