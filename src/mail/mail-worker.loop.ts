import { sql, type Kysely } from 'kysely';
import type { Log } from '../lib/log.ts';
import type { Config } from '../config.ts';
import { fairBatch } from '../db/fair-batch.ts';
import type { Database } from '../db/tables.ts';
import { SecretUnreadableError, type Keyring } from '../lib/keyring.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import { MAIL_LOOP, MAIL_PURPOSE, mailContext } from './outbox.ts';
import { platformSender, storeSender } from './sender.ts';
import type { MailTransport } from './transport.ts';
import type { Clock } from '../lib/clock.ts';

const BATCH = 20;
const LEASE_MS = 2 * 60 * 1000;

export interface MailWorkerDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'platformMailDomain' | 'mailRetryScheduleMs'>;
  keyring: Keyring;
  transport: MailTransport;
  clock: Clock;
  log: Log;
}

interface ClaimedMail {
  store_id: string;
  id: string;
  tier: 'platform' | 'store';
  to_address: string;
  subject: string;
  text_body: string;
  sealed: boolean;
  attempts: number;
}

/**
 * Claims due mail fairly across stores (D23: every store's first due mail before any store's
 * second, so one store's backlog never holds up another's sign-in code), each row with a lease
 * taken by one conditional UPDATE, so any number of workers share the queue and a worker that dies
 * mid-send only delays its rows until the lease ends.
 */
async function claimDueMail(db: Kysely<Database>, now: Date): Promise<ClaimedMail[]> {
  const { rows: due } = await fairBatch<{ store_id: string; id: string }>({
    table: 'mail_outbox',
    open: sql`t.status = 'pending'`,
    due: sql`t.next_attempt_at <= ${now} AND (t.locked_until IS NULL OR t.locked_until < ${now})`,
    orderBy: sql`t.next_attempt_at, t.id`,
    columns: sql`t.store_id, t.id`,
    limit: BATCH,
  }).execute(db);
  if (due.length === 0) return [];
  const { rows } = await sql<ClaimedMail>`
    UPDATE mail_outbox m
    SET locked_until = ${new Date(now.getTime() + LEASE_MS)}, attempts = m.attempts + 1
    FROM (SELECT * FROM unnest(${due.map((d) => d.store_id)}::uuid[], ${due.map((d) => d.id)}::uuid[]) AS c(store_id, id)) c
    WHERE m.store_id = c.store_id AND m.id = c.id
      AND m.status = 'pending' AND (m.locked_until IS NULL OR m.locked_until < ${now})
    RETURNING m.store_id, m.id, m.tier, m.to_address, m.subject, m.text_body, m.sealed, m.attempts`.execute(
    db,
  );
  return rows;
}

/**
 * Sends due mail. A failed send is retried on MAIL_RETRY_SCHEDULE; after the last attempt the row
 * is marked `failed` and kept so it can be inspected and re-queued. A mail that cannot be built
 * because a secret cannot be decrypted (its sealed text, or the store's DKIM key) fails at once
 * with the reason, loudly, instead of retrying. A sealed mail (a sign-in code) is erased once sent.
 */
export async function sendDueMail(deps: MailWorkerDeps): Promise<number> {
  const { db, clock, keyring } = deps;
  const claimed = await claimDueMail(db, clock.now());

  for (const row of claimed) {
    const attempt = row.attempts;
    const open = (text: string): string =>
      row.sealed
        ? keyring.open(MAIL_PURPOSE, text, mailContext(row.store_id, row.id), `Mail ${row.id}`)
        : text;
    try {
      const sender =
        row.tier === 'platform'
          ? platformSender(deps.config)
          : await storeSender(db, deps.config, keyring, row.store_id);
      const { messageId } = await deps.transport.send({
        ...sender,
        to: row.to_address,
        subject: open(row.subject),
        text: open(row.text_body),
        headers: { 'X-Storefront-Mail-Id': row.id },
      });
      await db
        .updateTable('mail_outbox')
        .set({
          status: 'sent',
          sent_at: clock.now(),
          message_id: messageId,
          locked_until: null,
          last_error: null,
          ...(row.sealed ? { subject: '(erased after sending)', text_body: '' } : {}),
        })
        .where('store_id', '=', row.store_id)
        .where('id', '=', row.id)
        .execute();
    } catch (error) {
      const unreadable = error instanceof SecretUnreadableError;
      const schedule = deps.config.mailRetryScheduleMs;
      const delay = unreadable ? undefined : schedule[attempt - 1];
      const message = error instanceof Error ? error.message : String(error);
      if (unreadable)
        deps.log.error({ mailId: row.id, err: message }, 'mail failed: a secret cannot be decrypted');
      else
        deps.log.warn(
          { mailId: row.id, attempt, err: message },
          delay === undefined ? 'mail failed for good' : 'mail send failed; will retry',
        );
      await db
        .updateTable('mail_outbox')
        .set({
          status: delay === undefined ? 'failed' : 'pending',
          next_attempt_at: new Date(clock.now().getTime() + (delay ?? 0)),
          locked_until: null,
          last_error: message.slice(0, 1000),
        })
        .where('store_id', '=', row.store_id)
        .where('id', '=', row.id)
        .execute();
    }
  }
  return claimed.length;
}

export function mailWorkerLoop(deps: MailWorkerDeps): WorkerLoop {
  return {
    name: MAIL_LOOP,
    intervalMs: 2000,
    async run(signal) {
      // Drain: keep going while full batches come back.
      while (!signal.aborted && (await sendDueMail(deps)) === BATCH) {
        /* next batch */
      }
    },
  };
}
