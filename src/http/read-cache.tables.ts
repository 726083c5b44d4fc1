/** The read cache's versions (migration 0015, decision `read-cache-invalidation`): written only by the database's triggers. */
export interface ReadVersionTable {
  store_id: string;
  /** `c` catalog and content, `s` stock. */
  scope: 'c' | 's';
  /** One row per backend (`pg_backend_pid() % 16`), so concurrent writers never share a row. */
  shard: number;
  version: number;
}

export interface ReadCacheTables {
  read_versions: ReadVersionTable;
}

declare module '../db/tables.ts' {
  interface Database extends ReadCacheTables {}
}
