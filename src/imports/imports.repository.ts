import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { ImportKind, ImportRow, ImportStatus, ImportSummary, RowError } from './imports.tables.ts';

/** All SQL on imports and their files. */

/** The file's pieces: at most this many bytes each. */
export const CHUNK_BYTES = 1024 * 1024;

export async function insertImport(
  db: Kysely<Database>,
  job: { storeId: string; kind: ImportKind; dryRun: boolean; fileName: string | null; file: Buffer },
): Promise<ImportRow> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('imports')
      .values({
        store_id: job.storeId,
        kind: job.kind,
        dry_run: job.dryRun,
        file_name: job.fileName,
        file_bytes: job.file.length,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (let seq = 0; seq * CHUNK_BYTES < job.file.length; seq++)
      await trx
        .insertInto('import_chunks')
        .values({
          store_id: job.storeId,
          import_id: row.id,
          seq,
          data: job.file.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES),
        })
        .execute();
    return row;
  });
}

export function findImport(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<ImportRow | undefined> {
  return db
    .selectFrom('imports')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The store's imports (for a keyset page, newest first). */
export function importsQuery(db: Kysely<Database>, storeId: string) {
  return db.selectFrom('imports').selectAll().where('store_id', '=', storeId);
}

/**
 * Takes the oldest unfinished import whose lease has ended (or that has none) for `token` until
 * `leaseUntil`, in one conditional UPDATE: any number of workers share the queue, and a worker
 * that died leaves its import to the next once its lease ends.
 */
export async function claimImport(
  db: Kysely<Database>,
  now: Date,
  leaseUntil: Date,
  token: string,
): Promise<ImportRow | undefined> {
  const result = await sql<ImportRow>`
    UPDATE imports SET lease_token = ${token}, locked_until = ${leaseUntil}, attempts = attempts + 1,
      started_at = COALESCE(started_at, ${now}), updated_at = ${now}
    WHERE (store_id, id) = (
      SELECT store_id, id FROM imports
      WHERE status IN ('queued', 'checking', 'running') AND (locked_until IS NULL OR locked_until < ${now})
      ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING *`.execute(db);
  return result.rows[0];
}

/**
 * Records where the import stands and extends the lease, if `token` still holds it: false when
 * another worker has taken the import over (this one's lease ended), and then this one stops.
 */
export async function saveProgress(
  db: Kysely<Database>,
  job: { storeId: string; id: string; token: string },
  progress: { status: ImportStatus; done: number; rows?: number | null; summary?: ImportSummary },
  leaseUntil: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('imports')
    .set({
      status: progress.status,
      done: progress.done,
      ...(progress.rows !== undefined ? { rows: progress.rows } : {}),
      ...(progress.summary !== undefined ? { summary: JSON.stringify(progress.summary) } : {}),
      locked_until: leaseUntil,
      updated_at: new Date(),
    })
    .where('store_id', '=', job.storeId)
    .where('id', '=', job.id)
    .where('lease_token', '=', job.token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Keeps the errors found so far (the first `MAX_ERRORS`) with their count, if `token` holds the lease. */
export async function saveErrors(
  db: Kysely<Database>,
  job: { storeId: string; id: string; token: string },
  errors: readonly RowError[],
  count: number,
): Promise<void> {
  await db
    .updateTable('imports')
    .set({ errors: JSON.stringify(errors.slice(0, MAX_ERRORS)), error_count: count })
    .where('store_id', '=', job.storeId)
    .where('id', '=', job.id)
    .where('lease_token', '=', job.token)
    .execute();
}

/** The most row errors an import keeps (all are counted). */
export const MAX_ERRORS = 1000;

/** Ends an import (`completed` or `failed`) and deletes its file; false when `token` lost the lease. */
export async function finishImport(
  db: Kysely<Database>,
  job: { storeId: string; id: string; token: string },
  end: {
    status: 'completed' | 'failed';
    done: number;
    rows: number | null;
    summary: ImportSummary;
    errors: readonly RowError[];
    errorCount: number;
    ignoredColumns: readonly string[];
    failure: string | null;
    now: Date;
  },
  event?: (trx: Transaction<Database>) => Promise<unknown>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('imports')
      .set({
        status: end.status,
        done: end.done,
        rows: end.rows,
        summary: JSON.stringify(end.summary),
        errors: JSON.stringify(end.errors.slice(0, MAX_ERRORS)),
        error_count: end.errorCount,
        ignored_columns: [...end.ignoredColumns],
        failure: end.failure,
        lease_token: null,
        locked_until: null,
        finished_at: end.now,
        updated_at: end.now,
      })
      .where('store_id', '=', job.storeId)
      .where('id', '=', job.id)
      .where('lease_token', '=', job.token)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    await trx
      .deleteFrom('import_chunks')
      .where('store_id', '=', job.storeId)
      .where('import_id', '=', job.id)
      .execute();
    await event?.(trx);
    return true;
  });
}

/** The file, piece by piece, one piece in memory at a time. */
export async function* fileOf(
  db: Kysely<Database>,
  storeId: string,
  importId: string,
): AsyncGenerator<Uint8Array> {
  for (let seq = 0; ; seq++) {
    const chunk = await db
      .selectFrom('import_chunks')
      .select('data')
      .where('store_id', '=', storeId)
      .where('import_id', '=', importId)
      .where('seq', '=', seq)
      .executeTakeFirst();
    if (!chunk) return;
    yield chunk.data;
  }
}

/** Refreshes the planner's statistics of these tables, one at a time (decision `analyze-during-import`). */
export async function analyzeTables(
  db: Kysely<Database>,
  tables: readonly (keyof Database)[],
): Promise<void> {
  for (const table of tables) await sql`ANALYZE ${sql.id(table)}`.execute(db);
}
