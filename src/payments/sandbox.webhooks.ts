import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { reportIfOutage } from '../db/errors.ts';
import type { LastStatement } from '../db/last-statement.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import {
  claimWebhooks,
  insertWebhooksStatement,
  settleWebhook,
  type ClaimedWebhook,
} from './sandbox.repository.ts';

export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';

/** Webhooks to write at the end of a transaction, then to attempt once it committed. */
export interface WrittenWebhooks {
  claimed: ClaimedWebhook[];
  insert: (trx: Transaction<Database>) => LastStatement;
}

/** Where the sandbox posts its webhooks: the webhook route in-process, or the receiver directly. */
export type WebhookDelivery = (body: string, headers: Record<string, string>) => Promise<number>;

export interface SandboxWebhookBody {
  id: string;
  type:
    | 'payment_intent.processing'
    | 'payment_intent.succeeded'
    | 'payment_intent.payment_failed'
    | 'refund.succeeded';
  created: number;
  data: {
    ref: string;
    amount: number;
    currency: string;
    metadata: Record<string, string>;
    refundRef?: string;
    reason?: string;
  };
}

/** A webhook's body before it is written: its id and creation time are added here. */
export type NewWebhook = Pick<SandboxWebhookBody, 'type' | 'data'>;

/**
 * How long an attempt holds its webhook: a process that dies during one leaves it to the others
 * after this. Longer than any delivery takes; a slower one may be delivered twice, which the
 * receiver's deduplication on the event id absorbs.
 */
export const ATTEMPT_LEASE_MS = 10_000;
/** Waits after a failed attempt (the first retry at once, as a real provider does); then hourly. */
const RETRY_DELAYS_MS = [200, 1000, 5000, 15_000, 60_000, 300_000, 900_000, 3_600_000];
/** A webhook not delivered within this after it was written is given up (Stripe: three days). */
const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;
const BATCH = 100;

/**
 * The sandbox's webhooks, as durable as a real provider's: each is a `sandbox_webhooks` row written
 * in the transaction of the outcome it reports, attempted at once by the process that wrote it (the
 * fast path), and otherwise by any process's `deliverDue` (the `sandbox-webhooks` loop) with
 * backoff, until delivered. Each attempt is signed when it is sent (`sandbox-signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<raw body>">`).
 */
export class SandboxWebhookOutbox {
  readonly #db: Kysely<Database>;
  readonly #sign: (body: string) => string;
  readonly #log: Log;
  readonly #clock: Clock;
  #deliver: WebhookDelivery | null = null;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(db: Kysely<Database>, options: { sign: (body: string) => string; log: Log; clock: Clock }) {
    this.#db = db;
    this.#sign = options.sign;
    this.#log = options.log;
    this.#clock = options.clock;
  }

  setDelivery(deliver: WebhookDelivery): void {
    this.#deliver = deliver;
  }

  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /**
   * Webhooks (each about the intent `data.ref`) for the caller's transaction to write as its last
   * statement (`insert`, for `transactionEndingWith`: its COMMIT goes with it), taken by this process
   * for their first attempt: pass `claimed` to {@link deliverNow} after the commit.
   */
  written(webhooks: readonly NewWebhook[]): WrittenWebhooks {
    const created = Math.floor(Date.now() / 1000);
    const rows = webhooks.map((webhook) => {
      const id = `evt_sbx_${randomUUID()}`;
      const body: SandboxWebhookBody = { id, created, ...webhook };
      return { id, intentRef: webhook.data.ref, body: JSON.stringify(body) };
    });
    const leaseUntil = this.#leaseUntil();
    return {
      claimed: rows.map((row) => ({
        id: row.id,
        body: row.body,
        attempts: 1,
        created_at: this.#clock.now(),
      })),
      insert: (trx) => insertWebhooksStatement(trx, rows, leaseUntil),
    };
  }

  /** The first attempt of webhooks this process just wrote, in order; never rejects. */
  async deliverNow(webhooks: readonly ClaimedWebhook[]): Promise<void> {
    for (const webhook of webhooks) await this.#attempt(webhook);
  }

  /**
   * Attempts now every webhook of `ref` not yet delivered, due or not (a retried confirmation: the
   * buyer is waiting); never rejects.
   */
  async deliverPendingOf(ref: string): Promise<void> {
    if (!this.#deliver) return;
    try {
      await this.deliverNow(await claimWebhooks(this.#db, { ref }, BATCH, this.#leaseUntil()));
    } catch (error) {
      this.#failed(error, { ref });
    }
  }

  /** Attempts the webhooks that are due, batch after batch (the loop, and retries in-process). */
  async deliverDue(signal?: AbortSignal): Promise<void> {
    if (!this.#deliver) return;
    for (;;) {
      const claimed = await claimWebhooks(this.#db, { due: this.#clock.now() }, BATCH, this.#leaseUntil());
      await Promise.all(claimed.map((webhook) => this.#attempt(webhook)));
      if (claimed.length < BATCH || signal?.aborted) return;
    }
  }

  /** The body signed now, as each attempt is. */
  #headers(body: string): Record<string, string> {
    return { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: this.#sign(body) };
  }

  #leaseUntil(): Date {
    return new Date(this.#clock.now().getTime() + ATTEMPT_LEASE_MS);
  }

  /** One attempt, its outcome recorded; a retry is scheduled in this process too. Never rejects. */
  async #attempt(webhook: ClaimedWebhook): Promise<void> {
    const deliver = this.#deliver;
    if (!deliver) return;
    let error: string | null = null;
    try {
      const status = await deliver(webhook.body, this.#headers(webhook.body));
      if (status < 200 || status >= 300) error = `answered ${status}`;
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
      this.#failed(failure, { event: webhook.id, attempt: webhook.attempts });
    }
    const now = this.#clock.now();
    try {
      if (error === null) {
        await settleWebhook(this.#db, webhook.id, { delivered: now, next: null, error: null });
        return;
      }
      const delay = RETRY_DELAYS_MS[webhook.attempts - 1] ?? RETRY_DELAYS_MS.at(-1)!;
      const next = now.getTime() + delay;
      if (next - webhook.created_at.getTime() > GIVE_UP_AFTER_MS) {
        this.#log.error({ event: webhook.id }, 'sandbox: webhook not delivered; giving up');
        await settleWebhook(this.#db, webhook.id, { delivered: null, next: null, error });
        return;
      }
      await settleWebhook(this.#db, webhook.id, { delivered: null, next: new Date(next), error });
      this.#retryAfter(delay);
    } catch (failure) {
      // Not recorded: the lease ends and any process attempts it again.
      this.#failed(failure, { event: webhook.id });
      this.#retryAfter(ATTEMPT_LEASE_MS);
    }
  }

  /** Looks for due webhooks in this process after `ms` (without loops, nobody else would). */
  #retryAfter(ms: number): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.deliverDue().catch((error: unknown) => this.#failed(error, {}));
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  /** A failed delivery: one throttled line while the database is away, else a warning. */
  #failed(error: unknown, context: Record<string, unknown>): void {
    if (!reportIfOutage(this.#log, error, { ...context, in: 'sandbox webhooks' }))
      this.#log.warn({ err: error, ...context }, 'sandbox: webhook delivery failed');
  }
}
