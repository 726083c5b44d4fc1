import type { Kysely } from 'kysely';
import type { Log } from '../lib/log.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { SecretUnreadableError, type Keyring } from '../lib/keyring.ts';
import type { WebhookConfig } from './webhooks.config.ts';
import { NotificationListener, Waker } from './webhooks.listener.ts';
import {
  claimDeliveries,
  currentDatabaseName,
  failUnsignable,
  fanOutEvents,
  FANOUT_BATCH,
  hasUndispatchedEvents,
  nextDueAt,
  OUTCOME_BATCH,
  recordOutcomes,
  type AttemptResult,
  type ClaimedDelivery,
  type Outcome,
} from './webhooks.relay.repository.ts';
import { WEBHOOK_CHANNEL } from './webhooks.repository.ts';
import { SigningKeyCache, type SigningKey } from './webhooks.secrets.ts';
import { WebhookSender, webhookHeaders } from './webhooks.sender.ts';

/** How often the relay looks for new events without a notification (one small indexed query). */
export const POLL_MS = { postgres: 2000, pglite: 100 } as const;
/** How often it scans for due deliveries without a reason to (new events, a wake-up, a due retry). */
export const SCAN_MS = { postgres: 2000, pglite: 500 } as const;
/** A claimed delivery belongs to its relay for the attempt's timeout plus this margin. */
const LEASE_MARGIN_MS = 30_000;

