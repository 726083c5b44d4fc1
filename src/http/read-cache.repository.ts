import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { parseLsn } from '../db/replica.ts';
import './read-cache.tables.ts';

export interface StoreReadVersions {
  storeId: string;
  catalog: number;
  stock: number;
}

/** The current versions of these stores (0 for a store that never changed since the migration). */
export async function readVersions(
  db: Kysely<Database>,
  storeIds: readonly string[],
): Promise<StoreReadVersions[]> {
  if (storeIds.length === 0) return [];
  const rows = await db
    .selectFrom('read_versions')
    .select([
      'store_id',
      sql<number>`coalesce(sum(version) FILTER (WHERE scope = 'c'), 0)::int8`.as('catalog'),
      sql<number>`coalesce(sum(version) FILTER (WHERE scope = 's'), 0)::int8`.as('stock'),
    ])
    .where('store_id', 'in', storeIds)
    .groupBy('store_id')
    .execute();
  const found = new Map(rows.map((row) => [row.store_id, row]));
  return storeIds.map((storeId) => ({
    storeId,
    catalog: Number(found.get(storeId)?.catalog ?? 0),
    stock: Number(found.get(storeId)?.stock ?? 0),
  }));
}

/** The primary's WAL position now (decision `replica-reads`), as a number of bytes. */
export async function walPosition(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`.execute(db);
  return parseLsn(rows[0]!.lsn);
}
