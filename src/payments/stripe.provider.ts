import Stripe from 'stripe';
import { clientSpan } from '../telemetry/spans.ts';
import {
  ProviderError,
  WebhookSignatureError,
  type CreateIntentInput,
  type Intent,
  type IntentState,
  type IntentMetadata,
  type IntentStatus,
  type PaymentProvider,
  type ProviderEvent,
  type RefundInput,
  type RefundStatus,
} from './provider.ts';

/**
 * The Stripe API version this adapter is written against: the version the installed SDK's types
 * describe. `satisfies` makes an SDK upgrade that moves the version fail type checking, so the
 * status and event mappings below get reviewed (and the webhook endpoint's version with them).
 */
export const STRIPE_API_VERSION = '2026-10-28.endive' satisfies Stripe.LatestApiVersion;
export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** e.g. `http://127.0.0.1:12111` (a local stub); null = https://api.stripe.com. */
  apiBase: string | null;
  /** Per-request timeout; a checkout request waits on it, so well below the SDK's 80 s. */
  timeoutMs?: number;
  /** SDK retries on connection errors, 409 and 5xx (POSTs always carry an idempotency key). */
  maxNetworkRetries?: number;
}

/**
 * A cancel the caller asked for did not happen because the payment already went (or is going)
 * through: the money is, or may soon be, captured. The caller must not treat the order as void.
 */
export class IntentNotCancelableError extends ProviderError {
  readonly status: IntentStatus;
  constructor(ref: string, status: IntentStatus, options?: ErrorOptions) {
    super(`The Stripe PaymentIntent ${ref} is ${status} and cannot be canceled.`, options);
    this.name = 'IntentNotCancelableError';
    this.status = status;
  }
}

type StripeIntentStatus = Stripe.PaymentIntent['status'];

function toIntentStatus(status: StripeIntentStatus): IntentStatus | null {
  switch (status) {
    case 'requires_payment_method':
    case 'requires_confirmation':
    case 'requires_action':
      return 'pending';
    // requires_capture only happens with capture_method=manual (never set here): authorised, not captured.
    case 'processing':
    case 'requires_capture':
      return 'processing';
    case 'succeeded':
      return 'succeeded';
    case 'canceled':
      return 'canceled';
    default:
      return null;
  }
}

/**
 * Stripe refused the request for good: a card error, or an invalid request (400, 402, 404) such as
 * a refund larger than what is left. Rate limits, 409 conflicts, 5xx, connection errors and
 * authentication problems (a wrong key is fixed by the operator, then the same request works) are
 * not: the request may be retried, and may even have been carried out.
 */
function isDefinitive(error: unknown): boolean {
  if (error instanceof Stripe.errors.StripeCardError) return true;
  if (error instanceof Stripe.errors.StripeIdempotencyError) return true;
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    return error.statusCode === 400 || error.statusCode === 402 || error.statusCode === 404;
  }
  return false;
}

function apiBaseConfig(apiBase: string | null): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (apiBase === null) return {};
  const url = new URL(apiBase);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`The Stripe API base must be an http(s) URL, not ${url.protocol}`);
  }
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    protocol,
    // URL keeps the brackets of an IPv6 literal; http.request wants the bare address.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port || (protocol === 'http' ? 80 : 443),
  };
}

