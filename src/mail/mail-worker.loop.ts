import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { SecretUnreadableError, type Keyring } from '../lib/keyring.ts';
import type { Log } from '../lib/log.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import {
  claimDueMail,
  markMailAttemptFailed,
  markMailsSent,
  type ClaimedMail,
  type SentMail,
} from './mail.repository.ts';
import type { MailTier } from './mail.tables.ts';
import { MAIL_LOOP, MAIL_PURPOSE, mailContext } from './outbox.ts';
import type { MailTransport, Sender } from './transport.ts';

const BATCH = 20;
const LEASE_MS = 2 * 60 * 1000;

export interface MailWorkerDeps {
  db: Kysely<Database>;
  /** Delays between attempts to send one mail (MAIL_RETRY_SCHEDULE). */
  retryScheduleMs: readonly number[];
  /** Opens sealed subjects and bodies. */
  keyring: Keyring;
  transport: MailTransport;
  /**
   * Who a mail is from, resolved at send time (the email part decides: the platform sender, or the
   * store's name and, once verified, its own domain with a DKIM key). May throw
   * SecretUnreadableError when a key cannot be opened.
   */
  senderOf: (tier: MailTier, storeId: string) => Promise<Sender>;
  clock: Clock;
  log: Log;
}

/**
 * Sends due mail. A failed send is retried on MAIL_RETRY_SCHEDULE; after the last attempt the row
 * is marked `failed` and kept so it can be inspected and re-queued. A mail that cannot be built
 * because a secret cannot be decrypted (its sealed text, or the store's DKIM key) fails at once
 * with the reason, loudly, instead of retrying. A sealed mail (a sign-in code) is erased once sent.
 * The batch's sent mails are marked in one statement after it (a crash before that sends them again
 * once their lease ends: at least once, as a crash between a send and its mark always could).
 */
export async function sendDueMail(deps: MailWorkerDeps): Promise<number> {
  const { db, clock } = deps;
  const now = clock.now();
  const claimed = await claimDueMail(db, now, new Date(now.getTime() + LEASE_MS), BATCH);
  // Resolved once per batch and store (the store's mail of one batch has one sender).
  const senders = new Map<string, Promise<Sender>>();
  const senderOf = (tier: MailTier, storeId: string): Promise<Sender> => {
    const key = `${tier}:${storeId}`;
    let sender = senders.get(key);
    if (!sender) {
      sender = deps.senderOf(tier, storeId);
      senders.set(key, sender);
    }
    return sender;
  };

  const sent: SentMail[] = [];
  try {
    for (const row of claimed) await sendOne(deps, row, senderOf, sent);
  } finally {
    await markMailsSent(db, sent);
  }
  return claimed.length;
}

/** Sends one claimed mail: into `sent`, or its failed attempt recorded. */
async function sendOne(
  deps: MailWorkerDeps,
  row: ClaimedMail,
  senderOf: (tier: MailTier, storeId: string) => Promise<Sender>,
  sent: SentMail[],
): Promise<void> {
  const { db, clock, keyring } = deps;
  const open = (text: string): string =>
    row.sealed ? keyring.open(MAIL_PURPOSE, text, mailContext(row.store_id, row.id), `Mail ${row.id}`) : text;
  try {
    const sender = await senderOf(row.tier, row.store_id);
    const { messageId } = await deps.transport.send({
      ...sender,
      to: row.to_address,
      subject: open(row.subject),
      text: open(row.text_body),
      headers: { 'X-Storefront-Mail-Id': row.id, 'X-Storefront-Mail-Tier': row.tier },
    });
    sent.push({ store_id: row.store_id, id: row.id, sentAt: clock.now(), messageId });
  } catch (error) {
    const unreadable = error instanceof SecretUnreadableError;
    const delay = unreadable ? undefined : deps.retryScheduleMs[row.attempts - 1];
    const message = error instanceof Error ? error.message : String(error);
    if (unreadable)
      deps.log.error({ mailId: row.id, err: message }, 'mail failed: a secret cannot be decrypted');
    else
      deps.log.warn(
        { mailId: row.id, attempt: row.attempts, err: message },
        delay === undefined ? 'mail failed for good' : 'mail send failed; will retry',
      );
    const failedAt = clock.now();
    const retryAt = delay === undefined ? null : new Date(failedAt.getTime() + delay);
    await markMailAttemptFailed(db, row, message, retryAt, failedAt);
  }
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
