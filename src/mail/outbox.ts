import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { purgeOlderThan } from '../db/purge.ts';
import type { Database } from '../db/tables.ts';
import type { Keyring, SealedValues } from '../lib/keyring.ts';
import type { MailTier } from './mail.tables.ts';

export interface QueuedMail {
  storeId: string;
  /** `platform`: sign-in codes, admin notices (always from the platform sender). `store`: customer mail. */
  tier: MailTier;
  kind: string;
  to: string;
  subject: string;
  text: string;
}

/** The mail worker loop's name: wake it after queueing mail. */
export const MAIL_LOOP = 'mail';

/** What seals mail that must not rest in plaintext (sign-in codes, D28). */
export const MAIL_PURPOSE = 'mail-outbox';
export const mailContext = (storeId: string, id: string): string => `${storeId}:${id}`;

/**
 * Queues a mail in the caller's transaction: it is sent (by the mail worker) if and only if the
 * change commits, and an SMTP outage never fails or slows the request that caused it. With a
 * keyring the subject and body are sealed (a sign-in code never rests in plaintext) and erased
 * once the mail is sent.
 */
export async function enqueueMail(
  trx: Transaction<Database> | Kysely<Database>,
  mail: QueuedMail,
  sealWith?: Keyring,
): Promise<string> {
  const id = randomUUID();
  const seal = (text: string): string =>
    sealWith ? sealWith.seal(MAIL_PURPOSE, text, mailContext(mail.storeId, id)) : text;
  await trx
    .insertInto('mail_outbox')
    .values({
      store_id: mail.storeId,
      id,
      tier: mail.tier,
      kind: mail.kind,
      to_address: mail.to,
      subject: seal(mail.subject),
      text_body: seal(mail.text),
      sealed: sealWith !== undefined,
    })
    .execute();
  return id;
}

interface SealedMailRow {
  store_id: string;
  id: string;
  subject: string;
  text_body: string;
}

/** Sealed mail not yet sent (sign-in codes), for `storefront secrets rotate`. */
export function sealedMail(db: Kysely<Database>, keyring: Keyring): SealedValues<SealedMailRow> {
  return {
    what: 'sealed mail waiting to be sent',
    batch: (after, limit) =>
      db
        .selectFrom('mail_outbox')
        .select(['store_id', 'id', 'subject', 'text_body'])
        .where('sealed', '=', true)
        .where('status', '=', 'pending')
        .$if(after !== undefined, (qb) =>
          qb.where((eb) => eb(eb.refTuple('store_id', 'id'), '>', eb.tuple(after!.store_id, after!.id))),
        )
        .orderBy('store_id')
        .orderBy('id')
        .limit(limit)
        .execute(),
    async reseal(row, dryRun) {
      if (keyring.isCurrent(MAIL_PURPOSE, row.subject) && keyring.isCurrent(MAIL_PURPOSE, row.text_body))
        return false;
      const context = mailContext(row.store_id, row.id);
      const reseal = (text: string) =>
        keyring.seal(MAIL_PURPOSE, keyring.open(MAIL_PURPOSE, text, context, `Mail ${row.id}`), context);
      const subject = reseal(row.subject);
      const text = reseal(row.text_body);
      if (!dryRun) {
        await db
          .updateTable('mail_outbox')
          .set({ subject, text_body: text })
          .where('store_id', '=', row.store_id)
          .where('id', '=', row.id)
          .where('status', '=', 'pending')
          .execute();
      }
      return true;
    },
  };
}

/** Removes mail sent before `cutoff`; failed mail stays for inspection and re-queueing. */
export async function purgeSentMail(db: Kysely<Database>, cutoff: Date): Promise<number> {
  return purgeOlderThan(db, {
    table: 'mail_outbox',
    keyColumns: ['id'],
    timeColumn: 'created_at',
    cutoff,
    where: sql`i.status = 'sent'`,
  });
}
