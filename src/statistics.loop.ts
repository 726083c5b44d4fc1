import { sql, type Kysely } from 'kysely';
import type { Log } from './lib/log.ts';
import type { WorkerLoop } from './workers/runner.ts';
import type { Database } from './db/tables.ts';

export const STATISTICS_LOOP = 'statistics';

/** A table is analyzed when this many rows plus this share of its rows changed (autovacuum's defaults). */
const THRESHOLD_ROWS = 50;
const THRESHOLD_SHARE = 0.1;

/**
 * The tables whose planner statistics are stale by autovacuum's rule: more rows inserted, updated
 * or deleted since their last ANALYZE than 50 + 10 % of the rows they had then. Never-analyzed
 * tables count as empty.
 */
export async function staleTables(db: Kysely<Database>): Promise<string[]> {
  const result = await sql<{ table: string }>`
    SELECT s.relname AS table
    FROM pg_stat_user_tables s
    JOIN pg_class c ON c.oid = s.relid
    WHERE s.schemaname = 'public'
      AND s.n_mod_since_analyze > ${THRESHOLD_ROWS} + ${THRESHOLD_SHARE} * greatest(c.reltuples, 0)
    ORDER BY s.n_mod_since_analyze DESC`.execute(db);
  return result.rows.map((row) => row.table);
}

/**
 * Analyzes the tables with stale statistics, one at a time. Returns the tables analyzed.
 */
export async function analyzeStaleTables(db: Kysely<Database>, signal?: AbortSignal): Promise<string[]> {
  const analyzed: string[] = [];
  for (const table of await staleTables(db)) {
    if (signal?.aborted) break;
    await sql`ANALYZE ${sql.id(table)}`.execute(db);
    analyzed.push(table);
  }
  return analyzed;
}

/**
 * The embedded database's stand-in for autovacuum's ANALYZE (decision `embedded-analyze`). PGlite
 * runs one standalone backend and no autovacuum, so a table that grew through the API kept the
 * statistics of its first rows (or none), and the planner chose plans for a nearly empty table:
 * list pages and the webhook relay's claim slowed down by an order of magnitude at a few thousand
 * rows. Every minute this analyzes the tables that changed by autovacuum's rule. Only on PGlite:
 * PostgreSQL's autovacuum does it there.
 */
export function statisticsLoop(deps: { db: Kysely<Database>; log: Log }): WorkerLoop {
  return {
    name: STATISTICS_LOOP,
    intervalMs: 60_000,
    async run(signal) {
      const started = performance.now();
      const analyzed = await analyzeStaleTables(deps.db, signal);
      if (analyzed.length > 0) {
        deps.log.debug({ tables: analyzed, ms: Math.round(performance.now() - started) }, 'analyzed tables');
      }
    },
  };
}
