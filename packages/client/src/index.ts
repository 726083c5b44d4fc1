/**
 * @storefront/client: a typed fetch client for the Storefront API (publishable key) and the Admin API
 * (staff token), a checkout helper that retries safely, and webhook verification. Runs wherever
 * `fetch` and Web Crypto do: browsers, Node 20+, Deno, Bun, edge workers.
 */
export { createStorefrontClient, retryCheckout } from './storefront.ts';
export type { CustomersClient } from './customers.ts';
export type {
  CheckoutOptions,
  StorefrontClient,
  StorefrontClientOptions,
  WaitForPaidOptions,
} from './storefront.ts';
export { createAdminClient } from './admin.ts';
export type { AdminClient, AdminClientOptions } from './admin.ts';
export { isNotModified, parseRetryAfter, randomUUID, retryTransient } from './core.ts';
export type { FetchLike, RetryOptions, RetryPredicate, TransportOptions } from './core.ts';
export {
  OrderNotPaidError,
  StorefrontError,
  StorefrontNetworkError,
  WaitTimeoutError,
  WebhookVerificationError,
} from './errors.ts';
export type { WebhookVerificationReason } from './errors.ts';
export { currencyExponent, formatMoney, minorToDecimal } from './money.ts';
export { DEFAULT_WEBHOOK_TOLERANCE_SECONDS, verifyWebhook } from './webhooks.ts';
export type { VerifyWebhookOptions, WebhookHeaders } from './webhooks.ts';
export type * from './types.ts';
