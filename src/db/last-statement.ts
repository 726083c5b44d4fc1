import type { Compilable, Kysely, Transaction } from 'kysely';
import { COMMIT_MARK } from './pg-transactions.ts';

/**
 * The statement a transaction ends with, built but not run (a Kysely query builder or raw `sql`), or
 * null when it ends without one (a plain COMMIT).
 */
export type LastStatement = Compilable | null;

/**
 * A transaction whose last statement its signature names (decision `commit-with-last-statement`):
 * `body` does the work and returns what it found; `last` builds from that the final statement, which
 * is run here and is the last thing the transaction does. On PostgreSQL its COMMIT travels with it,
 * saving the COMMIT's round trip and letting the transaction's locks go one round trip sooner.
 * Nothing can run after it: a throw in `body` or `last` comes before it, so the transaction rolls
 * back with that error; a failing statement (or COMMIT) fails the transaction with its own error.
 * With `DATABASE_PIPELINING=false`, and on the embedded database, the mark is only a comment and
 * Kysely's COMMIT commits. Resolves with `body`'s result once committed.
 */
export function transactionEndingWith<DB, T>(
  db: Kysely<DB>,
  body: (trx: Transaction<DB>) => Promise<T>,
  last: (trx: Transaction<DB>, done: T) => LastStatement,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const done = await body(trx);
    const statement = last(trx, done)?.compile();
    if (statement) await trx.executeQuery({ ...statement, sql: `${statement.sql} ${COMMIT_MARK}` });
    return done;
  });
}
