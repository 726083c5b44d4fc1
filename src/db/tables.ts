import type { ColumnType } from 'kysely';

/**
 * The database's type: an interface every feature extends with its own tables, in its
 * `<feature>.tables.ts` (declaration merging), so this part names no feature and each table is
 * declared by the feature that owns it. Column names are snake_case; each feature maps rows to wire
 * shapes, so snake_case never reaches an API response. Tenant tables have composite primary keys
 * (store_id, id) and every index leads with store_id.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface Database {}

/** Set by the database on insert (DEFAULT now()) or given; never updated. */
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** Set on insert (or defaulted) and on every change. */
export type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** A required timestamp. */
export type Time = ColumnType<Date, Date | string, Date | string>;
/** An optional timestamp. */
export type NullableTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** A jsonb column: written as JSON text, read as the parsed value. */
export type Json<T> = ColumnType<T, string, string>;
