import type { Kysely } from 'kysely';
import type { Database, StorefrontKeyRow } from '../db/tables.ts';
import { notFound, validationFailed, type FieldError } from '../http/errors.ts';
import { randomBase62, sha256Hex } from '../lib/crypto.ts';
import { normalizeOrigin } from '../lib/validate.ts';

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

/** Revokes a key: the credential is deleted and the row marked, in one transaction. */
export async function revokeStorefrontKey(
  db: Kysely<Database>,
  storeId: string,
  keyId: string,
): Promise<void> {
  const revoked = await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('storefront_keys')
      .set({ revoked_at: new Date(), updated_at: new Date() })
      .where('store_id', '=', storeId)
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
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
  if (!revoked) throw notFound('No active storefront key with that id in this store.');
}
