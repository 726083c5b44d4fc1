import { lockScope } from '../db/advisory-lock.ts';
import { sql, type Kysely, type Updateable } from 'kysely';
import type { Database } from '../db/tables.ts';
import { randomBase62, sha256Hex } from '../lib/crypto.ts';
import { normalizeOrigin } from '../lib/validate.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import type { StorefrontKeyRow, StorefrontKeyTable } from './keys.tables.ts';

export const PUBLISHABLE_KEY_PATTERN = /^pk_[0-9A-Za-z]{32}$/;
export const KEY_PREFIX_LENGTH = 12;
export const MAX_ALLOWED_ORIGINS = 50;

export interface StorefrontKey {
  id: string;
  label: string;
  keyPrefix: string;
  allowedOrigins: string[];
  rateLimits: { publicRead: number | null; publicWrite: number | null };
  createdAt: string;
  revokedAt: string | null;
}

export function keyRowToKey(row: StorefrontKeyRow): StorefrontKey {
  return {
    id: row.id,
    label: row.label,
    keyPrefix: row.key_prefix,
    allowedOrigins: row.allowed_origins,
    rateLimits: { publicRead: row.rate_limit_read, publicWrite: row.rate_limit_write },
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/** Validates and normalises allowed origins; 400 with a pointer to each bad entry. */
export function normalizeOrigins(origins: readonly string[], pointerBase = '/allowedOrigins'): string[] {
  const errors: FieldError[] = [];
  const normalized = origins.map((origin, i) => {
    const value = normalizeOrigin(origin);
    if (value === null) {
      errors.push({
        pointer: `${pointerBase}/${i}`,
        detail: 'must be an origin: http(s)://host[:port], with no path and no wildcard',
      });
    }
    return value ?? '';
  });
  if (origins.length > MAX_ALLOWED_ORIGINS) {
    errors.push({ pointer: pointerBase, detail: `must list at most ${MAX_ALLOWED_ORIGINS} origins` });
  }
  if (errors.length > 0) throw validationFailed('allowedOrigins contains an invalid origin.', errors);
  return [...new Set(normalized)];
}

/** Creates a publishable key. The full key is returned only here; the database keeps its SHA-256. */
/** Active (not revoked) publishable keys a store may have (D31). */
export const MAX_KEYS_PER_STORE = 50;

export async function createStorefrontKey(
  db: Kysely<Database>,
  storeId: string,
  input: { label: string; allowedOrigins: readonly string[] },
): Promise<StorefrontKey & { key: string }> {
  const label = input.label.trim();
  if (label.length < 1 || label.length > 200) {
    throw validationFailed('The label must be 1 to 200 characters.', [
      { pointer: '/label', detail: 'must be 1 to 200 characters' },
    ]);
  }
  const allowedOrigins = normalizeOrigins(input.allowedOrigins);
  const key = `pk_${randomBase62(32)}`;
  const row = await db.transaction().execute(async (trx) => {
    await lockScope(trx, 'storefront-keys', storeId);
    const active = await trx
      .selectFrom('storefront_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('store_id', '=', storeId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(active.n) >= MAX_KEYS_PER_STORE) {
      throw new AppError(
        'limit_reached',
        409,
        `A store can have at most ${MAX_KEYS_PER_STORE} publishable keys; revoke one you no longer use first.`,
      );
    }
    const inserted = await trx
      .insertInto('storefront_keys')
      .values({
        store_id: storeId,
        label,
        key_prefix: key.slice(0, KEY_PREFIX_LENGTH),
        allowed_origins: JSON.stringify(allowedOrigins),
        rate_limit_read: null,
        rate_limit_write: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('credentials')
      .values({ hash: sha256Hex(key), kind: 'publishable_key', store_id: storeId, subject_id: inserted.id })
      .execute();
    return inserted;
  });
  return { ...keyRowToKey(row), key };
}

/**
 * Revokes a key: the credential is deleted and the row marked, in one transaction. Revoking a
 * revoked key is a no-op; an unknown id is 404.
 */
export async function revokeStorefrontKey(
  db: Kysely<Database>,
  storeId: string,
  keyId: string,
): Promise<void> {
  const revoked = await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('storefront_keys')
      .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())`, updated_at: new Date() })
      .where('store_id', '=', storeId)
      .where('id', '=', keyId)
      .returning('id')
      .executeTakeFirst();
    await trx
      .deleteFrom('credentials')
      .where('store_id', '=', storeId)
      .where('subject_id', '=', keyId)
      .where('kind', '=', 'publishable_key')
      .execute();
    return row;
  });
  if (!revoked) throw notFound('No storefront key with that id in this store.');
}

export interface StorefrontKeyPatch {
  label?: string | undefined;
  allowedOrigins?: readonly string[] | undefined;
  rateLimits?:
    { publicRead?: number | null | undefined; publicWrite?: number | null | undefined } | undefined;
}

/** Changes a key's label, origins or rate-limit overrides (null restores the default budget). */
export async function updateStorefrontKey(
  db: Kysely<Database>,
  storeId: string,
  keyId: string,
  patch: StorefrontKeyPatch,
): Promise<StorefrontKey> {
  const set: Updateable<StorefrontKeyTable> = { updated_at: new Date() };
  if (patch.label !== undefined) {
    const label = patch.label.trim();
    if (label.length < 1 || label.length > 200) {
      throw validationFailed('The label must be 1 to 200 characters.', [
        { pointer: '/label', detail: 'must be 1 to 200 characters' },
      ]);
    }
    set.label = label;
  }
  if (patch.allowedOrigins !== undefined)
    set.allowed_origins = JSON.stringify(normalizeOrigins(patch.allowedOrigins));
  if (patch.rateLimits?.publicRead !== undefined) set.rate_limit_read = patch.rateLimits.publicRead;
  if (patch.rateLimits?.publicWrite !== undefined) set.rate_limit_write = patch.rateLimits.publicWrite;
  const row = await db
    .updateTable('storefront_keys')
    .set(set)
    .where('store_id', '=', storeId)
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('No storefront key with that id in this store.');
  return keyRowToKey(row);
}
