import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { SecretUnreadableError, type Keyring } from '../lib/keyring.ts';
import type { Log } from '../lib/log.ts';
import { OncePerIntervalByKey } from '../lib/once-per-interval.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import { claimDueMail, markMailAttemptFailed, markMailSent, type ClaimedMail } from './mail.repository.ts';
import type { MailTier } from './mail.tables.ts';
import { MAIL_LOOP, MAIL_PURPOSE, mailContext } from './outbox.ts';
import type { MailTransport, Sender } from './transport.ts';

/** Mails claimed at once: enough to keep every concurrent send busy between two claims. */
const BATCH_PER_SEND = 4;
/**
 * An SMTP server that is down or refuses fails every send: failed sends (and, apart, mails failed
 * for good) are logged once per this interval, with the count of the others. Each mail keeps its
 * own last error in the outbox.
 */
export const FAILURE_LOG_INTERVAL_MS = 60_000;

/** The failures of one worker's sends, logged per kind at most once per interval. */
export function mailFailureLog(clock: Clock): OncePerIntervalByKey {
  return new OncePerIntervalByKey(FAILURE_LOG_INTERVAL_MS, () => clock.now().getTime());
}

/** An SMTP answer quotes the recipient (`550 <ada@example.com>: no such user`): not in the log. */
const redactAddresses = (text: string): string =>
  text.replace(/[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g, '[address]');

export interface MailWorkerDeps {
  db: Kysely<Database>;
  /** Delays between attempts to send one mail (MAIL_RETRY_SCHEDULE). */
  retryScheduleMs: readonly number[];
  /** Mails in flight at once (MAIL_CONCURRENCY): over the SMTP transport's pool of as many connections. */
  concurrency: number;
  /** How long a claimed mail belongs to this worker (MAIL_LEASE); a worker that dies frees it then. */
  leaseMs: number;
  /** The right-hand side of every mail's stable Message-ID (`<mail id@domain>`): the platform's mail domain. */
  messageIdDomain: string;
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

/** The Message-ID of a mail: the same on every attempt, so a receiver can drop a second copy. */
export const messageIdOf = (mailId: string, domain: string): string => `<${mailId}@${domain}>`;

/**
 * Sends due mail, `concurrency` at a time, and marks each mail sent as soon as the transport has
 * accepted it: a crash or a database outage can only send again the mails that were in flight
 * (and those carry the same Message-ID as their first copy). A failed send is retried on
 * MAIL_RETRY_SCHEDULE; after the last attempt the row is marked `failed` and kept so it can be
 * inspected and re-queued. A mail that cannot be built because a secret cannot be decrypted (its
 * sealed text, or the store's DKIM key) fails at once with the reason, loudly, instead of retrying.
 * A sealed mail (a sign-in code, a gift card's code) is erased once sent. Returns the number of mails claimed.
 */
export async function sendDueMail(
  deps: MailWorkerDeps,
  failures: OncePerIntervalByKey = mailFailureLog(deps.clock),
): Promise<number> {
  const { db, clock } = deps;
  const now = clock.now();
  const batch = deps.concurrency * BATCH_PER_SEND;
  const claimed = await claimDueMail(db, now, new Date(now.getTime() + deps.leaseMs), batch);
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
  // Each lane sends one mail at a time. When an outcome cannot be recorded (the database went
  // away) the lanes stop: what was claimed and not sent waits for its lease to end, unsent.
  let next = 0;
  let stopped: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (stopped === null && next < claimed.length) {
      try {
        await sendOne(deps, claimed[next++]!, senderOf, failures);
      } catch (error) {
        stopped ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency, claimed.length) }, lane));
  if (stopped) throw (stopped as { error: unknown }).error;
  return claimed.length;
}

/** Sends one claimed mail and records the outcome: sent, or a failed attempt. */
async function sendOne(
  deps: MailWorkerDeps,
  row: ClaimedMail,
  senderOf: (tier: MailTier, storeId: string) => Promise<Sender>,
  failures: OncePerIntervalByKey,
): Promise<void> {
  const { db, clock, keyring } = deps;
  const open = (text: string): string =>
    row.sealed ? keyring.open(MAIL_PURPOSE, text, mailContext(row.store_id, row.id), `Mail ${row.id}`) : text;
  let messageId: string;
  try {
    const sender = await senderOf(row.tier, row.store_id);
    ({ messageId } = await deps.transport.send({
      ...sender,
      to: row.to_address,
      subject: open(row.subject),
      text: open(row.text_body),
      html: row.html_body === null ? undefined : open(row.html_body),
      messageId: messageIdOf(row.id, deps.messageIdDomain),
      headers: {
        'X-Storefront-Mail-Id': row.id,
        'X-Storefront-Mail-Tier': row.tier,
        'X-Storefront-Mail-Kind': row.kind,
      },
    }));
  } catch (error) {
    const unreadable = error instanceof SecretUnreadableError;
    const delay = unreadable ? undefined : deps.retryScheduleMs[row.attempts - 1];
    const message = error instanceof Error ? error.message : String(error);
    if (unreadable)
      deps.log.error({ mailId: row.id, err: message }, 'mail failed: a secret cannot be decrypted');
    else {
      const unlogged = failures.hit(delay === undefined ? 'failed' : 'retry');
      if (unlogged !== null)
        deps.log.warn(
          { mailId: row.id, attempt: row.attempts, err: redactAddresses(message), failedMeanwhile: unlogged },
          delay === undefined
            ? 'mail failed for good (at most one line a minute)'
            : 'mail send failed; will retry (at most one line a minute)',
        );
    }
    const failedAt = clock.now();
    const retryAt = delay === undefined ? null : new Date(failedAt.getTime() + delay);
    await markMailAttemptFailed(db, row, message, retryAt, failedAt);
    return;
  }
  await markMailSent(db, { store_id: row.store_id, id: row.id, sentAt: clock.now(), messageId });
}

export function mailWorkerLoop(deps: MailWorkerDeps): WorkerLoop {
  const failures = mailFailureLog(deps.clock);
  return {
    name: MAIL_LOOP,
    intervalMs: 2000,
    async run(signal) {
      // Drain: keep going while full batches come back.
      while (!signal.aborted && (await sendDueMail(deps, failures)) === deps.concurrency * BATCH_PER_SEND) {
        /* next batch */
      }
    },
  };
}
