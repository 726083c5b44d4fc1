import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring, SealedColumns, SealedValues } from '../lib/keyring.ts';
import { findHandedOutKey, sealedKeysAfter, setSealedKey } from './keys.repository.ts';
import type { StorefrontKeyRow } from './keys.tables.ts';

/**
 * Publishable keys the service hands out again (decision `shop-publishable-key`): the demo store's
 * key, which the reference shop at /shop and /docs "Try it" use after every restart. The key is
 * sealed with the keyring (decision `keyring`), bound to its row; every other key is shown once and kept only
 * hashed.
 */

const PURPOSE = 'storefront-keys';
type Row = Pick<StorefrontKeyRow, 'store_id' | 'id'>;
const context = (row: Row): string => `${row.store_id}:${row.id}`;

export async function keepKeySealed(
  db: Kysely<Database>,
  keyring: Keyring,
  row: Row,
  key: string,
): Promise<void> {
  await setSealedKey(db, row, keyring.seal(PURPOSE, key, context(row)));
}

/** The store's newest active key kept sealed, opened; null when it has none (or it was revoked). */
export async function handedOutKey(
  db: Kysely<Database>,
  keyring: Keyring,
  storeId: string,
): Promise<string | null> {
  const row = await findHandedOutKey(db, storeId);
  if (!row?.sealed_key) return null;
  return keyring.open(PURPOSE, row.sealed_key, context(row), `The sealed publishable key ${row.id}`);
}

/** Where the kept keys rest (for an archive's re-sealing). */
export const SEALED_KEY_COLUMNS: SealedColumns = {
  what: 'publishable keys kept for the reference shop',
  table: 'storefront_keys',
  purpose: PURPOSE,
  columns: ['sealed_key'],
  context: (row) => context({ store_id: row.store_id!, id: row.id! }),
};

/** Every sealed key, for `storefront secrets rotate` and `check`. */
export function sealedStorefrontKeys(
  db: Kysely<Database>,
  keyring: Keyring,
): SealedValues<Row & { sealed_key: string | null }> {
  return {
    what: SEALED_KEY_COLUMNS.what,
    batch: (after, limit) => sealedKeysAfter(db, after, limit),
    async reseal(row, dryRun) {
      if (!row.sealed_key || keyring.isCurrent(PURPOSE, row.sealed_key)) return false;
      const plain = keyring.open(
        PURPOSE,
        row.sealed_key,
        context(row),
        `The sealed publishable key ${row.id}`,
      );
      if (!dryRun) await keepKeySealed(db, keyring, row, plain);
      return true;
    },
  };
}
