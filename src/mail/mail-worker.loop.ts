import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../http/context.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import { platformSender, storeSender } from './sender.ts';
import type { MailTransport } from './transport.ts';

const BATCH = 20;
const LEASE_MS = 2 * 60 * 1000;

export interface MailWorkerDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'platformMailDomain' | 'mailRetryScheduleMs'>;
  transport: MailTransport;
  clock: Clock;
  log: Logger;
}

/**
 * Sends queued mail. Rows are claimed with FOR UPDATE SKIP LOCKED and a lease, so any number of
 * workers share the queue and a worker that dies mid-send only delays its batch until the lease
 * ends. A failed send is retried on MAIL_RETRY_SCHEDULE; after the last attempt the row is marked
 * `failed` and kept (never deleted) so it can be inspected and re-queued.
 */
export async function sendDueMail(deps: MailWorkerDeps): Promise<number> {
  const { db, clock } = deps;
  const now = clock.now();
  const claimed = await db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('mail_outbox')
      .selectAll()
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return rows;
    for (const row of rows) {
      await trx
        .updateTable('mail_outbox')
        .set({ locked_until: new Date(now.getTime() + LEASE_MS), attempts: sql<number>`attempts + 1` })
        .where('store_id', '=', row.store_id)
        .where('id', '=', row.id)
        .execute();
    }
    return rows;
  });

  for (const row of claimed) {
    const attempt = row.attempts + 1;
    try {
      const sender =
        row.tier === 'platform'
          ? platformSender(deps.config)
          : await storeSender(db, deps.config, row.store_id);
      const { messageId } = await deps.transport.send({
        ...sender,
        to: row.to_address,
        subject: row.subject,
        text: row.text_body,
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
        })
        .where('store_id', '=', row.store_id)
        .where('id', '=', row.id)
        .execute();
    } catch (error) {
      const schedule = deps.config.mailRetryScheduleMs;
      const delay = schedule[attempt - 1];
      const message = error instanceof Error ? error.message : String(error);
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

export const MAIL_LOOP = 'mail';

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
