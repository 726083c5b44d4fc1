import { HOSTED_PAGE_PATH } from './sandbox.hosted-page.ts';

/**
 * How a browser starts paying an intent on its provider's hosted page, for a page of this service
 * (a draft order's pay link, decision `draft-order-pay-link`): a form posted there with the client
 * secret in its body (never in a URL) and where to come back. Null for a provider whose payment
 * element runs inside the shop (Stripe), which this service cannot start on its own.
 */
export function hostedPaymentForm(
  provider: string,
  payment: { ref: string; clientSecret: string },
  returnUrl: string,
): { action: string; fields: Record<string, string> } | null {
  if (provider !== 'sandbox') return null;
  return {
    action: `${HOSTED_PAGE_PATH}/${encodeURIComponent(payment.ref)}`,
    fields: { client_secret: payment.clientSecret, return_url: returnUrl },
  };
}
