import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, Json, NullableTime, UpdatedAt } from '../db/tables.ts';

export interface ThemeTable {
  store_id: string;
  id: Generated<string>;
  name: string;
  settings: Json<Record<string, unknown>>;
  /** At most one live theme per store (a partial unique index). */
  live: ColumnType<boolean, boolean | undefined, boolean>;
  published_at: NullableTime;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type ThemeRow = Selectable<ThemeTable>;

/** Storefront themes (decision `themes-and-apps`). */
export interface ThemeTables {
  themes: ThemeTable;
}

declare module '../db/tables.ts' {
  interface Database extends ThemeTables {}
}
