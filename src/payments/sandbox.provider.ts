import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { Database } from '../db/tables.ts';
import { hmacSha256, randomBase62, safeEqual, sha256Hex } from '../lib/crypto.ts';
import {
  ProviderError,
  WebhookSignatureError,
  type CreateIntentInput,
  type Intent,
  type IntentStatus,
  type PaymentProvider,
  type ProviderEvent,
  type RefundInput,
  type RefundStatus,
} from './provider.ts';
import {
  addIntentRefund,
  deleteIntentsBefore,
  findIntent,
  findIntentByKey,
  findRefund,
  findRefundByKey,
  insertIntent,
  insertRefund,
  confirmIntent,
  moveIntent,
  type SandboxIntentRow,
} from './sandbox.repository.ts';
import type { SandboxIntentStatus } from './sandbox.tables.ts';

export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';
const TOLERANCE_S = 300;
const RETRY_DELAYS_MS = [200, 1000, 5000, 15_000, 60_000];

/** Where the sandbox posts its webhooks: an HTTP URL, or in-process (tests, single process). */
export type WebhookDelivery = (body: string, headers: Record<string, string>) => Promise<number>;

export type PaymentMethod = 'pm_card_visa' | 'pm_card_declined' | 'pm_card_delayed';

/** A sandbox intent as its buyer sees it (amount in minor units of `currency`). */
export interface SandboxIntent {
  ref: string;
  amount: number;
  currency: string;
  status: IntentStatus;
}

