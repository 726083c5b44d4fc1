import type { Kysely, Transaction } from 'kysely';
import type { Database, MailTier } from '../db/tables.ts';

export interface QueuedMail {
  storeId: string;
  /** `platform`: sign-in codes, admin notices (always from the platform sender). `store`: customer mail. */
  tier: MailTier;
  kind: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * Queues a mail in the caller's transaction: it is sent (by the mail worker) if and only if the
 * change commits, and an SMTP outage never fails or slows the request that caused it.
 */
export async function enqueueMail(
  trx: Transaction<Database> | Kysely<Database>,
  mail: QueuedMail,
): Promise<string> {
  const row = await trx
    .insertInto('mail_outbox')
    .values({
      store_id: mail.storeId,
      tier: mail.tier,
      kind: mail.kind,
      to_address: mail.to,
      subject: mail.subject,
      text_body: mail.text,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
