import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring, SealedColumns, SealedValues } from '../lib/keyring.ts';
import { taxServiceSecretsAfter, writeTaxServiceSecret } from './tax-service.repository.ts';
import type { TaxServiceRow } from './tax-service.tables.ts';

/**
 * A tax service's signing secret rests sealed by the keyring (decision `keyring`), bound to its
 * store as associated data, exactly as webhook endpoints' secrets are: the service must sign with
 * it, so a hash would not do. The plain secret leaves the service only in the responses that make
 * it (creation, rotation).
 */

const PURPOSE = 'tax-service-secrets';
const context = (storeId: string): string => `tax-service:${storeId}`;
const what = (storeId: string): string => `The signing secret of the tax service of store ${storeId}`;

export function sealTaxServiceSecret(keyring: Keyring, storeId: string, secret: string): string {
  return keyring.seal(PURPOSE, secret, context(storeId));
}

/** Throws SecretUnreadableError when no configured root secret opens it. */
export function openTaxServiceSecret(keyring: Keyring, storeId: string, sealed: string): string {
  return keyring.open(PURPOSE, sealed, context(storeId), what(storeId));
}

/** Where the secrets rest (an archive re-seals them under its own key, decision `archive-secrets`). */
export const TAX_SERVICE_SECRET_COLUMNS: SealedColumns = {
  what: 'tax service signing secrets',
  table: 'tax_services',
  purpose: PURPOSE,
  columns: ['secret_ciphertext'],
  context: (row) => context(row.store_id!),
};

type SealedRow = Pick<TaxServiceRow, 'store_id' | 'secret_ciphertext'>;

/** Every store's tax service secret, for `storefront secrets rotate` and `check`. */
export function taxServiceSecrets(db: Kysely<Database>, keyring: Keyring): SealedValues<SealedRow> {
  return {
    what: TAX_SERVICE_SECRET_COLUMNS.what,
    batch: (after, limit) => taxServiceSecretsAfter(db, after, limit),
    async reseal(row, dryRun) {
      if (keyring.isCurrent(PURPOSE, row.secret_ciphertext)) return false;
      const plain = openTaxServiceSecret(keyring, row.store_id, row.secret_ciphertext);
      if (!dryRun) await writeTaxServiceSecret(db, row, sealTaxServiceSecret(keyring, row.store_id, plain));
      return true;
    },
  };
}
