import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { ThemeRow } from './themes.tables.ts';

/** All SQL on themes. */

export function themesQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'themes', ThemeRow> {
  return db.selectFrom('themes').selectAll().where('store_id', '=', storeId);
}

export function findTheme(db: Kysely<Database>, storeId: string, id: string): Promise<ThemeRow | undefined> {
  return themesQuery(db, storeId).where('id', '=', id).executeTakeFirst();
}

export function insertTheme(
  db: Kysely<Database>,
  theme: { storeId: string; name: string; settings: string; now: Date },
): Promise<ThemeRow> {
  return db
    .insertInto('themes')
    .values({
      store_id: theme.storeId,
      name: theme.name,
      settings: theme.settings,
      created_at: theme.now,
      updated_at: theme.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Takes the store's live theme offline; its id, or undefined when none was live. */
export function unpublishLiveTheme(
  db: Kysely<Database>,
  storeId: string,
  now: Date,
): Promise<{ id: string } | undefined> {
  return db
    .updateTable('themes')
    .set({ live: false, updated_at: now })
    .where('store_id', '=', storeId)
    .where('live', '=', true)
    .returning('id')
    .executeTakeFirst();
}

export function markLive(db: Kysely<Database>, storeId: string, id: string, now: Date): Promise<ThemeRow> {
  return db
    .updateTable('themes')
    .set({ live: true, published_at: now, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
