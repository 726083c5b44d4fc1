/**
 * The checkout in progress, kept for this tab (sessionStorage): the body and the Idempotency-Key it
 * was sent with, and the lines it ordered. Sending both again replays the same answer (the same
 * order, the same payment), so a reload of the review step, "pay now" after leaving the payment
 * page, or checking out the restored cart unchanged never makes a second order.
 */
import {
  randomUUID,
  type AddressInput,
  type Cart,
  type Checkout,
  type CheckoutInput,
} from '@storefront/client';
import { config, shopApi } from './api.ts';
import { sameItems, type Items } from './cart.ts';
import { href } from './router.tsx';

const STORAGE_KEY = 'storefront.checkout';

export interface SavedCheckout {
  idempotencyKey: string;
  body: CheckoutInput;
  orderId: string;
  /** The lines the cart held when it was sent (the order's). */
  items?: Items;
  /** Where and how the cart shipped, and its codes, when it was sent (`choicesOf`). */
  choices?: string;
}

/** What the cart brings to its checkout besides its lines: address, method, codes and gift cards. */
export function choicesOf(
  cart: Pick<Cart, 'shippingAddress' | 'shippingMethod' | 'discountCodes' | 'giftCards'>,
): string {
  const cards = cart.giftCards.map((card) => card.last4);
  return JSON.stringify([cart.shippingAddress, cart.shippingMethod?.id ?? null, cart.discountCodes, cards]);
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
 * Whether a checkout's order is still held for the shopper. A replayed answer is the first one as
 * it was, `pending` included, so its hold time is what tells.
 */
export function stillHeld(checkout: Checkout): boolean {
  const until = checkout.order.expiresAt ? Date.parse(checkout.order.expiresAt) : NaN;
  return checkout.order.status === 'pending' && !(until <= Date.now());
}

/**
 * Checks out these lines with these details. When this tab holds an unpaid order of exactly the
 * same (the shopper left the payment page and came back through the restored cart), the same key
 * and body answer that order again: no second order, and its stock is not held twice. Otherwise a
 * new key (one per attempt: the client retries a lost answer with it; a refusal is final for it).
 */
export async function placeOrder(body: CheckoutInput, items: Items, choices = ''): Promise<Checkout> {
  const saved = savedCheckout();
  const same =
    saved !== null &&
    sameItems(saved.items ?? [], items) &&
    (saved.choices ?? '') === choices &&
    (saved.body.phone ?? null) === (body.phone ?? null) &&
    saved.body.email === body.email &&
    (saved.body.country ?? null) === (body.country ?? null) &&
    (saved.body.discountCode ?? null) === (body.discountCode ?? null);
  if (saved && same) {
    const again = await sendCheckout(saved.body, saved.idempotencyKey).catch(() => null);
    if (again && stillHeld(again)) return again;
  }
  const idempotencyKey = randomUUID();
  const answer = await sendCheckout(body, idempotencyKey);
  saveCheckout({ idempotencyKey, body, orderId: answer.order.id, items, choices });
  return answer;
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

const DETAILS_KEY = 'storefront.details';

/** What the shopper typed last time on this browser, to fill the form in on the next visit. */
export interface SavedDetails {
  email: string;
  phone: string;
  address: AddressInput | null;
}

export function savedDetails(): SavedDetails | null {
  try {
    const raw = window.localStorage.getItem(DETAILS_KEY);
    return raw ? (JSON.parse(raw) as SavedDetails) : null;
  } catch {
    return null;
  }
}

export function saveDetails(details: SavedDetails): void {
  try {
    window.localStorage.setItem(DETAILS_KEY, JSON.stringify(details));
  } catch {
    // Storage refused (private mode): the shopper types it again next time.
  }
}
