import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import { DKIM_KEY_COLUMNS, dkimPrivateKeys } from '../email/email.dkim.ts';
import { SEALED_KEY_COLUMNS, sealedStorefrontKeys } from '../keys/keys.sealed.ts';
import {
  resealAll,
  type Keyring,
  type ResealReport,
  type SealedColumns,
  type SealedValues,
} from '../lib/keyring.ts';
import { SEALED_MAIL_COLUMNS, sealedMail } from '../mail/outbox.ts';
import { PAYMENT_SECRET_COLUMNS, paymentClientSecrets } from '../orders/payment-secrets.ts';
import { STORED_ANSWER_COLUMNS, storedAnswers } from '../idempotency/idempotency.ts';
import { ENDPOINT_SECRET_COLUMNS, endpointSecrets } from '../webhooks/webhooks.secrets.ts';
import { TAX_SERVICE_SECRET_COLUMNS, taxServiceSecrets } from '../pricing/tax-service.secret.ts';
import { dropGeneratedRoot } from './keyring.loader.ts';

type Reseal = (dryRun: boolean) => Promise<ResealReport>;

/** Every kind of value the keyring seals (decision `keyring`). The first two are checked at every start. */
function sealedKinds(db: Kysely<Database>, keyring: Keyring): Reseal[] {
  const each =
    <Row>(values: SealedValues<Row>): Reseal =>
    (dryRun) =>
      resealAll(values, dryRun);
  return [
    each(endpointSecrets(db, keyring)),
    each(dkimPrivateKeys(db, keyring)),
    each(paymentClientSecrets(db, keyring)),
    each(storedAnswers(db, keyring)),
    each(sealedMail(db, keyring)),
    each(sealedStorefrontKeys(db, keyring)),
    each(taxServiceSecrets(db, keyring)),
  ];
}

/**
 * Where each kind of `sealedKinds` rests, in the same order (the same `what`): what an archive
 * re-seals on its way out (`storefront export --key-file`, `--store`). A kind added above is added
 * here too; src/archive/archive.test.ts holds the two lists together.
 */
export const SEALED_COLUMNS: readonly SealedColumns[] = [
  ENDPOINT_SECRET_COLUMNS,
  DKIM_KEY_COLUMNS,
  PAYMENT_SECRET_COLUMNS,
  STORED_ANSWER_COLUMNS,
  SEALED_MAIL_COLUMNS,
  SEALED_KEY_COLUMNS,
  TAX_SERVICE_SECRET_COLUMNS,
];

export interface RotateResult {
  reports: ResealReport[];
  /** The root generated before SECRET_KEY was set was deleted (nothing needs it any more). */
  droppedGeneratedRoot: boolean;
}

/**
 * `storefront secrets rotate`: re-encrypts every sealed value under the current root (SECRET_KEY),
 * so the roots in SECRET_KEY_PREVIOUS can be retired. When SECRET_KEY is set and everything was
 * re-encrypted, the root generated before it is deleted from the database. With `dryRun`
 * (`storefront secrets check`) nothing is written: it reports what would change and what cannot
 * be decrypted.
 */
export async function rotateSecrets(
  db: Kysely<Database>,
  keyring: Keyring,
  config: Pick<Config, 'secretKey'>,
  dryRun: boolean,
): Promise<RotateResult> {
  const reports: ResealReport[] = [];
  // An archive's import re-seals at the archive's schema, before the migrations after it: a kind
  // whose table came later has nothing to re-seal yet.
  const { rows } = await sql<{ relname: string }>`
    SELECT relname FROM pg_class
    WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace
      AND relname = ANY(${SEALED_COLUMNS.map((kind) => kind.table)})`.execute(db);
  const present = new Set(rows.map((row) => row.relname));
  for (const [index, reseal] of sealedKinds(db, keyring).entries())
    if (present.has(SEALED_COLUMNS[index]!.table)) reports.push(await reseal(dryRun));
  const clean = reports.every((report) => report.unreadable === 0);
  const droppedGeneratedRoot = !dryRun && clean && config.secretKey !== null && (await dropGeneratedRoot(db));
  return { reports, droppedGeneratedRoot };
}

/**
 * At start-up: says loudly (an error line per kind) when webhook signing secrets or DKIM keys
 * cannot be decrypted with the configured roots, before the first delivery or mail fails.
 */
export async function reportUnreadableSecrets(
  db: Kysely<Database>,
  keyring: Keyring,
  log: Logger,
): Promise<number> {
  let unreadable = 0;
  for (const reseal of sealedKinds(db, keyring).slice(0, 2)) {
    const report = await reseal(true);
    if (report.unreadable === 0) continue;
    unreadable += report.unreadable;
    log.error(
      { unreadable: report.unreadable, roots: keyring.rootNames, example: report.problems[0] },
      `${report.unreadable} ${report.what} cannot be decrypted with the configured root secrets: set SECRET_KEY_PREVIOUS to the SECRET_KEY they were made with, then run \`storefront secrets rotate\``,
    );
  }
  return unreadable;
}
