/**
 * The checkout in progress, kept for this tab (sessionStorage): the body and the Idempotency-Key it
 * was sent with. Sending both again replays the same answer (the same order, the same payment), so a
 * reload of the review step, or "pay now" after leaving the payment page, never makes a second order.
 */
import type { Checkout, CheckoutInput } from '@storefront/client';
import { config, shopApi } from './api.ts';
import { href } from './router.tsx';

const STORAGE_KEY = 'storefront.checkout';

export interface SavedCheckout {
  idempotencyKey: string;
  body: CheckoutInput;
  orderId: string;
}

export function savedCheckout(): SavedCheckout | null {
  try {
    const raw = window.sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as SavedCheckout) : null;
  } catch {
    return null;
  }
}

export function saveCheckout(saved: SavedCheckout | null): void {
  try {
    if (saved) window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(saved));
    else window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused: the review step lasts as long as the page.
  }
}

/** Sends the checkout; with the key of an earlier send, the service answers that same checkout again. */
export function sendCheckout(body: CheckoutInput, idempotencyKey: string): Promise<Checkout> {
  return shopApi().checkout.create(body, { idempotencyKey });
}

/**
 * Hands the shopper to the payment provider's hosted page with a plain form POST (the client
 * secret travels in the body, never in a URL), as Stripe's hosted pages do. The provider sends the
 * shopper back to the order page with `payment_intent` and `redirect_status`. Card data never
 * passes through this code.
 */
export function payOnHostedPage(checkout: Checkout): void {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = `${config.apiBaseUrl}/sandbox/v1/payments/${encodeURIComponent(checkout.payment.ref)}`;
  const fields = {
    client_secret: checkout.payment.clientSecret,
    return_url: new URL(href(`/orders/${checkout.order.id}`), window.location.href).href,
  };
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}
