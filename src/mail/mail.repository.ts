import { sql, type Kysely, type Transaction } from 'kysely';
import { nextBatch } from '../db/keyset.ts';
import { fairBatch } from '../db/fair-batch.ts';
import { purgeOlderThan } from '../db/purge.ts';
import { backlogColumns, queueBacklog, type QueueBacklog } from '../db/backlog.ts';
import type { Database } from '../db/tables.ts';
import type { MailStatus, MailTier } from './mail.tables.ts';

/** All SQL of the mail outbox. */

type Db = Kysely<Database> | Transaction<Database>;

export interface NewMailRow {
  storeId: string;
  id: string;
  tier: MailTier;
  kind: string;
  to: string;
  subject: string;
  text: string;
  /** The HTML part; null or absent: text only. */
  html?: string | null | undefined;
  sealed: boolean;
  about?: string | undefined;
}

/** What an order's history shows of a mail. */
export interface MailSummary {
  id: string;
  kind: string;
  subject: string;
  status: MailStatus;
  created_at: Date;
  sent_at: Date | null;
}

/** A sealed mail's subject as a history shows it: never the subject itself. */
export const SEALED_SUBJECT = '(sealed)';

/**
 * The mails about one thing (`order:<id>`), oldest first; a sealed one (a gift card's codes) with
 * SEALED_SUBJECT for its subject, which is not for staff to read.
 */
