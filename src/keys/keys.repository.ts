import type { Kysely, SelectQueryBuilder, Updateable } from 'kysely';
import { nextBatch } from '../db/keyset.ts';
import type { Database } from '../db/tables.ts';
import type { StorefrontKeyRow, StorefrontKeyTable } from './keys.tables.ts';

/** All SQL on publishable keys. */

export function keysQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'storefront_keys', StorefrontKeyRow> {
  return db.selectFrom('storefront_keys').selectAll().where('store_id', '=', storeId);
}

export function findKey(
  db: Kysely<Database>,
  storeId: string,
  keyId: string,
): Promise<StorefrontKeyRow | undefined> {
  return keysQuery(db, storeId).where('id', '=', keyId).executeTakeFirst();
}

/** A key that is not revoked, or undefined. */
export function findActiveKey(
  db: Kysely<Database>,
  storeId: string,
  keyId: string,
): Promise<StorefrontKeyRow | undefined> {
  return keysQuery(db, storeId).where('id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst();
}

export async function countActiveKeys(db: Kysely<Database>, storeId: string): Promise<number> {
  const row = await db
    .selectFrom('storefront_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertKey(
  db: Kysely<Database>,
  key: { storeId: string; label: string; keyPrefix: string; allowedOrigins: string[]; now: Date },
): Promise<StorefrontKeyRow> {
  return db
    .insertInto('storefront_keys')
    .values({
      store_id: key.storeId,
      label: key.label,
      key_prefix: key.keyPrefix,
      allowed_origins: JSON.stringify(key.allowedOrigins),
      rate_limit_read: null,
      rate_limit_write: null,
      created_at: key.now,
      updated_at: key.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateKey(
  db: Kysely<Database>,
  storeId: string,
  keyId: string,
  changes: Updateable<StorefrontKeyTable>,
): Promise<StorefrontKeyRow | undefined> {
  return db
    .updateTable('storefront_keys')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirst();
}

/** Marks a key revoked (once: a second revocation keeps the first time); undefined when unknown. */
export function markRevoked(
  db: Kysely<Database>,
  storeId: string,
  keyId: string,
  now: Date,
): Promise<{ id: string } | undefined> {
  return db
    .updateTable('storefront_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('id', '=', keyId)
    .returning('id')
    .executeTakeFirst();
}

type SealedKeyRow = Pick<StorefrontKeyRow, 'store_id' | 'id' | 'sealed_key'>;

export function setSealedKey(
  db: Kysely<Database>,
  row: Pick<StorefrontKeyRow, 'store_id' | 'id'>,
  sealed: string,
) {
  return db
    .updateTable('storefront_keys')
    .set({ sealed_key: sealed })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .execute();
}

/** The newest active key of a store that the service keeps sealed to hand out again. */
export function findHandedOutKey(db: Kysely<Database>, storeId: string): Promise<SealedKeyRow | undefined> {
  return db
    .selectFrom('storefront_keys')
    .select(['store_id', 'id', 'sealed_key'])
    .where('store_id', '=', storeId)
    .where('revoked_at', 'is', null)
    .where('sealed_key', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Sealed keys after `after` in (store_id, id) order, for `secrets rotate`. */
export function sealedKeysAfter(
  db: Kysely<Database>,
  after: Pick<StorefrontKeyRow, 'store_id' | 'id'> | undefined,
  limit: number,
): Promise<SealedKeyRow[]> {
  return nextBatch(
    db
      .selectFrom('storefront_keys')
      .select(['store_id', 'id', 'sealed_key'])
      .where('sealed_key', 'is not', null),
    after,
    limit,
  );
}
