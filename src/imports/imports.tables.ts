import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, NullableTime, UpdatedAt } from '../db/tables.ts';

export type ImportKind = 'products' | 'customers' | 'inventory';
export type ImportStatus = 'queued' | 'checking' | 'running' | 'completed' | 'failed';

/** A bad cell or row of an import file: `row` as a spreadsheet numbers it (the header is row 1). */
export interface RowError {
  row: number;
  column: string | null;
  detail: string;
}

/** What an import did, by the records of its kind (products, customers or variants). */
export interface ImportSummary {
  created?: number;
  updated?: number;
  unchanged?: number;
  images?: number;
}

/** An import job (decision `csv-imports`); its file is in `import_chunks` until it ends. */
export interface ImportTable {
  store_id: string;
  id: Generated<string>;
  kind: ImportKind;
  dry_run: boolean;
  status: ColumnType<ImportStatus, ImportStatus | undefined, ImportStatus>;
  file_name: string | null;
  file_bytes: number;
  rows: ColumnType<number | null, number | null | undefined, number | null>;
  done: ColumnType<number, number | undefined, number>;
  errors: ColumnType<RowError[], string | undefined, string>;
  error_count: ColumnType<number, number | undefined, number>;
  ignored_columns: ColumnType<string[], string[] | undefined, string[]>;
  summary: ColumnType<ImportSummary, string | undefined, string>;
  failure: ColumnType<string | null, string | null | undefined, string | null>;
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  locked_until: NullableTime;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: CreatedAt;
  started_at: NullableTime;
  finished_at: NullableTime;
  updated_at: UpdatedAt;
}
export type ImportRow = Selectable<ImportTable>;

export interface ImportChunkTable {
  store_id: string;
  import_id: string;
  seq: number;
  data: Uint8Array;
}

export interface ImportTables {
  imports: ImportTable;
  import_chunks: ImportChunkTable;
}

declare module '../db/tables.ts' {
  interface Database extends ImportTables {}
}
