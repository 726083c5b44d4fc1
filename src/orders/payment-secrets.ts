import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { Keyring, type SealedColumns, type SealedValues } from '../lib/keyring.ts';
import { paymentSecretsAfter, setClientSecret, type PaymentSecretRow } from './order-payments.repository.ts';
import type { PaymentRow } from './orders.tables.ts';

/**
 * A payment's client secret is sealed at rest (decision `sealed-secrets`): it lets a buyer confirm the payment, and the
 * checkout answer (and its replays) must show it again.
 */

const PURPOSE = 'payment-client-secrets';
const context = (payment: Pick<PaymentRow, 'store_id' | 'provider' | 'ref'>): string =>
  `${payment.store_id}:${payment.provider}:${payment.ref}`;

export function sealClientSecret(
  keyring: Keyring,
  payment: Pick<PaymentRow, 'store_id' | 'provider' | 'ref'>,
  secret: string,
): string {
  return keyring.seal(PURPOSE, secret, context(payment));
}

/** The stored client secret, opened (a value stored before sealing is read as it is). */
export function openClientSecret(
  keyring: Keyring,
  payment: Pick<PaymentRow, 'store_id' | 'provider' | 'ref' | 'client_secret'>,
): string {
  return Keyring.isSealed(payment.client_secret)
    ? keyring.open(
        PURPOSE,
        payment.client_secret,
        context(payment),
        `The client secret of payment ${payment.ref}`,
      )
    : payment.client_secret;
}

/** Where the client secrets rest (for an archive's re-sealing). */
export const PAYMENT_SECRET_COLUMNS: SealedColumns = {
  what: 'payment client secrets',
  table: 'payments',
  purpose: PURPOSE,
  columns: ['client_secret'],
  context: (row) => context({ store_id: row.store_id!, provider: row.provider!, ref: row.ref! }),
  plaintextBefore: true,
};

/** Every payment's client secret (plaintext ones from before sealing included), for `secrets rotate`. */
export function paymentClientSecrets(db: Kysely<Database>, keyring: Keyring): SealedValues<PaymentSecretRow> {
  return {
    what: PAYMENT_SECRET_COLUMNS.what,
    batch: (after, limit) => paymentSecretsAfter(db, after, limit),
    async reseal(row, dryRun) {
      if (keyring.isCurrent(PURPOSE, row.client_secret)) return false;
      const plain = openClientSecret(keyring, row);
      if (!dryRun) await setClientSecret(db, row, sealClientSecret(keyring, row, plain));
      return true;
    },
  };
}
