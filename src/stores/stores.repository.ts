import type { Kysely, Updateable } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { StoreRow, StoreTable } from './stores.tables.ts';

export function findStoreById(db: Kysely<Database>, storeId: string): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirst();
}

export function findStoreBySlug(db: Kysely<Database>, slug: string): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** Inserts a store unless its slug is taken (then undefined). */
export function insertStore(
  db: Kysely<Database>,
  store: { name: string; slug: string; currency: string; replyToEmail: string; now: Date },
): Promise<StoreRow | undefined> {
  return db
    .insertInto('stores')
    .values({
      name: store.name,
      slug: store.slug,
      currency: store.currency,
      reply_to_email: store.replyToEmail,
      created_at: store.now,
      updated_at: store.now,
    })
    .onConflict((oc) => oc.column('slug').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateStore(
  db: Kysely<Database>,
  storeId: string,
  changes: Updateable<StoreTable>,
): Promise<StoreRow | undefined> {
  return db.updateTable('stores').set(changes).where('id', '=', storeId).returningAll().executeTakeFirst();
}

export async function deleteStoreRow(db: Kysely<Database>, storeId: string): Promise<void> {
  await db.deleteFrom('stores').where('id', '=', storeId).execute();
}
