import { AppError } from '../lib/errors.ts';

/**
 * The seam between checkout and a payment provider (decision `payment-providers`). Card data never reaches the
 * service: the provider hands out a client secret that the buyer's browser confirms with the
 * provider's own hosted fields, and the provider reports the outcome in a signed webhook.
 */
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export type IntentStatus = 'pending' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface IntentMetadata {
  storeId: string;
  orderId: string;
  [key: string]: string;
}

export interface CreateIntentInput {
  amount: number;
  currency: string;
  metadata: IntentMetadata;
  /** Retries with the same key return the same intent (no duplicate intents at the provider). */
  idempotencyKey: string;
}

/** An intent as the provider reports it when asked. */
export interface IntentState {
  status: IntentStatus;
  amount: number;
  /**
   * The buyer has tried to pay at the provider: a payment method was declined (and may be tried
   * again), a challenge such as 3-D Secure is under way, or a method awaits confirmation. Opening a
   * payment page is not a try: no provider tells the merchant, and it costs nothing.
   */
  attempted: boolean;
}

export interface Intent {
  ref: string;
  clientSecret: string;
  status: IntentStatus;
}

export interface RefundInput {
  ref: string;
  amount: number;
  currency: string;
  metadata: IntentMetadata & { refundId: string };
  idempotencyKey: string;
}

/** A verified provider webhook, reduced to what the service acts on. */
export type ProviderEvent =
  | { id: string; kind: 'payment.processing'; ref: string; metadata: Partial<IntentMetadata> }
  | { id: string; kind: 'payment.succeeded'; ref: string; amount: number; metadata: Partial<IntentMetadata> }
  | { id: string; kind: 'payment.failed'; ref: string; reason: string; metadata: Partial<IntentMetadata> }
  | {
      id: string;
      kind: 'refund.succeeded';
      ref: string;
      refundRef: string;
      amount: number;
      metadata: Partial<IntentMetadata> & { refundId?: string };
    }
  | {
      id: string;
      kind: 'refund.failed';
      ref: string;
      refundRef: string;
      metadata: Partial<IntentMetadata> & { refundId?: string };
    }
  | { id: string; kind: 'ignored'; type: string };

export interface PaymentProvider {
  readonly name: string;
  createIntent(input: CreateIntentInput): Promise<Intent>;
  retrieveIntent(ref: string): Promise<IntentState>;
  cancelIntent(ref: string): Promise<void>;
  /** Requests a refund; the same idempotency key returns the same refund, never a second one. */
  refund(input: RefundInput): Promise<{ refundRef: string }>;
  /** Where a refund stands at the provider (reconciliation when its webhook never came). */
  retrieveRefund(refundRef: string): Promise<{ status: RefundStatus; amount: number }>;
  /** Verifies the signature over the exact raw body; throws WebhookSignatureError otherwise. */
  verifyWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): ProviderEvent;
}

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/**
 * A provider call that did not succeed. `definitive` is true only when the provider answered and
 * refused for good (an invalid request, a declined or impossible refund): retrying the same request
 * cannot succeed. Timeouts, network errors, rate limits and 5xx are not definitive: the provider
 * may or may not have acted, so the caller keeps the operation open and asks again (decision `refund-path`).
 */
export class ProviderError extends Error {
  readonly definitive: boolean;
  constructor(message: string, options?: ErrorOptions & { definitive?: boolean }) {
    super(message, options);
    this.name = 'ProviderError';
    this.definitive = options?.definitive ?? false;
  }
}

export const providerUnavailable = (): AppError =>
  new AppError(
    'provider_unavailable',
    502,
    'The payment provider could not be reached. Nothing was charged or reserved; retry with the same Idempotency-Key.',
  );
