import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, Json, UpdatedAt } from '../db/tables.ts';

export interface StorefrontKeyTable {
  store_id: string;
  id: Generated<string>;
  label: string;
  key_prefix: string;
  allowed_origins: Json<string[]>;
  /** Per-key rate-limit overrides, requests per window; null means the configured default. */
  rate_limit_read: number | null;
  rate_limit_write: number | null;
  /**
   * The key itself, sealed (decision `sealed-secrets`), only for a key the service hands out again (the demo store's, for
   * the reference shop and /docs); null for every other key, which is shown once and kept hashed.
   */
  sealed_key: ColumnType<string | null, string | null | undefined, string | null>;
  revoked_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type StorefrontKeyRow = Selectable<StorefrontKeyTable>;

/** Publishable keys (their secrets are only in `credentials`, hashed). */
export interface KeyTables {
  storefront_keys: StorefrontKeyTable;
}

declare module '../db/tables.ts' {
  interface Database extends KeyTables {}
}
