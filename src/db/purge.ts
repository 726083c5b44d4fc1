import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './tables.ts';

export interface PurgeOptions {
  /** A tenant table with a `(store_id, <time column>)` index. */
  table: string;
  /** The primary key columns after `store_id`. */
  keyColumns: readonly string[];
  timeColumn: string;
  /** Rows whose time column is before this are purged. */
  cutoff: Date;
  /** Further condition on the rows (alias `i`), e.g. ``sql`i.status = 'sent'` ``. */
  where?: RawBuilder<unknown>;
  /** Rows per store per statement. */
  batchPerStore?: number;
}

/**
 * Deletes a tenant table's rows older than a cutoff (decision `retention`). Each statement walks the stores
 * and, per store, the `(store_id, <time>)` index up to the cutoff, so a purge reads only what it
 * deletes, never the whole table; it repeats in batches until nothing old is left, so no statement
 * holds many locks. Returns how many rows went.
 */
export async function purgeOlderThan(db: Kysely<Database>, options: PurgeOptions): Promise<number> {
  const table = sql.table(options.table);
  const time = sql.ref(`i.${options.timeColumn}`);
  const keys = options.keyColumns.map((column) => sql.ref(`i.${column}`));
  const matches = sql.join(
    options.keyColumns.map((column) => sql`x.${sql.ref(column)} = old.${sql.ref(column)}`),
    sql` AND `,
  );
  const where = options.where ?? sql`true`;
  let total = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM ${table} x
      USING stores s
      CROSS JOIN LATERAL (
        SELECT ${sql.join(keys)} FROM ${table} i
        WHERE i.store_id = s.id AND ${time} < ${options.cutoff} AND ${where}
        ORDER BY ${time}
        LIMIT ${options.batchPerStore ?? 1000}
      ) old
      WHERE x.store_id = s.id AND ${matches}`.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0n);
    total += deleted;
    if (deleted === 0) return total;
  }
}
