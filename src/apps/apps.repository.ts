import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { AppRow } from './apps.tables.ts';

/** All SQL on installed apps. */

export function appsQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'apps', AppRow> {
  return db.selectFrom('apps').selectAll().where('store_id', '=', storeId);
}

/** Inserts an app unless one of that name is installed in the store (then undefined). */
export function insertApp(
  db: Kysely<Database>,
  app: { storeId: string; name: string; scopes: string[]; now: Date },
): Promise<AppRow | undefined> {
  return db
    .insertInto('apps')
    .values({
      store_id: app.storeId,
      name: app.name,
      scopes: JSON.stringify(app.scopes),
      created_at: app.now,
    })
    .onConflict((oc) => oc.columns(['store_id', 'name']).doNothing())
    .returningAll()
    .executeTakeFirst();
}
