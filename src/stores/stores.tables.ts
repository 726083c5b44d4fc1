import type { Generated, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt } from '../db/tables.ts';

export interface StoreTable {
  id: Generated<string>;
  name: string;
  slug: string;
  currency: string;
  reply_to_email: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type StoreRow = Selectable<StoreTable>;

/** The stores (global: the tenants themselves). */
export interface StoreTables {
  stores: StoreTable;
}

declare module '../db/tables.ts' {
  interface Database extends StoreTables {}
}
