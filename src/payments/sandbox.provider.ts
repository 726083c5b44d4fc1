import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import { reportIfOutage } from '../db/errors.ts';
import { transactionEndingWith } from '../db/last-statement.ts';
import type { Database } from '../db/tables.ts';
import { hmacSha256, randomBase62, safeEqual, sha256Hex } from '../lib/crypto.ts';
import {
  ProviderError,
  WebhookSignatureError,
  type CreateIntentInput,
  type Intent,
  type IntentState,
  type IntentStatus,
  type PaymentProvider,
  type ProviderEvent,
  type RefundInput,
  type RefundStatus,
} from './provider.ts';
import {
  addIntentRefund,
  deleteIntentsBefore,
  deleteWebhooksBefore,
  findIntent,
  findIntentByKey,
  findRefund,
  findRefundByKey,
  insertIntent,
  insertRefund,
  confirmIntent,
  moveIntent,
  succeedProcessing,
  type SandboxIntentRow,
} from './sandbox.repository.ts';
import type { SandboxIntentStatus } from './sandbox.tables.ts';
import {
  SANDBOX_SIGNATURE_HEADER,
  SandboxWebhookOutbox,
  type SandboxWebhookBody,
  type WebhookDelivery,
} from './sandbox.webhooks.ts';

export { SANDBOX_SIGNATURE_HEADER, type WebhookDelivery } from './sandbox.webhooks.ts';

const TOLERANCE_S = 300;
const BATCH = 1000;

export type PaymentMethod = 'pm_card_visa' | 'pm_card_declined' | 'pm_card_delayed';

/** A sandbox intent as its buyer sees it (amount in minor units of `currency`). */
export interface SandboxIntent {
  ref: string;
  amount: number;
  currency: string;
  status: IntentStatus;
}

/** What a confirmation with each test card leads to. */
const OUTCOME: Record<PaymentMethod, SandboxIntentStatus> = {
  pm_card_visa: 'succeeded',
  pm_card_declined: 'failed',
  pm_card_delayed: 'processing',
};

function toIntentStatus(status: SandboxIntentStatus): IntentStatus {
  switch (status) {
    case 'requires_payment_method':
      return 'pending';
    case 'processing':
    case 'succeeded':
    case 'failed':
    case 'canceled':
      return status;
  }
}