export interface RelayDeps {
  db: Kysely<Database>;
  keyring: Keyring;
  clock: Clock;
  log: Log;
  webhooks: WebhookConfig;
  /** The PostgreSQL URL to LISTEN on (another connection); null on the embedded PGlite. */
  databaseUrl: string | null;
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
 * The outbox relay as one long-running worker loop. Each cycle fans new events out to delivery
 * rows, claims as many due deliveries as it has free sending slots and starts sending them (at most
 * WEBHOOK_CONCURRENCY at once per process), then sleeps until:
 *   - a notification arrives: on PostgreSQL a dedicated connection LISTENs on `storefront_webhooks`,
 *     which a trigger on `events` signals at every commit that inserted events (and the admin API
 *     on retries, replays and re-enabled endpoints), so delivery starts milliseconds after a commit;
 *   - its own sends finish (half its slots are free, and newer deliveries of those resources may go);
 *   - the next retry or lease expiry is due;
 *   - or the poll interval passes (2 s on PostgreSQL as a fallback; 100 ms on the embedded PGlite,
 *     where there is no second connection to LISTEN on: an idle poll there is one indexed query,
 *     and due deliveries are scanned for at least every 500 ms).
 * It returns only when the worker stops, after the attempts in flight have ended and been recorded
 * (an attempt cut short by the stop is retried at once by whichever relay claims it next).
 */
export class WebhookRelay {
  readonly #deps: RelayDeps;
  readonly #waker = new Waker();
  readonly #inflight = new Set<Promise<void>>();
  /** When the next retry or lease expiry is due (from the last scan), ms since the epoch. */
  #dueAt: number | null = null;
  #lastScan = 0;
  readonly #signingKeys = new SigningKeyCache();
  /** Results waiting to be recorded, and the batch being recorded (see #record). */
  readonly #outcomes: (AttemptResult & {
    resolve: (outcome: Outcome) => void;
    reject: (error: unknown) => void;
  })[] = [];
  #recording: Promise<void> | null = null;

  constructor(deps: RelayDeps) {
    this.#deps = deps;
  }

  async run(signal: AbortSignal): Promise<void> {
    const { db, webhooks, databaseUrl, log, keyring } = this.#deps;
    const sender = new WebhookSender(webhooks);
    const listener = databaseUrl
      ? new NotificationListener({
          connectionString: await listenUrl(db, databaseUrl),
          channel: WEBHOOK_CHANNEL,
          onNotify: () => this.#waker.notify(),
          log,
        })
      : null;
    const timing = {
      pollMs: listener ? POLL_MS.postgres : POLL_MS.pglite,
      scanMs: listener ? SCAN_MS.postgres : SCAN_MS.pglite,
    };
    let woken = true;
    try {
      while (!signal.aborted) {
        this.#waker.clear();
        let sleepMs: number = timing.pollMs;
        try {
          await listener?.ensure();
          sleepMs = await this.#cycle(keyring, sender, signal, timing, woken);
        } catch (error) {
          if (signal.aborted) break;
          log.error({ err: error }, 'webhook relay cycle failed');
          this.#lastScan = 0;
          sleepMs = 1000;
        }
        woken = await this.#waker.wait(sleepMs, signal);
      }
    } finally {
      await Promise.allSettled([...this.#inflight]);
      await this.#recording;
      await listener?.close();
      await sender.close();
    }
  }

  /**
   * One pass; returns how long to sleep before the next one (unless woken). Fans out new events,
   * then, if there is a reason to (woken, events fanned out, a retry or lease due, or SCAN_MS since
   * the last scan), claims due deliveries and starts sending them.
   */
  async #cycle(
    keyring: Keyring,
    sender: WebhookSender,
    signal: AbortSignal,
    timing: { pollMs: number; scanMs: number },
    woken: boolean,
  ): Promise<number> {
    const { db, webhooks, clock } = this.#deps;
    let fanned = 0;
    if (await hasUndispatchedEvents(db)) {
      let batch: number;
      do {
        batch = await fanOutEvents(db, clock.now());
        fanned += batch;
      } while (!signal.aborted && batch === FANOUT_BATCH);
    }
    const now = clock.now().getTime();
    const scan =
      woken ||
      fanned > 0 ||
      (this.#dueAt !== null && this.#dueAt <= now) ||
      now - this.#lastScan >= timing.scanMs;
    if (!scan) return this.#sleepFor(now, timing.pollMs);
    this.#lastScan = now;
    const free = webhooks.concurrency - this.#inflight.size;
    if (free > 0 && !signal.aborted) {
      const claimed = await claimDeliveries(db, clock.now(), leaseMs(this.#deps), free);
      for (const delivery of claimed) {
        const sending: Promise<void> = this.#deliver(delivery, keyring, sender, signal).finally(() => {
          this.#inflight.delete(sending);
          // Claim again once half the slots are free (a claim scans the pending rows, so not after
          // every single send under load); when idle, at once.
          if (this.#inflight.size <= Math.floor(webhooks.concurrency / 2)) this.#waker.notify();
        });
        this.#inflight.add(sending);
      }
    }
    const next = await nextDueAt(db, clock.now());
    this.#dueAt = next?.getTime() ?? null;
    return this.#sleepFor(clock.now().getTime(), timing.pollMs);
  }

  #sleepFor(now: number, pollMs: number): number {
    return this.#dueAt === null ? pollMs : Math.min(pollMs, Math.max(0, this.#dueAt - now));
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
      try {
        const outcomes = await recordOutcomes(this.#deps.db, batch);
        for (const [i, item] of batch.entries()) item.resolve(outcomes[i]!);
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    this.#recording = null;
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
        // Loud, once: the delivery fails with the reason and the endpoint is disabled (D28).
        await failUnsignable(db, delivery, error.message, now);
        log.error(
          { ...context, reason: error.message },
          'webhook endpoint disabled: its signing secret cannot be decrypted',
        );
        return;
      }
      const body = envelopeOf(delivery);
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
      if (!result.ok) {
        log.warn(
          { ...context, error: result.error, status: result.status, outcome: outcome.status },
          outcome.status === 'failed' ? 'webhook delivery failed for good' : 'webhook attempt failed',
        );
      }
      if (outcome.disabled) log.warn(context, 'webhook endpoint answered 410 Gone and was disabled');
      if (outcome.status === 'lost') log.warn(context, 'webhook attempt outlived its lease; result dropped');
    } catch (error) {
      // The lease ends and another attempt follows; the row is never lost.
      log.error({ ...context, err: error }, 'webhook delivery could not be recorded');
    }
  }
}
