/**
 * The statistics loop (decision `embedded-analyze`): PGlite has no autovacuum, so the worker
 * analyzes the tables that changed by autovacuum's rule. Runs on both databases (on PostgreSQL the
 * loop is not registered, but the same statements must work there).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDatabase, waitFor, type TestDb } from './test/harness.ts';
import { analyzeStaleTables, staleTables } from './statistics.loop.ts';

let db: TestDb;
before(async () => {
  db = await openTestDatabase();
});
after(async () => {
  await db.close();
});

async function estimate(table: string): Promise<number> {
  const result = await sql<{ reltuples: number }>`
    SELECT reltuples::float8 AS reltuples FROM pg_class WHERE relname = ${table}`.execute(db.kysely);
  return Number(result.rows[0]?.reltuples);
}

/** Statistics counters reach the views about a second after the writing transaction. */
async function untilStale(table: string): Promise<void> {
  await waitFor(
    async () => (await staleTables(db.kysely)).includes(table),
    10_000,
    `${table} to show up as stale`,
  );
}

/** Waits until the view counts `rows` changed since the last ANALYZE of `table`. */
async function untilCounted(table: string, rows: number): Promise<void> {
  await waitFor(
    async () => {
      const result = await sql<{ changed: number }>`
        SELECT n_mod_since_analyze::int AS changed FROM pg_stat_user_tables WHERE relname = ${table}`.execute(
        db.kysely,
      );
      return Number(result.rows[0]?.changed) >= rows;
    },
    10_000,
    `${rows} changed rows of ${table} to be counted`,
  );
}

test('a table that grew is analyzed once, and not again until it changes enough', async () => {
  const table = 'statistics_probe';
  await sql`CREATE TABLE statistics_probe (id int PRIMARY KEY, note text) WITH (autovacuum_enabled = false)`.execute(
    db.kysely,
  );
  await sql`INSERT INTO statistics_probe SELECT g, 'row ' || g FROM generate_series(1, 2000) g`.execute(
    db.kysely,
  );
  await untilStale(table);
  assert.ok((await estimate(table)) <= 0, 'no statistics before the loop');

  const analyzed = await analyzeStaleTables(db.kysely);
  assert.ok(analyzed.includes(table), `analyzed ${analyzed.join(', ')}`);
  assert.equal(await estimate(table), 2000);
  assert.ok(!(await staleTables(db.kysely)).includes(table), 'fresh after ANALYZE');

  // 100 changed rows of 2,000 stay under 50 + 10 %: not stale; 300 more are over it.
  await sql`UPDATE statistics_probe SET note = 'changed' WHERE id <= 100`.execute(db.kysely);
  await untilCounted(table, 100);
  assert.ok(!(await staleTables(db.kysely)).includes(table), '100 of 2,000 rows changed is not stale');
  await sql`DELETE FROM statistics_probe WHERE id > 1700`.execute(db.kysely);
  await untilStale(table);
  await analyzeStaleTables(db.kysely);
  assert.equal(await estimate(table), 1700);
});

test('a stopped worker analyzes nothing more', async () => {
  const controller = new AbortController();
  controller.abort();
  assert.deepEqual(await analyzeStaleTables(db.kysely, controller.signal), []);
});
