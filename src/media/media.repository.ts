import type { Insertable, Kysely } from 'kysely';
import { nextBatch } from '../db/keyset.ts';
import type { Database } from '../db/tables.ts';
import type { MediaRow, MediaTable } from './media.tables.ts';

/** All SQL on media. */

/** Inserts the media, or finds the store's media of the same bytes (same hash): either way, its row. */
export async function insertOrFindMedia(
  db: Kysely<Database>,
  media: Omit<Insertable<MediaTable>, 'id' | 'created_at'>,
): Promise<{ row: MediaRow; created: boolean }> {
  const inserted = await db
    .insertInto('media')
    .values(media)
    .onConflict((oc) => oc.columns(['store_id', 'hash']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { row: inserted, created: true };
  const existing = await db
    .selectFrom('media')
    .selectAll()
    .where('store_id', '=', media.store_id)
    .where('hash', '=', media.hash)
    .executeTakeFirstOrThrow();
  return { row: existing, created: false };
}

/** The store's media of the given hash (the SHA-256 of its kept bytes), if any. */
export function findMediaByHash(
  db: Kysely<Database>,
  storeId: string,
  hash: string,
): Promise<MediaRow | undefined> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('hash', '=', hash)
    .executeTakeFirst();
}

export function findMedia(db: Kysely<Database>, storeId: string, id: string): Promise<MediaRow | undefined> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The store's media among `ids` (unknown ids and other stores' media are left out). */
export function findMediaByIds(
  db: Kysely<Database>,
  storeId: string,
  ids: readonly string[],
): Promise<MediaRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('media')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', 'in', [...ids])
    .execute();
}

/** Media rows after `after` in key order, at most `limit`: every upload of every store, page by page. */
export function mediaAfter(
  db: Kysely<Database>,
  after: Pick<MediaRow, 'store_id' | 'id'> | undefined,
  limit: number,
): Promise<Pick<MediaRow, 'store_id' | 'id' | 'hash' | 'content_type'>[]> {
  return nextBatch(db.selectFrom('media').select(['store_id', 'id', 'hash', 'content_type']), after, limit);
}
