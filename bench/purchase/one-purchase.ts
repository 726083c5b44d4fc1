/** A purchase, the way a shop makes it: cart, (shipping,) checkout, payment, the order read until paid. */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { isRecord } from '../lib/processes.ts';
import { call, field, stringAt } from './http.ts';
import type { Target } from './target.ts';

/** A purchase whose order is not `paid` this long after the confirmation counts as failed. */
const PAID_TIMEOUT_MS = 30_000;

export type Step = 'cart' | 'shipping' | 'checkout' | 'confirm' | 'paid';
/** The steps a purchase is timed in; `shipping` (address, options, method) with --shipping only. */
export const stepsOf = (shipping: boolean): Step[] =>
  shipping ? ['cart', 'shipping', 'checkout', 'confirm', 'paid'] : ['cart', 'checkout', 'confirm', 'paid'];

export interface Purchase {
  ok: boolean;
  /** Milliseconds per step: `paid` runs from the confirmation's answer to the first read that is paid. */
  steps: Partial<Record<Step, number>>;
  total: number;
  /** Order reads, including the one that saw `paid`. */
  polls: number;
  /** `<step> <status>` of a failed purchase (status 0: connection error or timeout). */
  failure: string | null;
  end: number;
}

interface Paid {
  ok: boolean;
  ms: number;
  polls: number;
  failure: string | null;
}

/** Confirms the payment like the shop's hosted fields, then reads the order until it is paid. */
export async function payAndWait(
  pool: Pool,
  key: Record<string, string>,
  checkoutBody: unknown,
  pollMs: number,
  steps: Partial<Record<Step, number>>,
): Promise<Paid> {
  const orderId = stringAt(checkoutBody, 'order', 'id');
  const ref = stringAt(checkoutBody, 'payment', 'ref');
  const clientSecret = stringAt(checkoutBody, 'payment', 'clientSecret');
  const confirmed = await call(
    pool,
    'POST',
    `/sandbox/v1/payments/${ref}/confirm`,
    {},
    {
      clientSecret,
      paymentMethod: 'pm_card_visa',
    },
  );
  steps.confirm = confirmed.ms;
  if (confirmed.status !== 200) return { ok: false, ms: 0, polls: 0, failure: `confirm ${confirmed.status}` };
  const started = performance.now();
  let polls = 0;
  for (;;) {
    const read = await call(pool, 'GET', `/storefront/v1/orders/${orderId}`, key);
    polls += 1;
    if (read.status !== 200) return { ok: false, ms: 0, polls, failure: `paid ${read.status}` };
    if (field(read.body, 'status') === 'paid')
      return { ok: true, ms: performance.now() - started, polls, failure: null };
    if (performance.now() - started > PAID_TIMEOUT_MS)
      return { ok: false, ms: 0, polls, failure: 'paid timeout' };
    await sleep(pollMs);
  }
}

let buyerSerial = 0;

/** The headers of buyer `n`: the store's key, and the buyer's own address (TRUST_PROXY=loopback). */
export function clientOf(target: Target, n: number): Record<string, string> {
  return { ...target.key, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
}

const BENCH_ADDRESS = {
  name: 'Bench Buyer',
  line1: '1 Main St',
  city: 'Boston',
  region: 'US-MA',
  postalCode: '02108',
  country: 'US',
};

/** The cart's shipping steps a shop makes (decision `cart-shipping-and-totals`): its address, its options, the first option. Milliseconds, or the failure. */
async function shippingSteps(
  pool: Pool,
  key: Record<string, string>,
  cartId: string,
): Promise<number | string> {
  const address = await call(
    pool,
    'PUT',
    `/storefront/v1/carts/${cartId}/shipping-address`,
    key,
    BENCH_ADDRESS,
  );
  if (address.status !== 200) return `shipping-address ${address.status}`;
  const options = await call(pool, 'GET', `/storefront/v1/carts/${cartId}/shipping-options`, key);
  const items = isRecord(options.body) && Array.isArray(options.body.items) ? options.body.items : [];
  if (options.status !== 200 || items.length === 0) return `shipping-options ${options.status}`;
  const method = await call(pool, 'PUT', `/storefront/v1/carts/${cartId}/shipping-method`, key, {
    id: stringAt(items[0], 'id'),
  });
  if (method.status !== 200) return `shipping-method ${method.status}`;
  return address.ms + options.ms + method.ms;
}

export async function purchase(pool: Pool, target: Target, pollMs: number, buyer: number): Promise<Purchase> {
  const key = clientOf(target, buyer);
  const started = performance.now();
  const steps: Partial<Record<Step, number>> = {};
  const failed = (failure: string, polls = 0): Purchase => ({
    ok: false,
    steps,
    total: performance.now() - started,
    polls,
    failure,
    end: performance.now(),
  });
  const variantId = target.variantIds[Math.floor(Math.random() * target.variantIds.length)] ?? '';
  const cart = await call(pool, 'POST', '/storefront/v1/carts', key, {
    items: [{ variantId, quantity: 1 }],
  });
  steps.cart = cart.ms;
  if (cart.status !== 201) return failed(`cart ${cart.status}`);
  if (target.shipping) {
    const shipped = await shippingSteps(pool, key, stringAt(cart.body, 'id'));
    if (typeof shipped === 'string') return failed(shipped);
    steps.shipping = shipped;
  }
  buyerSerial += 1;
  const checkout = await call(
    pool,
    'POST',
    '/storefront/v1/checkout',
    { ...key, 'idempotency-key': randomUUID() },
    {
      cartId: stringAt(cart.body, 'id'),
      email: `buyer-${buyerSerial}@example.com`,
      ...(target.discountCode === null ? {} : { discountCode: target.discountCode }),
    },
  );
  steps.checkout = checkout.ms;
  if (checkout.status !== 201) return failed(`checkout ${checkout.status}`);
  const paid = await payAndWait(pool, key, checkout.body, pollMs, steps);
  if (!paid.ok) return failed(paid.failure ?? 'paid ?', paid.polls);
  steps.paid = paid.ms;
  return {
    ok: true,
    steps,
    total: performance.now() - started,
    polls: paid.polls,
    failure: null,
    end: performance.now(),
  };
}