export function mailsAbout(db: Db, storeId: string, about: string): Promise<MailSummary[]> {
  return db
    .selectFrom('mail_outbox')
    .select([
      'id',
      'kind',
      sql<string>`CASE WHEN sealed THEN ${SEALED_SUBJECT} ELSE subject END`.as('subject'),
      'status',
      'created_at',
      'sent_at',
    ])
    .where('store_id', '=', storeId)
    .where('about', '=', about)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertMail(db: Db, mail: NewMailRow): Promise<void> {
  await insertMailStatement(db, mail).execute();
}

/** {@link insertMail}'s statement, not run: a transaction's last (src/db/last-statement.ts). */
export function insertMailStatement(db: Db, mail: NewMailRow) {
  return db.insertInto('mail_outbox').values({
    store_id: mail.storeId,
    id: mail.id,
    tier: mail.tier,
    kind: mail.kind,
    to_address: mail.to,
    subject: mail.subject,
    text_body: mail.text,
    html_body: mail.html ?? null,
    sealed: mail.sealed,
    about: mail.about ?? null,
  });
}

export interface ClaimedMail {
  store_id: string;
  id: string;
  tier: MailTier;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  sealed: boolean;
  attempts: number;
}

/**
 * Claims up to `limit` due mails fairly across stores (decision `worker-loops`: every store's first due mail before
 * any store's second, so one store's backlog never holds up another's sign-in code), each with a
 * lease until `leaseUntil` taken by one conditional UPDATE, so any number of workers share the
 * queue and a worker that dies mid-send only delays its rows until the lease ends.
 */
export async function claimDueMail(
  db: Kysely<Database>,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedMail[]> {
  const { rows: due } = await fairBatch<{ store_id: string; id: string }>({
    table: 'mail_outbox',
    open: sql`t.status = 'pending'`,
    due: sql`t.next_attempt_at <= ${now} AND (t.locked_until IS NULL OR t.locked_until < ${now})`,
    orderBy: sql`t.next_attempt_at, t.id`,
    columns: sql`t.store_id, t.id`,
    limit,
  }).execute(db);
  if (due.length === 0) return [];
  const { rows } = await sql<ClaimedMail>`
    UPDATE mail_outbox m
    SET locked_until = ${leaseUntil}, attempts = m.attempts + 1
    FROM (SELECT * FROM unnest(${due.map((d) => d.store_id)}::uuid[], ${due.map((d) => d.id)}::uuid[]) AS c(store_id, id)) c
    WHERE m.store_id = c.store_id AND m.id = c.id
      AND m.status = 'pending' AND (m.locked_until IS NULL OR m.locked_until < ${now})
    RETURNING m.store_id, m.id, m.tier, m.kind, m.to_address, m.subject, m.text_body, m.html_body, m.sealed,
              m.attempts`.execute(db);
  return rows;
}

/** A mail the transport accepted. */
export interface SentMail {
  store_id: string;
  id: string;
  sentAt: Date;
  messageId: string;
}

/** Marks a mail sent, with the transport's message id; a sealed one (a sign-in code, a gift card's code) is erased. */
export async function markMailSent(db: Db, mail: SentMail): Promise<void> {
  await sql`
    UPDATE mail_outbox
    SET status = 'sent', sent_at = ${mail.sentAt}, message_id = ${mail.messageId}, locked_until = NULL,
        last_error = NULL,
        subject = CASE WHEN sealed THEN '(erased after sending)' ELSE subject END,
        text_body = CASE WHEN sealed THEN '' ELSE text_body END,
        html_body = CASE WHEN sealed THEN NULL ELSE html_body END
    WHERE store_id = ${mail.store_id} AND id = ${mail.id}`.execute(db);
}

/** Records a failed attempt: retried at `retryAt`, or `failed` for good when null. */
export async function markMailAttemptFailed(
  db: Db,
  mail: { store_id: string; id: string },
  error: string,
  retryAt: Date | null,
  now: Date,
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({
      status: retryAt === null ? 'failed' : 'pending',
      next_attempt_at: retryAt ?? now,
      locked_until: null,
      last_error: error.slice(0, 1000),
    })
    .where('store_id', '=', mail.store_id)
    .where('id', '=', mail.id)
    .execute();
}

export interface SealedMailRow {
  store_id: string;
  id: string;
  subject: string;
  text_body: string;
  html_body: string | null;
}

/**
 * Sealed mail not sent (pending or failed), in key order after `after`. The HTML part is read from
 * the row by name: an archive's import re-seals at the archive's schema, which may be older than
 * the column (migration 0049), and then reads null.
 */
export function sealedPendingMail(
  db: Db,
  after: { store_id: string; id: string } | undefined,
  limit: number,
): Promise<SealedMailRow[]> {
  return nextBatch(
    db
      .selectFrom('mail_outbox')
      .select([
        'store_id',
        'id',
        'subject',
        'text_body',
        sql<string | null>`to_jsonb(mail_outbox) ->> 'html_body'`.as('html_body'),
      ])
      .where('sealed', '=', true)
      .where('status', '<>', 'sent'),
    after,
    limit,
  );
}

/** Replaces an unsent mail's sealed subject and bodies (re-encrypted under the current root). */
export async function updateSealedMail(
  db: Db,
  mail: { store_id: string; id: string },
  subject: string,
  text: string,
  html: string | null,
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ subject, text_body: text, ...(html === null ? {} : { html_body: html }) })
    .where('store_id', '=', mail.store_id)
    .where('id', '=', mail.id)
    .where('status', '<>', 'sent')
    .execute();
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

/** A mail as a customer's export shows it: never a sealed one's subject (a sign-in code). */
export interface MailRecord {
  id: string;
  kind: string;
  to_address: string;
  subject: string;
  sealed: boolean;
  status: MailStatus;
  created_at: Date;
  sent_at: Date | null;
}

const mailToOrAbout = (db: Db, storeId: string, who: { to: string; about: readonly string[] }) =>
  db
    .selectFrom('mail_outbox')
    .where('store_id', '=', storeId)
    .where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['to_address']), '=', who.to.toLowerCase()),
        ...(who.about.length > 0 ? [eb('about', 'in', [...who.about])] : []),
      ]),
    );

/** The mails to an address or about some things (`order:<id>`), oldest first. */
export function mailsToOrAbout(
  db: Db,
  storeId: string,
  who: { to: string; about: readonly string[] },
): Promise<MailRecord[]> {
  return mailToOrAbout(db, storeId, who)
    .select(['id', 'kind', 'to_address', 'subject', 'sealed', 'status', 'created_at', 'sent_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Deletes the mails to an address or about some things, sent or not (an erasure). */
export async function deleteMailsToOrAbout(
  db: Db,
  storeId: string,
  who: { to: string; about: readonly string[] },
): Promise<number> {
  const rows = await mailToOrAbout(db, storeId, who).select('id').execute();
  if (rows.length === 0) return 0;
  const result = await db
    .deleteFrom('mail_outbox')
    .where('store_id', '=', storeId)
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Mails not yet sent (retries included) and the oldest one's age, across stores (metrics, decision `metrics-off-until-readable`). */
export async function mailBacklog(db: Db, now: Date): Promise<QueueBacklog> {
  const row = await db
    .selectFrom('mail_outbox')
    .where('status', '=', 'pending')
    .select((eb) => backlogColumns(eb))
    .executeTakeFirst();
  return queueBacklog(row, now);
}