/**
 * The built-in payment provider for development and tests. It behaves like a real one from the
 * service's point of view: intents with a ref and a client secret, confirmation by the buyer's
 * client with a test payment method, and the outcome reported only through an HMAC-signed webhook
 * (`sandbox-signature: t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<raw body>">`). It stands in
 * for a system outside the service, so it keeps the wall clock, as Stripe does, not the service's.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';
  readonly #db: Kysely<Database>;
  readonly #secret: string;
  readonly #delayMs: number;
  readonly #log: Log;
  readonly #clock: Clock;
  readonly #webhooks: SandboxWebhookOutbox;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(db: Kysely<Database>, options: { secret: string; delayMs: number; log: Log; clock: Clock }) {
    this.#db = db;
    this.#clock = options.clock;
    this.#secret = options.secret;
    this.#delayMs = options.delayMs;
    this.#log = options.log;
    this.#webhooks = new SandboxWebhookOutbox(db, {
      sign: (body) => this.sign(body),
      log: options.log,
      clock: options.clock,
    });
  }

  /**
   * Sets where webhooks go: the service's webhook route in-process (app.ts), else the receiver
   * called directly (runtime.ts, for `storefront worker`).
   */
  setDelivery(deliver: WebhookDelivery): void {
    this.#webhooks.setDelivery(deliver);
  }

  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#webhooks.close();
  }

  async createIntent(input: CreateIntentInput): Promise<Intent> {
    const clientSecret = (ref: string) =>
      `${ref}_secret_${hmacSha256(this.#secret, `client-secret:${ref}`).toString('hex').slice(0, 24)}`;
    const ref = `pi_sbx_${randomBase62(24)}`;
    // One statement in the usual case; a retry with the same idempotency key gets the stored intent.
    const row =
      (await insertIntent(this.#db, {
        ref,
        client_secret_hash: sha256Hex(clientSecret(ref)),
        amount: input.amount,
        currency: input.currency,
        status: 'requires_payment_method',
        metadata: JSON.stringify(input.metadata),
        idempotency_key: input.idempotencyKey,
      })) ?? (await findIntentByKey(this.#db, input.idempotencyKey));
    if (!row) throw new ProviderError('The sandbox lost an intent it just made.');
    return { ref: row.ref, clientSecret: clientSecret(row.ref), status: toIntentStatus(row.status) };
  }

  async retrieveIntent(ref: string): Promise<IntentState> {
    const row = await findIntent(this.#db, ref);
    if (!row) throw new ProviderError(`No sandbox intent ${ref}`, { definitive: true });
    // A declined card leaves the intent `failed`, to be confirmed again.
    return { status: toIntentStatus(row.status), amount: row.amount, attempted: row.status === 'failed' };
  }

  async cancelIntent(ref: string): Promise<void> {
    await moveIntent(this.#db, ref, ['requires_payment_method', 'failed'], 'canceled', this.#clock.now());
  }

  /**
   * Refunds part or all of a succeeded intent, once per idempotency key (a retry returns the same
   * refund and moves no money), and reports it by webhook like a real provider.
   */
  async refund(input: RefundInput): Promise<{ refundRef: string }> {
    const refundRef = `re_sbx_${randomBase62(20)}`;
    // The refund, the intent's refunded amount and the refund's webhook commit together.
    const outcome = await transactionEndingWith(
      this.#db,
      async (trx) => {
        const existing = await findRefundByKey(trx, input.idempotencyKey);
        if (existing) return { ref: existing.ref, webhooks: this.#webhooks.written([]) };
        const currency = await addIntentRefund(trx, input.ref, input.amount, this.#clock.now());
        if (currency === undefined) return null;
        await insertRefund(trx, {
          ref: refundRef,
          intent_ref: input.ref,
          amount: input.amount,
          status: 'succeeded',
          idempotency_key: input.idempotencyKey,
        });
        const data = { ref: input.ref, amount: input.amount, currency, metadata: input.metadata, refundRef };
        return { ref: refundRef, webhooks: this.#webhooks.written([{ type: 'refund.succeeded', data }]) };
      },
      // The refund's webhook: the COMMIT goes with it.
      (trx, done) => done?.webhooks.insert(trx) ?? null,
    );
    if (!outcome)
      throw new ProviderError(`The sandbox cannot refund ${input.amount} on ${input.ref}`, {
        definitive: true,
      });
    // Reported like a real provider's, after the answer.
    void this.#webhooks.deliverNow(outcome.webhooks.claimed);
    return { refundRef: outcome.ref };
  }

  async retrieveRefund(refundRef: string): Promise<{ status: RefundStatus; amount: number }> {
    const row = await findRefund(this.#db, refundRef);
    if (!row) throw new ProviderError(`No sandbox refund ${refundRef}`, { definitive: true });
    return { status: row.status, amount: row.amount };
  }

  /**
   * The buyer's client confirms an intent with its client secret and a test payment method:
   * `pm_card_visa` succeeds, `pm_card_declined` fails (the intent may be confirmed again),
   * `pm_card_delayed` is processing and succeeds after SANDBOX_DELAY. The outcome and its webhooks
   * commit together; the webhooks' first attempt ends before the answer (a client that reads the
   * order then finds it settled), and any process delivers them if this one cannot. A confirmation
   * retried with the same card after it went through is answered as it was, its webhooks delivered
   * now if they were not.
   */
  async confirm(ref: string, clientSecret: string, method: PaymentMethod): Promise<SandboxIntent | null> {
    const next = OUTCOME[method];
    const confirmed = await transactionEndingWith(
      this.#db,
      async (trx) => {
        // The secret is compared as a hash, in the database.
        const from: SandboxIntentStatus[] = ['requires_payment_method', 'failed'];
        const row = await confirmIntent(
          trx,
          ref,
          sha256Hex(clientSecret),
          from,
          next,
          method,
          this.#clock.now(),
        );
        if (!row) return null;
        const data = { ref, amount: row.amount, currency: row.currency, metadata: row.metadata };
        const webhooks = this.#webhooks.written([
          next === 'succeeded'
            ? { type: 'payment_intent.succeeded', data }
            : next === 'failed'
              ? { type: 'payment_intent.payment_failed', data: { ...data, reason: 'card_declined' } }
              : // Like Stripe: the provider says at once that the payment is processing, then how it ended.
                { type: 'payment_intent.processing', data },
        ]);
        return { row, webhooks };
      },
      // The outcome's webhook: the COMMIT goes with it.
      (trx, done) => done?.webhooks.insert(trx) ?? null,
    );
    if (!confirmed) {
      // Unknown, wrong secret (the caller must not say which), a retry, or not confirmable any more.
      const current = await this.#findWithSecret(ref, clientSecret);
      if (!current) return null;
      if (
        current.confirmed_method === method &&
        (current.status === 'succeeded' || current.status === 'processing')
      ) {
        await this.#webhooks.deliverPendingOf(ref);
        return {
          ref,
          amount: current.amount,
          currency: current.currency,
          status: toIntentStatus(current.status),
        };
      }
      throw new ProviderError(
        current.status === 'requires_payment_method' || current.status === 'failed'
          ? 'The intent changed while confirming it.'
          : `The intent is ${current.status} and cannot be confirmed.`,
      );
    }
    await this.#webhooks.deliverNow(confirmed.webhooks.claimed);
    if (next === 'processing') this.#succeedLater(ref);
    const { row } = confirmed;
    return { ref, amount: row.amount, currency: row.currency, status: toIntentStatus(next) };
  }

  /**
   * Delayed payments whose SANDBOX_DELAY has passed succeed, with their webhook in the same
   * transaction, and every webhook that is due is attempted: the `sandbox-webhooks` loop, in any
   * process (a delayed payment's own timer does it sooner in the process that confirmed it).
   */
  async runDue(signal?: AbortSignal): Promise<void> {
    const before = new Date(this.#clock.now().getTime() - this.#delayMs);
    while ((await this.#succeedDelayed({ before })) === BATCH && !signal?.aborted) {
      /* next batch */
    }
    await this.#webhooks.deliverDue(signal);
  }

  /** The delayed payment `ref` succeeds after SANDBOX_DELAY, in this process if it still runs. */
  #succeedLater(ref: string): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#succeedDelayed({ ref }).catch((error: unknown) => {
        if (!reportIfOutage(this.#log, error, { ref, in: 'sandbox' }))
          this.#log.error({ err: error, ref }, 'sandbox: delayed payment failed');
      });
    }, this.#delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Processing intents (the due ones, or `ref`) succeed with their webhook; how many did. */
  async #succeedDelayed(match: { before: Date } | { ref: string }): Promise<number> {
    const settled = await transactionEndingWith(
      this.#db,
      async (trx) => {
        const moved = await succeedProcessing(trx, match, BATCH, this.#clock.now());
        return this.#webhooks.written(
          moved.map(({ ref, amount, currency, metadata }) => ({
            type: 'payment_intent.succeeded' as const,
            data: { ref, amount, currency, metadata },
          })),
        );
      },
      // Their webhooks, in one insert: the COMMIT goes with it.
      (trx, webhooks) => webhooks.insert(trx),
    );
    await this.#webhooks.deliverNow(settled.claimed);
    return settled.claimed.length;
  }

  /**
   * The intent whose client secret the caller holds, as the sandbox's hosted payment page shows it;
   * null when the ref is unknown or the secret does not match (the caller must not say which).
   */
  async lookup(ref: string, clientSecret: string): Promise<SandboxIntent | null> {
    const row = await this.#findWithSecret(ref, clientSecret);
    if (!row) return null;
    return { ref, amount: row.amount, currency: row.currency, status: toIntentStatus(row.status) };
  }

  /** The intent if `clientSecret` is its secret: compared as hashes, in constant time. */
  async #findWithSecret(ref: string, clientSecret: string): Promise<SandboxIntentRow | null> {
    const presented = sha256Hex(clientSecret);
    const row = await findIntent(this.#db, ref);
    return row && safeEqual(row.client_secret_hash, presented) ? row : null;
  }

  /**
   * Forgets webhooks delivered (or given up) and intents untouched since `cutoff` (decision `retention`), intents
   * with their refunds and webhooks, except a succeeded payment that can still be refunded: a live
   * order may need it. Batched; returns how many went.
   */
  async purge(cutoff: Date): Promise<number> {
    let total = 0;
    for (const purge of [deleteWebhooksBefore, deleteIntentsBefore]) {
      for (;;) {
        const deleted = await purge(this.#db, cutoff, BATCH);
        total += deleted;
        if (deleted < BATCH) break;
      }
    }
    return total;
  }

  /** Signs a body the way the sandbox's webhooks are signed (tests use it to forge and tamper). */
  sign(body: string, timestamp = Math.floor(Date.now() / 1000)): string {
    return `t=${timestamp},v1=${hmacSha256(this.#secret, `${timestamp}.${body}`).toString('hex')}`;
  }

  verifyWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): ProviderEvent {
    const header = headers[SANDBOX_SIGNATURE_HEADER];
    if (typeof header !== 'string')
      throw new WebhookSignatureError(`Missing ${SANDBOX_SIGNATURE_HEADER} header.`);
    const parts = Object.fromEntries(
      header.split(',').map((part) => part.trim().split('=', 2) as [string, string]),
    );
    const timestamp = Number(parts.t);
    if (!Number.isInteger(timestamp) || typeof parts.v1 !== 'string')
      throw new WebhookSignatureError('Malformed signature header.');
    if (Math.abs(Date.now() / 1000 - timestamp) > TOLERANCE_S)
      throw new WebhookSignatureError('The signature timestamp is too old.');
    const expected = hmacSha256(this.#secret, `${timestamp}.${rawBody.toString('utf8')}`).toString('hex');
    if (!safeEqual(parts.v1, expected))
      throw new WebhookSignatureError('The signature does not match the body.');

    const event = JSON.parse(rawBody.toString('utf8')) as SandboxWebhookBody;
    const { ref, amount, metadata } = event.data;
    switch (event.type) {
      case 'payment_intent.processing':
        return { id: event.id, kind: 'payment.processing', ref, metadata };
      case 'payment_intent.succeeded':
        return { id: event.id, kind: 'payment.succeeded', ref, amount, metadata };
      case 'payment_intent.payment_failed':
        return { id: event.id, kind: 'payment.failed', ref, reason: event.data.reason ?? 'failed', metadata };
      case 'refund.succeeded':
        return {
          id: event.id,
          kind: 'refund.succeeded',
          ref,
          refundRef: event.data.refundRef ?? '',
          amount,
          metadata,
        };
      default:
        return { id: event.id, kind: 'ignored', type: String((event as { type: unknown }).type) };
    }
  }
}
