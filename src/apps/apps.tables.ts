import type { Generated, Selectable } from 'kysely';
import type { CreatedAt, Json } from '../db/tables.ts';

export interface AppTable {
  store_id: string;
  id: Generated<string>;
  name: string;
  scopes: Json<string[]>;
  created_at: CreatedAt;
}
export type AppRow = Selectable<AppTable>;

/** Installed apps (decision `themes-and-apps`). */
export interface AppTables {
  apps: AppTable;
}

declare module '../db/tables.ts' {
  interface Database extends AppTables {}
}
