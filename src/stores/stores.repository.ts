import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { StoreRow } from './stores.tables.ts';

export function findStoreById(db: Kysely<Database>, storeId: string): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirst();
}

export function findStoreBySlug(db: Kysely<Database>, slug: string): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').selectAll().where('slug', '=', slug).executeTakeFirst();
}
