import { randomUUID } from 'node:crypto';
import type { Compilable, Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Keyring, SealedColumns, SealedValues } from '../lib/keyring.ts';
import type { MailTier } from './mail.tables.ts';
import {
  insertMail,
  insertMailStatement,
  sealedPendingMail,
  updateSealedMail,
  type SealedMailRow,
} from './mail.repository.ts';

export { mailBacklog, purgeSentMail } from './mail.repository.ts';
export type { MailTier } from './mail.tables.ts';

export interface QueuedMail {
  storeId: string;
  /** `platform`: sign-in codes, admin notices (always from the platform sender). `store`: customer mail. */
  tier: MailTier;
  kind: string;
  to: string;
  subject: string;
  text: string;
  /** An HTML part besides the text (multipart/alternative); absent: text only. */
  html?: string | undefined;
  /** What it is about (`order:<id>`): the thing's history lists it (`mailsAbout`). */
  about?: string;
}

/** The mail worker loop's name: wake it after queueing mail. */
export const MAIL_LOOP = 'mail';

/** What seals mail that must not rest in plaintext (sign-in codes, gift card codes: decision `sealed-secrets`). */
export const MAIL_PURPOSE = 'mail-outbox';
export const mailContext = (storeId: string, id: string): string => `${storeId}:${id}`;

/**
 * Queues a mail in the caller's transaction: it is sent (by the mail worker) if and only if the
 * change commits, and an SMTP outage never fails or slows the request that caused it. With a
 * keyring the subject and bodies are sealed (a sign-in code or a gift card's code never rests in
 * plaintext) and erased once the mail is sent.
 */
export async function enqueueMail(
  trx: Transaction<Database> | Kysely<Database>,
  mail: QueuedMail,
  sealWith?: Keyring,
): Promise<string> {
  const row = mailRow(mail, sealWith);
  await insertMail(trx, row);
  return row.id;
}

/** {@link enqueueMail}'s statement, not run: a transaction's last (src/db/last-statement.ts). */
export function enqueueMailStatement(trx: Transaction<Database>, mail: QueuedMail): Compilable {
  return insertMailStatement(trx, mailRow(mail));
}

function mailRow(mail: QueuedMail, sealWith?: Keyring) {
  const id = randomUUID();
  const seal = (text: string): string =>
    sealWith ? sealWith.seal(MAIL_PURPOSE, text, mailContext(mail.storeId, id)) : text;
  return {
    ...mail,
    id,
    subject: seal(mail.subject),
    text: seal(mail.text),
    html: mail.html === undefined ? null : seal(mail.html),
    sealed: sealWith !== undefined,
  };
}

/**
 * Where sealed mail rests (for an archive's re-sealing): subject and bodies of sealed mail not sent
 * (pending, or failed and kept to be queued again: a gift card's codes exist nowhere else).
 */
export const SEALED_MAIL_COLUMNS: SealedColumns = {
  what: 'sealed mail not yet sent',
  table: 'mail_outbox',
  purpose: MAIL_PURPOSE,
  columns: ['subject', 'text_body', 'html_body'],
  context: (row) => mailContext(row.store_id!, row.id!),
  sealedIn: (row) => row.sealed === 'true' && row.status !== 'sent',
};

/** Sealed mail not yet sent (sign-in codes, gift card codes), for `storefront secrets rotate`. */
export function sealedMail(db: Kysely<Database>, keyring: Keyring): SealedValues<SealedMailRow> {
  return {
    what: SEALED_MAIL_COLUMNS.what,
    batch: (after, limit) => sealedPendingMail(db, after, limit),
    async reseal(row, dryRun) {
      if (
        keyring.isCurrent(MAIL_PURPOSE, row.subject) &&
        keyring.isCurrent(MAIL_PURPOSE, row.text_body) &&
        (row.html_body === null || keyring.isCurrent(MAIL_PURPOSE, row.html_body))
      )
        return false;
      const context = mailContext(row.store_id, row.id);
      const reseal = (text: string) =>
        keyring.seal(MAIL_PURPOSE, keyring.open(MAIL_PURPOSE, text, context, `Mail ${row.id}`), context);
      const subject = reseal(row.subject);
      const text = reseal(row.text_body);
      const html = row.html_body === null ? null : reseal(row.html_body);
      if (!dryRun) await updateSealedMail(db, row, subject, text, html);
      return true;
    },
  };
}

export { mailsAbout, type MailSummary } from './mail.repository.ts';
export { mailsToOrAbout, deleteMailsToOrAbout, type MailRecord } from './mail.repository.ts';
