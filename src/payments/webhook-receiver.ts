import type { Log } from '../lib/log.ts';
import { WebhookSignatureError, type PaymentProvider, type ProviderEvent } from './provider.ts';
import type { WebhookDelivery } from './sandbox.webhooks.ts';

/**
 * What a verified provider event does (orders registers it at the composition, so payments never
 * imports orders). Returns how it was applied, e.g. `applied`, `duplicate`, `ignored`.
 */
export type OnProviderEvent = (event: ProviderEvent, log: Log) => Promise<string>;

/**
 * The event of a webhook whose signature over the exact raw body holds; null (with a warning) when
 * it is missing, does not match or the body is not JSON.
 */
export function verifiedEvent(
  provider: PaymentProvider,
  raw: Buffer,
  headers: Record<string, string | string[] | undefined>,
  log: Log,
): ProviderEvent | null {
  try {
    return provider.verifyWebhook(raw, headers);
  } catch (error) {
    if (error instanceof WebhookSignatureError || error instanceof SyntaxError) {
      log.warn({ reason: error.message }, 'rejected a payment webhook');
      return null;
    }
    throw error;
  }
}

/**
 * The sandbox's webhooks received in a process without the HTTP app (`storefront worker`): verified
 * and applied as the webhook route does, answered with the status the route would give.
 */
export function directDelivery(
  provider: PaymentProvider,
  onEvent: OnProviderEvent,
  log: Log,
): WebhookDelivery {
  return async (body, headers) => {
    const event = verifiedEvent(provider, Buffer.from(body), headers, log);
    if (!event) return 400;
    await onEvent(event, log);
    return 200;
  };
}