interface SandboxWebhookBody {
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
  #deliver: WebhookDelivery | null = null;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(db: Kysely<Database>, options: { secret: string; delayMs: number; log: Log; clock: Clock }) {
    this.#db = db;
    this.#clock = options.clock;
    this.#secret = options.secret;
    this.#delayMs = options.delayMs;
    this.#log = options.log;
  }

  /** Sets where webhooks go (server.ts: the service's own URL; tests: in-process inject). */
  setDelivery(deliver: WebhookDelivery): void {
    this.#deliver = deliver;
  }

  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
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

  async retrieveIntent(ref: string): Promise<{ status: IntentStatus; amount: number }> {
    const row = await findIntent(this.#db, ref);
    if (!row) throw new ProviderError(`No sandbox intent ${ref}`, { definitive: true });
    return { status: toIntentStatus(row.status), amount: row.amount };
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
    const outcome = await this.#db.transaction().execute(async (trx) => {
      const existing = await findRefundByKey(trx, input.idempotencyKey);
      if (existing) return { ref: existing.ref, currency: null };
      const currency = await addIntentRefund(trx, input.ref, input.amount, this.#clock.now());
      if (currency === undefined) return null;
      await insertRefund(trx, {
        ref: refundRef,
        intent_ref: input.ref,
        amount: input.amount,
        status: 'succeeded',
        idempotency_key: input.idempotencyKey,
      });
      return { ref: refundRef, currency };
    });
    if (!outcome)
      throw new ProviderError(`The sandbox cannot refund ${input.amount} on ${input.ref}`, {
        definitive: true,
      });
    if (outcome.currency === null) return { refundRef: outcome.ref };
    const intent = { currency: outcome.currency };
    void this.#send({
      id: `evt_sbx_${randomUUID()}`,
      type: 'refund.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        ref: input.ref,
        amount: input.amount,
        currency: intent.currency,
        metadata: input.metadata,
        refundRef,
      },
    });
    return { refundRef };
  }

  async retrieveRefund(refundRef: string): Promise<{ status: RefundStatus; amount: number }> {
    const row = await findRefund(this.#db, refundRef);
    if (!row) throw new ProviderError(`No sandbox refund ${refundRef}`, { definitive: true });
    return { status: row.status, amount: row.amount };
  }

  /**
   * The buyer's client confirms an intent with its client secret and a test payment method:
   * `pm_card_visa` succeeds, `pm_card_declined` fails (the intent may be confirmed again),
   * `pm_card_delayed` is processing and succeeds after SANDBOX_DELAY.
   */
  async confirm(ref: string, clientSecret: string, method: PaymentMethod): Promise<SandboxIntent | null> {
    const next: SandboxIntentStatus =
      method === 'pm_card_visa' ? 'succeeded' : method === 'pm_card_declined' ? 'failed' : 'processing';
    // One statement when it can be confirmed; the secret is compared as a hash, in the database.
    const row = await confirmIntent(
      this.#db,
      ref,
      sha256Hex(clientSecret),
      ['requires_payment_method', 'failed'],
      next,
      this.#clock.now(),
    );
    if (!row) {
      // Unknown, wrong secret (the caller must not say which), or not confirmable any more.
      const current = await this.#findWithSecret(ref, clientSecret);
      if (!current) return null;
      throw new ProviderError(
        current.status === 'requires_payment_method' || current.status === 'failed'
          ? 'The intent changed while confirming it.'
          : `The intent is ${current.status} and cannot be confirmed.`,
      );
    }
    const data = { ref, amount: row.amount, currency: row.currency, metadata: row.metadata };
    const created = Math.floor(Date.now() / 1000);
    // The outcome's webhook is delivered before the confirmation answers (its first attempt; retries
    // run in the background): a client that reads the order after the answer finds it settled.
    if (next === 'succeeded')
      await this.#send({ id: `evt_sbx_${randomUUID()}`, type: 'payment_intent.succeeded', created, data });
    if (next === 'failed') {
      await this.#send({
        id: `evt_sbx_${randomUUID()}`,
        type: 'payment_intent.payment_failed',
        created,
        data: { ...data, reason: 'card_declined' },
      });
    }
    if (next === 'processing') {
      // Like Stripe: the provider says at once that the payment is processing, then how it ended.
      await this.#send({ id: `evt_sbx_${randomUUID()}`, type: 'payment_intent.processing', created, data });
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        void moveIntent(this.#db, ref, ['processing'], 'succeeded', this.#clock.now())
          .then(async (done) => {
            if (done)
              await this.#send({
                id: `evt_sbx_${randomUUID()}`,
                type: 'payment_intent.succeeded',
                created: Math.floor(Date.now() / 1000),
                data,
              });
          })
          .catch((error: unknown) => this.#log.error({ err: error, ref }, 'sandbox: delayed payment failed'));
      }, this.#delayMs);
      timer.unref();
      this.#timers.add(timer);
    }
    return { ref, amount: row.amount, currency: row.currency, status: toIntentStatus(next) };
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
   * Forgets intents untouched since `cutoff` (D29), with their refunds, except a succeeded payment
   * that can still be refunded: a live order may need it. Batched; returns how many went.
   */
  async purge(cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteIntentsBefore(this.#db, cutoff, 1000);
      total += deleted;
      if (deleted < 1000) return total;
    }
  }

  /** Signs a body the way the sandbox's webhooks are signed (tests use it to forge and tamper). */
  sign(body: string, timestamp = Math.floor(Date.now() / 1000)): string {
    return `t=${timestamp},v1=${hmacSha256(this.#secret, `${timestamp}.${body}`).toString('hex')}`;
  }

  /**
   * Delivers a webhook; resolves when the first attempt has ended (delivered or not). Failed
   * attempts are retried in the background with backoff; the promise never rejects.
   */
  #send(event: SandboxWebhookBody, attempt = 0): Promise<void> {
    const body = JSON.stringify(event);
    const deliver = this.#deliver;
    if (!deliver) {
      this.#log.warn({ event: event.id }, 'sandbox: no webhook delivery configured; event dropped');
      return Promise.resolve();
    }
    const run = async () => {
      let status = 0;
      try {
        status = await deliver(body, {
          'content-type': 'application/json',
          [SANDBOX_SIGNATURE_HEADER]: this.sign(body),
        });
      } catch (error) {
        this.#log.warn({ err: error, event: event.id, attempt }, 'sandbox: webhook delivery failed');
      }
      if (status >= 200 && status < 300) return;
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined) {
        this.#log.error({ event: event.id }, 'sandbox: webhook not delivered; giving up');
        return;
      }
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        void this.#send(event, attempt + 1);
      }, delay);
      timer.unref();
      this.#timers.add(timer);
    };
    return new Promise<void>((resolve) => setImmediate(() => void run().finally(resolve)));
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
