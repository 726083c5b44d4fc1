import type { Updateable } from 'kysely';
import { revokeCredentials, storeCredential } from '../credentials/credentials.service.ts';
import { lockScope } from '../db/advisory-lock.ts';
import { byCreated } from '../db/keyset.ts';
import { randomBase62 } from '../lib/crypto.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { normalizeOrigin } from '../lib/validate.ts';
import type { KeyResolver } from './key-resolver.ts';
import { countActiveKeys, findKey, insertKey, keysQuery, markRevoked, updateKey } from './keys.repository.ts';
import type { CreatedKey, KeyPatch, NewKey, StorefrontKey } from './keys.schemas.ts';
import type { StorefrontKeyRow, StorefrontKeyTable } from './keys.tables.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

export const KEY_PREFIX_LENGTH = 12;
export const MAX_ALLOWED_ORIGINS = 50;
/** Active (not revoked) publishable keys a store may have (decision `per-store-limits`). */
export const MAX_KEYS_PER_STORE = 50;

export interface KeysDeps extends ServiceDeps {
  /** Forgets a store's cached keys once one changes (this process at once, others within the TTL). */
  resolver: Pick<KeyResolver, 'forgetStore'>;
  /** The least a key's own budget may be set to (decision `pending-orders-per-client`: KEY_BUDGET_CLIENTS clients' budgets). */
  minimumBudgets: { publicRead: number; publicWrite: number };
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

function checkLabel(label: string): string {
  const trimmed = label.trim();
  if (trimmed.length < 1 || trimmed.length > 200) {
    throw validationFailed('The label must be 1 to 200 characters.', [
      { pointer: '/label', detail: 'must be 1 to 200 characters' },
    ]);
  }
  return trimmed;
}

const noKey = () => notFound('No storefront key with that id in this store.');

/** Creates a publishable key. The full key is returned only here; the database keeps its SHA-256. */
export async function createStorefrontKey(
  deps: Pick<KeysDeps, 'db' | 'clock'>,
  storeId: string,
  input: NewKey,
): Promise<CreatedKey> {
  const label = checkLabel(input.label);
  const allowedOrigins = normalizeOrigins(input.allowedOrigins ?? []);
  const key = `pk_${randomBase62(32)}`;
  const row = await deps.db.transaction().execute(async (trx) => {
    await lockScope(trx, 'storefront-keys', storeId);
    if ((await countActiveKeys(trx, storeId)) >= MAX_KEYS_PER_STORE) {
      throw new AppError(
        'limit_reached',
        409,
        `A store can have at most ${MAX_KEYS_PER_STORE} publishable keys; revoke one you no longer use first.`,
      );
    }
    const inserted = await insertKey(trx, {
      storeId,
      label,
      keyPrefix: key.slice(0, KEY_PREFIX_LENGTH),
      allowedOrigins,
      now: deps.clock.now(),
    });
    await storeCredential(
      { db: trx },
      { secret: key, kind: 'publishable_key', storeId, subjectId: inserted.id },
    );
    return inserted;
  });
  return { ...keyRowToKey(row), key };
}

export function listStorefrontKeys(
  deps: KeysDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<StorefrontKey>> {
  return byCreated(
    deps.cursors,
    `${storeId}:storefront-keys`,
    keysQuery(deps.db, storeId),
    page,
    keyRowToKey,
  );
}

export async function getStorefrontKey(
  deps: Pick<KeysDeps, 'db'>,
  storeId: string,
  keyId: string,
): Promise<StorefrontKey> {
  const row = await findKey(deps.db, storeId, keyId);
  if (!row) throw noKey();
  return keyRowToKey(row);
}

/**
 * Revokes a key: the credential is deleted and the row marked, in one transaction. Revoking a
 * revoked key is a no-op; an unknown id is 404.
 */
export async function revokeStorefrontKey(
  deps: Pick<KeysDeps, 'db' | 'clock'> & Partial<Pick<KeysDeps, 'resolver'>>,
  storeId: string,
  keyId: string,
): Promise<void> {
  const revoked = await deps.db.transaction().execute(async (trx) => {
    const row = await markRevoked(trx, storeId, keyId, deps.clock.now());
    await revokeCredentials({ db: trx }, storeId, keyId, 'publishable_key');
    return row;
  });
  if (!revoked) throw noKey();
  deps.resolver?.forgetStore(storeId);
}

/** Changes a key's label, origins or rate-limit overrides (null restores the default budget). */
export async function updateStorefrontKey(
  deps: KeysDeps,
  storeId: string,
  keyId: string,
  patch: KeyPatch,
): Promise<StorefrontKey> {
  const set: Updateable<StorefrontKeyTable> = { updated_at: deps.clock.now() };
  if (patch.label !== undefined) set.label = checkLabel(patch.label);
  if (patch.allowedOrigins !== undefined)
    set.allowed_origins = JSON.stringify(normalizeOrigins(patch.allowedOrigins));
  const tooLow = (['publicRead', 'publicWrite'] as const).filter((tier) => {
    const budget = patch.rateLimits?.[tier];
    return typeof budget === 'number' && budget < deps.minimumBudgets[tier];
  });
  if (tooLow.length > 0)
    throw validationFailed(
      "A key's budget is shared by every shopper of the store, so it may not be smaller than 50 clients' budgets.",
      tooLow.map((tier) => ({
        pointer: `/rateLimits/${tier}`,
        detail: `must be at least ${deps.minimumBudgets[tier]} (null restores the default)`,
      })),
    );
  if (patch.rateLimits?.publicRead !== undefined) set.rate_limit_read = patch.rateLimits.publicRead;
  if (patch.rateLimits?.publicWrite !== undefined) set.rate_limit_write = patch.rateLimits.publicWrite;
  const row = await updateKey(deps.db, storeId, keyId, set);
  if (!row) throw noKey();
  deps.resolver.forgetStore(storeId);
  return keyRowToKey(row);
}