/** The API call behind each operation, for its client span (`POST /v1/payment_intents`). */
const OPERATIONS = {
  'create a PaymentIntent': ['POST', '/v1/payment_intents'],
  'retrieve a PaymentIntent': ['GET', '/v1/payment_intents/{intent}'],
  'cancel a PaymentIntent': ['POST', '/v1/payment_intents/{intent}/cancel'],
  'create a refund': ['POST', '/v1/refunds'],
  'retrieve a refund': ['GET', '/v1/refunds/{refund}'],
} as const;
type Operation = keyof typeof OPERATIONS;

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): unknown {
  if (name in headers) return headers[name];
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/**
 * The Stripe adapter (decision `payment-providers`): PaymentIntents with automatic payment methods; the browser
 * confirms the intent with Stripe.js and the `clientSecret`; the outcome arrives as a signed
 * webhook (`stripe-signature`), verified with the official SDK.
 *
 * Every Stripe API or network failure surfaces as a ProviderError whose `cause` is the SDK's error;
 * the secret key never appears in a message (it lives only inside the SDK client and #redact).
 */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly #stripe: Stripe;
  readonly #webhookSecret: string;
  readonly #secretKey: string;
  /** Where requests go, for the spans' server.address and server.port. */
  readonly #server: { address: string; port: number };

  constructor(options: StripeProviderOptions) {
    if (!options.secretKey) throw new Error('StripeProvider needs a secret key.');
    if (!options.webhookSecret) throw new Error('StripeProvider needs a webhook signing secret.');
    this.#secretKey = options.secretKey;
    this.#webhookSecret = options.webhookSecret;
    this.#stripe = new Stripe(options.secretKey, {
      apiVersion: STRIPE_API_VERSION,
      timeout: options.timeoutMs ?? 20_000,
      maxNetworkRetries: options.maxNetworkRetries ?? 2,
      appInfo: { name: 'storefront' },
      ...apiBaseConfig(options.apiBase),
    });
    const base = apiBaseConfig(options.apiBase);
    this.#server = { address: base.host ?? 'api.stripe.com', port: Number(base.port ?? 443) };
  }

  async createIntent(input: CreateIntentInput): Promise<Intent> {
    const intent = await this.#call('create a PaymentIntent', () =>
      this.#stripe.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency.toLowerCase(),
          metadata: input.metadata,
          automatic_payment_methods: { enabled: true },
        },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
    if (!intent.client_secret) {
      throw new ProviderError(`Stripe returned the PaymentIntent ${intent.id} without a client secret.`);
    }
    return { ref: intent.id, clientSecret: intent.client_secret, status: this.#status(intent) };
  }

  async retrieveIntent(ref: string): Promise<IntentState> {
    const intent = await this.#call('retrieve a PaymentIntent', () =>
      this.#stripe.paymentIntents.retrieve(ref),
    );
    // A declined attempt leaves `requires_payment_method` with its error; a challenge waits in
    // `requires_action`.
    const attempted =
      intent.status === 'requires_action' ||
      intent.status === 'requires_confirmation' ||
      Boolean(intent.last_payment_error);
    return { status: this.#status(intent), amount: intent.amount, attempted };
  }

  /**
   * Cancels an unpaid intent. An intent that is already canceled is fine (retries, races with
   * expiry); one that succeeded or is processing rejects with IntentNotCancelableError, because
   * the buyer's money is, or may soon be, captured.
   */
  async cancelIntent(ref: string): Promise<void> {
    try {
      await this.#traced('cancel a PaymentIntent', () => this.#stripe.paymentIntents.cancel(ref));
      return;
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeError) || error.code !== 'payment_intent_unexpected_state') {
        throw this.#providerError('cancel a PaymentIntent', error);
      }
      // Stripe includes the intent in the error; look it up if a proxy or old version dropped it.
      const current =
        error.payment_intent ??
        (await this.#call('retrieve a PaymentIntent', () => this.#stripe.paymentIntents.retrieve(ref)));
      const status = this.#status(current);
      if (status === 'canceled') return;
      throw new IntentNotCancelableError(ref, status, { cause: error });
    }
  }

  async refund(input: RefundInput): Promise<{ refundRef: string }> {
    const refund = await this.#call('create a refund', () =>
      this.#stripe.refunds.create(
        { payment_intent: input.ref, amount: input.amount, metadata: input.metadata },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
    return { refundRef: refund.id };
  }

  async retrieveRefund(refundRef: string): Promise<{ status: RefundStatus; amount: number }> {
    const refund = await this.#call('retrieve a refund', () => this.#stripe.refunds.retrieve(refundRef));
    // pending and requires_action are still open; failed and canceled will not pay out.
    const status: RefundStatus =
      refund.status === 'succeeded'
        ? 'succeeded'
        : refund.status === 'failed' || refund.status === 'canceled'
          ? 'failed'
          : 'pending';
    return { status, amount: refund.amount };
  }

  verifyWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): ProviderEvent {
    const signature = headerValue(headers, STRIPE_SIGNATURE_HEADER);
    if (typeof signature !== 'string' || signature === '') {
      throw new WebhookSignatureError(`Missing or repeated ${STRIPE_SIGNATURE_HEADER} header.`);
    }
    let event: Stripe.Event;
    try {
      // Default tolerance: 300 s between the signed timestamp and now.
      event = this.#stripe.webhooks.constructEvent(rawBody, signature, this.#webhookSecret);
    } catch (error) {
      // Bad signature, stale timestamp, malformed header, or a signed body that is not an event.
      const detail = error instanceof Error ? error.message.split('\n', 1)[0] : 'invalid payload';
      throw new WebhookSignatureError(`Stripe webhook rejected: ${detail}`);
    }
    if (event.type === 'payment_intent.succeeded') {
      const intent = event.data.object;
      return {
        id: event.id,
        kind: 'payment.succeeded',
        ref: intent.id,
        amount: intent.amount_received || intent.amount,
        metadata: { ...intent.metadata },
      };
    }
    if (event.type === 'payment_intent.processing') {
      const intent = event.data.object;
      return { id: event.id, kind: 'payment.processing', ref: intent.id, metadata: { ...intent.metadata } };
    }
    if (event.type === 'payment_intent.payment_failed') {
      const intent = event.data.object;
      return {
        id: event.id,
        kind: 'payment.failed',
        ref: intent.id,
        reason: intent.last_payment_error?.code ?? 'failed',
        metadata: { ...intent.metadata },
      };
    }
    if (
      event.type === 'refund.created' ||
      event.type === 'refund.updated' ||
      event.type === 'refund.failed' ||
      event.type === 'charge.refund.updated'
    ) {
      const refund = event.data.object;
      const ref =
        typeof refund.payment_intent === 'string' ? refund.payment_intent : refund.payment_intent?.id;
      const metadata: Partial<IntentMetadata> & { refundId?: string } = { ...refund.metadata };
      // A refund of a charge made without a PaymentIntent is not one of ours.
      if (ref && refund.status === 'succeeded') {
        return {
          id: event.id,
          kind: 'refund.succeeded',
          ref,
          refundRef: refund.id,
          amount: refund.amount,
          metadata,
        };
      }
      if (ref && (refund.status === 'failed' || refund.status === 'canceled')) {
        return { id: event.id, kind: 'refund.failed', ref, refundRef: refund.id, metadata };
      }
      // pending / requires_action: the final state arrives in a later refund.updated.
    }
    return { id: event.id, kind: 'ignored', type: event.type };
  }

  #status(intent: Stripe.PaymentIntent): IntentStatus {
    const status = toIntentStatus(intent.status);
    if (status === null) {
      throw new ProviderError(`Stripe returned the PaymentIntent ${intent.id} with an unknown status.`);
    }
    return status;
  }

  async #call<T>(operation: Operation, request: () => Promise<T>): Promise<T> {
    try {
      return await this.#traced(operation, request);
    } catch (error) {
      throw this.#providerError(operation, error);
    }
  }

  /**
   * One client span per operation when tracing is on (the SDK's own retries inside it); no trace
   * context is sent to Stripe.
   */
  #traced<T>(operation: Operation, request: () => Promise<T>): Promise<T> {
    const [method, template] = OPERATIONS[operation];
    return clientSpan(
      `${method} ${template}`,
      {
        'http.request.method': method,
        'url.template': template,
        'server.address': this.#server.address,
        'server.port': this.#server.port,
        'storefront.payment.provider': 'stripe',
      },
      async (span) => {
        try {
          return await request();
        } catch (error) {
          if (error instanceof Stripe.errors.StripeError) {
            span.set({ 'http.response.status_code': error.statusCode });
            span.fail(error.type);
          }
          throw error;
        }
      },
    );
  }

  #providerError(operation: string, error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    const parts: string[] = [];
    if (error instanceof Stripe.errors.StripeError) {
      parts.push(error.type);
      if (error.statusCode !== undefined) parts.push(`HTTP ${error.statusCode}`);
      if (error.code) parts.push(error.code);
      if (error.requestId) parts.push(`request ${error.requestId}`);
      // The SDK's messages never carry the key (Stripe masks it); redact anyway, defensively.
      this.#scrub(error);
    }
    const message = error instanceof Error ? this.#redact(error.message) : 'unknown error';
    return new ProviderError(`Stripe could not ${operation} (${parts.join(', ') || 'error'}): ${message}`, {
      cause: error,
      definitive: isDefinitive(error),
    });
  }

  #redact(text: string): string {
    return text.split(this.#secretKey).join('[redacted]');
  }

  /** Removes the key from an SDK error's message should the API (or a proxy) ever echo it. */
  #scrub(error: Stripe.errors.StripeError): void {
    if (!error.message.includes(this.#secretKey)) return;
    Object.defineProperty(error, 'message', { value: this.#redact(error.message) });
    if (error.stack) Object.defineProperty(error, 'stack', { value: this.#redact(error.stack) });
    if (error.raw && typeof error.raw === 'object' && 'message' in error.raw) {
      const raw = error.raw as { message?: unknown };
      if (typeof raw.message === 'string') raw.message = this.#redact(raw.message);
    }
  }
}
