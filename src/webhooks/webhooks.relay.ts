import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Log } from '../lib/log.ts';
import type { Database } from '../db/tables.ts';
import { isDatabaseUnavailable, reportIfOutage } from '../db/errors.ts';
import type { Clock } from '../lib/clock.ts';
import { SecretUnreadableError, type Keyring } from '../lib/keyring.ts';
import { OncePerIntervalByKey } from '../lib/once-per-interval.ts';
import type { WebhookConfig } from './webhooks.config.ts';
import { NotificationListener, Waker } from './webhooks.listener.ts';
import {
  claimDeliveries,
  currentDatabaseName,
  failUnsignable,
  fanOutAndClaim,
  FANOUT_BATCH,
  nextDueAt,
  OUTCOME_BATCH,
  recordOutcomes,
  type AttemptResult,
  type ClaimedDelivery,
  type Outcome,
} from './webhooks.relay.repository.ts';
import { WEBHOOK_CHANNEL } from './webhooks.repository.ts';
import { SigningKeyCache, type SigningKey } from './webhooks.secrets.ts';
import { WebhookSender, webhookHeaders, type SendResult } from './webhooks.sender.ts';

/**
 * How often the relay looks for new events without a notification (one small statement): a
 * fallback when it hears commits (PostgreSQL LISTEN), the only way otherwise (PGlite).
 */
export const POLL_MS = { notified: 2000, polling: 100 } as const;
/** How often it scans for due deliveries without a reason to (new events, a wake-up, a due retry). */
export const SCAN_MS = { notified: 2000, polling: 500 } as const;
/**
 * While busy, commits' notifications are taken together (decision `relay-coalescing`): a fan-out
 * that found events is followed by the next one no sooner than this, so a store selling many times
 * a second costs the relay at most this many fan-outs a second, each taking every event committed
 * meanwhile, rather than one per commit. A quiet relay fans out at once.
 */
export const FANOUT_GAP_MS = 20;
/** A claimed delivery belongs to its relay for the attempt's timeout plus this margin. */
const LEASE_MARGIN_MS = 30_000;
/**
 * A batch of outcomes the database could not take (a dropped connection, a pooler restarting) is
 * recorded again after these waits, well within the lease: the attempts are known, and giving up
 * would send them again when their leases end (decision `relay-records-again`).
 */
export const RECORD_RETRY_MS = [250, 1000, 2500] as const;
/**
 * A receiver that is down fails every attempt to it: each endpoint's failed attempts (and, apart,
 * its deliveries failed for good) are logged once per this interval, with the count of the others.
 * Each delivery keeps its own last error for the console and the API.
 */
export const FAILURE_LOG_INTERVAL_MS = 60_000;

export interface RelayDeps {
  db: Kysely<Database>;
  keyring: Keyring;
  clock: Clock;
  log: Log;
  webhooks: WebhookConfig;
  /**
   * The PostgreSQL URL to LISTEN on (another connection); null to poll (the embedded PGlite, or
   * behind a transaction pooler without DATABASE_DIRECT_URL).
   */
  databaseUrl: string | null;
  /**
   * Told of every attempt's outcome (`retry`: failed, another attempt follows; `failed`: no
   * attempts left, a dead letter) and how long the send took (the metrics, decision `metrics-off-until-readable`).
   */
  onAttempt?: (outcome: 'delivered' | 'retry' | 'failed' | 'lost', seconds: number) => void;
}

/** The lease a relay takes on a delivery for one attempt. */
export function leaseMs(config: { webhooks: Pick<WebhookConfig, 'timeoutMs'> }): number {
  return config.webhooks.timeoutMs + LEASE_MARGIN_MS;
}

/** The same database the Kysely pool is on (tests clone databases, so not always DATABASE_URL's). */
async function listenUrl(db: Kysely<Database>, databaseUrl: string): Promise<string> {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(await currentDatabaseName(db))}`;
  return url.href;
}

/** The host (and port) of a receiver's URL: never its path or query, which often hold a token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** The exact raw body: the envelope `{id, event, createdAt, data}` (spec 2.16); `id` is the event id. */
export function envelopeOf(delivery: Pick<ClaimedDelivery, 'event'>): string {
  const { event } = delivery;
  return JSON.stringify({
    id: event.id,
    event: event.type,
    createdAt: event.createdAt.toISOString(),
    data: event.data,
  });
}

/**
 * The outbox relay as one long-running worker loop (decision `lean-relay`). It sleeps until there
 * is something to do, and then does only that:
 *   - events committed: a notification (on PostgreSQL a dedicated connection LISTENs on
 *     `storefront_webhooks`, which a trigger on `events` signals at every commit that inserted
 *     events) makes it run one fan-out statement, which also claims the fresh deliveries it may send at once (fanOutAndClaim), so a
 *     quiet relay's whole cycle for a new event is that one statement; while busy, a fan-out that
 *     found events is followed by the next no sooner than FANOUT_GAP_MS, which takes every event
 *     committed meanwhile (decision `relay-coalescing`);
 *   - deliveries may be due that the fan-out did not claim (a backlog, rows waiting behind an older
 *     one of their resource, retries, replays, another relay's leftovers): it claims due
 *     deliveries fairly across stores (claimDeliveries), as many as it has free sending slots (at
 *     most WEBHOOK_CONCURRENCY at once per process), again once half its slots are free while the
 *     last claim was full or its sends unblocked newer deliveries, and looks up when the next retry
 *     or lease expiry is due once nothing more is;
 *   - the next retry or lease expiry is due, or the poll interval passes (2 s, a fallback for lost
 *     notifications; 100 ms on PGlite, which has no second connection to LISTEN on).
 * The results of attempts that finish together are recorded in one statement (recordOutcomes).
 * Its own notifications (to other relays) carry its id and do not wake it. It returns only when
 * the worker stops, after the attempts in flight have ended and been recorded (an attempt cut
 * short by the stop is retried at once by whichever relay claims it next).
 */
export class WebhookRelay {
  readonly #deps: RelayDeps;
  readonly #waker = new Waker();
  readonly #inflight = new Set<Promise<void>>();
  /** Names this relay in the notifications it sends, so that it ignores its own. */
  readonly #id = randomUUID();
  /** When the next retry or lease expiry is due (from the last scan), ms since the epoch. */
  #dueAt: number | null = null;
  #lastScan = 0;
  #lastFanOut = 0;
  /** When the last fan-out that found events ran (performance.now(), not the clock: tests stop that). */
  #lastBusyFanOut = -Infinity;
  #fanOuts = 0;
  /** Events may wait for fan-out (a notification from a commit, a poll, a full batch). */
  #fanOutDue = true;
  /** Due deliveries may wait that only a claim would take. */
  #scanDue = true;
  readonly #outcomes: (AttemptResult & {
    resolve: (outcome: Outcome) => void;
    reject: (error: unknown) => void;
  })[] = [];
  #recording: Promise<void> | null = null;
  /** The relay was told to stop: outcomes are not recorded again (their leases send them again). */
  #stopping = false;
  readonly #signingKeys = new SigningKeyCache();
  readonly #failures: OncePerIntervalByKey;

  constructor(deps: RelayDeps) {
    this.#deps = deps;
    this.#failures = new OncePerIntervalByKey(FAILURE_LOG_INTERVAL_MS, () => deps.clock.now().getTime());
  }

  /** The fan-out statements this relay has run (each takes every event committed before it). */
  get fanOuts(): number {
    return this.#fanOuts;
  }

  /** The payload of this relay's notifications; `''` (a commit's) and others' wake it. */
  get #notifyPayload(): string {
    return `relay:${this.#id}`;
  }

  #onNotify = (payload: string): void => {
    if (payload === this.#notifyPayload) return;
    // The events trigger notifies with an empty payload; the admin API (retries, replays,
    // re-enabled endpoints) and other relays (rows they left) with one of their own.
    if (payload === '') this.#fanOutDue = true;
    else this.#scanDue = true;
    this.#waker.notify();
  };

  async run(signal: AbortSignal): Promise<void> {
    const { db, webhooks, databaseUrl, log, keyring } = this.#deps;
    const sender = new WebhookSender(webhooks);
    const listener = databaseUrl
      ? new NotificationListener({
          connectionString: await listenUrl(db, databaseUrl),
          channel: WEBHOOK_CHANNEL,
          onNotify: this.#onNotify,
          log,
        })
      : null;
    const notified = listener !== null;
    const timing = {
      pollMs: notified ? POLL_MS.notified : POLL_MS.polling,
      scanMs: notified ? SCAN_MS.notified : SCAN_MS.polling,
    };
    this.#fanOutDue = true;
    this.#scanDue = true;
    try {
      while (!signal.aborted) {
        this.#waker.clear();
        let sleepMs: number = timing.pollMs;
        try {
          await listener?.ensure();
          sleepMs = await this.#cycle(keyring, sender, signal, timing);
        } catch (error) {
          if (signal.aborted) break;
          if (!reportIfOutage(log, error, { loop: 'webhook relay' }))
            log.error({ err: error }, 'webhook relay cycle failed');
          this.#lastScan = 0;
          this.#fanOutDue = true;
          this.#scanDue = true;
          sleepMs = 1000;
        }
        const woken = await this.#waker.wait(sleepMs, signal);
        // The poll interval passed without a notification: look for events anyway.
        if (!woken && this.#deps.clock.now().getTime() - this.#lastFanOut >= timing.pollMs) {
          this.#fanOutDue = true;
        }
      }
    } finally {
      this.#stopping = true;
      await Promise.allSettled([...this.#inflight]);
      await this.#recording;
      await listener?.close();
      await sender.close();
    }
  }

  /** One pass; returns how long to sleep before the next one (unless woken). */
  async #cycle(
    keyring: Keyring,
    sender: WebhookSender,
    signal: AbortSignal,
    timing: { pollMs: number; scanMs: number },
  ): Promise<number> {
    const { db, webhooks, clock } = this.#deps;
    // Busy: the events of the commits that notified since the last fan-out wait for its gap to end.
    let gapLeft = 0;
    while (this.#fanOutDue && !signal.aborted) {
      gapLeft = this.#lastBusyFanOut + FANOUT_GAP_MS - performance.now();
      if (gapLeft > 0) break;
      this.#fanOutDue = false;
      this.#lastFanOut = clock.now().getTime();
      this.#fanOuts++;
      const started = performance.now();
      const fanOut = await fanOutAndClaim(db, {
        now: clock.now(),
        leaseMs: leaseMs(this.#deps),
        claimLimit: Math.max(0, webhooks.concurrency - this.#inflight.size),
        notifyPayload: this.#notifyPayload,
      });
      this.#send(fanOut.claimed, keyring, sender, signal);
      // Rows it could not claim at once wait for a claim (no free slot, a backlog, an older row
      // of their resource in flight, a disabled endpoint's: claimDeliveries decides).
      if (fanOut.created > fanOut.claimed.length) this.#scanDue = true;
      if (fanOut.dispatched === FANOUT_BATCH) this.#fanOutDue = true;
      else if (fanOut.dispatched > 0) this.#lastBusyFanOut = started;
    }
    const now = clock.now().getTime();
    const scan =
      this.#scanDue || (this.#dueAt !== null && this.#dueAt <= now) || now - this.#lastScan >= timing.scanMs;
    const free = webhooks.concurrency - this.#inflight.size;
    if (scan && !signal.aborted) {
      if (free <= 0) {
        // No free slot: the sends in flight wake it when half of them are done.
        this.#scanDue = true;
      } else {
        this.#scanDue = false;
        this.#lastScan = now;
        const claimed = await claimDeliveries(db, clock.now(), leaseMs(this.#deps), free);
        this.#send(claimed, keyring, sender, signal);
        if (claimed.length === free) {
          // There may be more: claim again when half the slots are free.
          this.#scanDue = true;
        } else {
          const next = await nextDueAt(db, clock.now());
          this.#dueAt = next?.getTime() ?? null;
        }
      }
    }
    const sleepMs = this.#sleepFor(clock.now().getTime(), timing.pollMs);
    return this.#fanOutDue && gapLeft > 0 ? Math.min(sleepMs, Math.ceil(gapLeft)) : sleepMs;
  }

  /** Until the next retry or lease expiry (one that is already due waits for a free slot), at most pollMs. */
  #sleepFor(now: number, pollMs: number): number {
    return this.#dueAt === null || this.#dueAt <= now ? pollMs : Math.min(pollMs, this.#dueAt - now);
  }

  #send(
    claimed: readonly ClaimedDelivery[],
    keyring: Keyring,
    sender: WebhookSender,
    signal: AbortSignal,
  ): void {
    const half = Math.floor(this.#deps.webhooks.concurrency / 2);
    for (const delivery of claimed) {
      const sending: Promise<void> = this.#deliver(delivery, keyring, sender, signal).finally(() => {
        this.#inflight.delete(sending);
        // Claim again once half the slots are free (a claim scans the pending rows, so not after
        // every single send under load), and only when there may be something to claim.
        if (this.#scanDue && this.#inflight.size <= half) this.#waker.notify();
      });
      this.#inflight.add(sending);
    }
  }

  /** Queues an attempt's result; results that arrive together are recorded in one statement. */
  #record(attempt: AttemptResult): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      this.#outcomes.push({ ...attempt, resolve, reject });
      this.#recording ??= this.#recordQueued();
    });
  }

  async #recordQueued(): Promise<void> {
    // Let the other responses that arrived in this turn of the event loop join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#outcomes.length > 0) {
      const batch = this.#outcomes.splice(0, OUTCOME_BATCH);
      // Other relays are told of newer deliveries this batch unblocks only when this one will not
      // claim them itself in a moment (it does when half its slots are free).
      const busy = this.#inflight.size - batch.length > Math.floor(this.#deps.webhooks.concurrency / 2);
      try {
        const outcomes = await this.#recordAgainWhileAway(() =>
          recordOutcomes(this.#deps.db, batch, busy ? this.#notifyPayload : null),
        );
        for (const [i, item] of batch.entries()) {
          const outcome = outcomes[i]!;
          if (outcome.unblocked) this.#scanDue = true;
          if (outcome.status === 'pending' && outcome.nextAttemptAt) {
            const at = outcome.nextAttemptAt.getTime();
            if (this.#dueAt === null || at < this.#dueAt) {
              // A retry earlier than the relay's planned wake-up: it sleeps until then instead.
              this.#dueAt = at;
              this.#waker.notify();
            }
          }
          item.resolve(outcome);
        }
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    this.#recording = null;
  }

  /**
   * `record()`, again after each of RECORD_RETRY_MS while the database is unavailable, unless the
   * relay stops. Recording the same outcome twice changes nothing: its statement updates a delivery
   * only while it is pending at that attempt.
   */
  async #recordAgainWhileAway<T>(record: () => Promise<T>): Promise<T> {
    for (const waitMs of RECORD_RETRY_MS) {
      try {
        return await record();
      } catch (error) {
        if (!isDatabaseUnavailable(error) || this.#stopping) throw error;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
    return record();
  }

  /** A failed attempt's warning: per endpoint and kind, the first, then one per interval with a count. */
  #logFailure(
    delivery: ClaimedDelivery,
    result: Extract<SendResult, { ok: false }>,
    outcome: Outcome,
    context: Record<string, unknown>,
  ): void {
    const forGood = outcome.status === 'failed';
    const unlogged = this.#failures.hit(
      `${forGood ? 'failed' : 'attempt'}:${delivery.storeId}:${delivery.endpointId}`,
    );
    if (unlogged === null) return;
    this.#deps.log.warn(
      {
        ...context,
        host: hostOf(delivery.url),
        error: result.error,
        status: result.status,
        outcome: outcome.status,
        failedMeanwhile: unlogged,
      },
      forGood
        ? 'webhook delivery failed for good (this endpoint: at most one line a minute)'
        : 'webhook attempt failed (this endpoint: at most one line a minute)',
    );
  }

  async #deliver(
    delivery: ClaimedDelivery,
    keyring: Keyring,
    sender: WebhookSender,
    signal: AbortSignal,
  ): Promise<void> {
    const { db, webhooks, clock, log } = this.#deps;
    const context = {
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      eventId: delivery.event.id,
      attempt: delivery.attempt,
    };
    try {
      const now = clock.now();
      let keys: SigningKey[];
      try {
        keys = this.#signingKeys.keysFor(keyring, delivery, now);
      } catch (error) {
        if (!(error instanceof SecretUnreadableError)) throw error;
        // Loud, once: the delivery fails with the reason and the endpoint is disabled (decision `sealed-secrets`).
        await failUnsignable(db, delivery, error.message, now);
        log.error(
          { ...context, reason: error.message },
          'webhook endpoint disabled: its signing secret cannot be decrypted',
        );
        return;
      }
      const body = envelopeOf(delivery);
      const sentAt = performance.now();
      const result = await sender.send(
        {
          url: delivery.url,
          body,
          headers: webhookHeaders({
            keys,
            body,
            eventType: delivery.event.type,
            eventId: delivery.event.id,
            attempt: delivery.attempt,
            now,
            deliveryId: delivery.id,
          }),
        },
        signal,
        () => clock.now(),
      );
      const outcome = await this.#record({
        delivery,
        result,
        options: { retryScheduleMs: webhooks.retryScheduleMs, now: clock.now() },
      });
      this.#deps.onAttempt?.(
        outcome.status === 'pending' ? 'retry' : outcome.status,
        (performance.now() - sentAt) / 1000,
      );
      if (!result.ok) this.#logFailure(delivery, result, outcome, context);
      if (outcome.disabled) log.warn(context, 'webhook endpoint answered 410 Gone and was disabled');
      if (outcome.status === 'lost') log.warn(context, 'webhook attempt outlived its lease; result dropped');
    } catch (error) {
      // The lease ends and another attempt follows; the row is never lost.
      if (!reportIfOutage(log, error, context))
        log.error({ ...context, err: error }, 'webhook delivery could not be recorded');
    }
  }
}
