/**
 * The checkout helper against the real service: one Idempotency-Key per logical checkout, retried
 * with that same key after a lost answer, on 409 idempotency_in_progress and on 429/503 (honouring
 * Retry-After), never after a refusal; the sandbox confirmation and waitForPaid.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import {
  OrderNotPaidError,
  StorefrontError,
  StorefrontNetworkError,
  WaitTimeoutError,
  type Checkout,
} from '@storefront/client';
import { expireOrders } from '../../../src/orders/expiry.service.ts';
import { ordersDeps } from '../../../src/runtime.ts';
import {
  createProduct,
  openShop,
  problemResponse,
  rejection,
  scriptedFetch,
  startedForFile,
  startLiveApp,
  type RecordedCall,
  type Shop,
} from './server.test-support.ts';

const live = startedForFile(startLiveApp);

/** A shop whose storefront client sends through `fetch`, with a cart of one product ready to check out. */
async function shopWithCart(fetch?: ReturnType<typeof scriptedFetch>): Promise<Shop & { cartId: string }> {
  const opened = await openShop(live, fetch ? { fetch } : {});
  const product = await createProduct(opened.admin, { priceAmount: 2500, onHand: 5 });
  const cart = await opened.storefront.carts.create({
    items: [{ variantId: product.variants[0]!.id, quantity: 2 }],
  });
  return { ...opened, cartId: cart.id };
}

const checkoutCalls = (fetch: { calls: RecordedCall[] }) =>
  fetch.calls.filter((call) => call.url.endsWith('/checkout'));

async function ordersOf(shop: Shop): Promise<string[]> {
  const ids: string[] = [];
  for await (const order of shop.admin.orders.listAll()) ids.push(order.id);
  return ids;
}

describe('checkout retries', () => {
  test('a lost answer is retried with the same key: the same order, replayed, and only one order exists', async () => {
    let lostBody: Checkout | null = null;
    const fetch = scriptedFetch();
    const shop = await shopWithCart(fetch);
    // From now on, the first checkout request reaches the service and commits, but its answer is lost.
    const first = fetch.calls.length;
    const lose = async (_call: RecordedCall, real: () => Promise<Response>) => {
      const response = await real();
      lostBody = (await response.json()) as Checkout;
      assert.equal(response.status, 201, 'the server did create the order');
      throw new TypeError('fetch failed: the connection was reset after the request was sent');
    };
    fetch.script[first] = lose;

    const replayed: (string | null)[] = [];
    const result = await shop.storefront.checkout.create(
      { cartId: shop.cartId, email: 'buyer@example.com', country: 'US' },
      { onResponse: (response) => replayed.push(response.headers.get('idempotent-replayed')) },
    );
    const calls = checkoutCalls(fetch);
    assert.equal(calls.length, 2, 'one retry');
    const key = calls[0]!.headers.get('idempotency-key');
    assert.match(
      key ?? '',
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      'a UUID v4',
    );
    assert.equal(calls[1]!.headers.get('idempotency-key'), key, 'the retry reuses the key');
    assert.equal(calls[1]!.body, calls[0]!.body, 'and the body');
    assert.deepEqual(replayed, ['true'], 'the answer that arrived is the replay of the first');
    assert.ok(lostBody);
    assert.equal(result.order.id, (lostBody as Checkout).order.id, 'the same order');
    assert.equal(result.order.status, 'pending');
    assert.equal(result.order.total.amount, 5000);
    assert.deepEqual(await ordersOf(shop), [result.order.id], 'exactly one order');
  });

  test('409 idempotency_in_progress and 503 are retried with the same key after Retry-After', async () => {
    const fetch = scriptedFetch();
    const shop = await shopWithCart(fetch);
    const first = fetch.calls.length;
    fetch.script[first] = async () => problemResponse(409, 'idempotency_in_progress', { 'retry-after': '1' });
    fetch.script[first + 1] = async () => problemResponse(503, 'service_unavailable', { 'retry-after': '1' });
    const started = Date.now();
    const result = await shop.storefront.checkout.create({ cartId: shop.cartId, email: 'buyer@example.com' });
    const elapsed = Date.now() - started;
    const calls = checkoutCalls(fetch);
    assert.equal(calls.length, 3);
    assert.equal(
      new Set(calls.map((call) => call.headers.get('idempotency-key'))).size,
      1,
      'one key throughout',
    );
    assert.ok(elapsed >= 1900, `waited Retry-After twice (${elapsed} ms)`);
    assert.equal(result.order.status, 'pending');
    assert.deepEqual(await ordersOf(shop), [result.order.id]);
  });

  test('a 429 is retried; the caller’s own idempotency key is used', async () => {
    const fetch = scriptedFetch();
    const shop = await shopWithCart(fetch);
    fetch.script[fetch.calls.length] = async () =>
      problemResponse(429, 'rate_limited', { 'retry-after': '0' });
    const key = randomUUID();
    const result = await shop.storefront.checkout.create(
      { cartId: shop.cartId, email: 'buyer@example.com' },
      { idempotencyKey: key },
    );
    const calls = checkoutCalls(fetch);
    assert.deepEqual(
      calls.map((call) => call.headers.get('idempotency-key')),
      [key, key],
    );
    // The same key later (e.g. after a page reload) answers with the same order.
    const again = await shop.storefront.checkout.create(
      { cartId: shop.cartId, email: 'buyer@example.com' },
      { idempotencyKey: key },
    );
    assert.equal(again.order.id, result.order.id);
  });

  test('attempts are bounded: the last error is thrown with the key to retry with later', async () => {
    const fetch = scriptedFetch();
    const shop = await shopWithCart(fetch);
    const unavailable = async () => problemResponse(503, 'service_unavailable', { 'retry-after': '0' });
    for (let i = 0; i < 10; i++) fetch.script[fetch.calls.length + i] = unavailable;
    const error = await rejection(
      shop.storefront.checkout.create(
        { cartId: shop.cartId, email: 'buyer@example.com' },
        { retry: { maxAttempts: 3 } },
      ),
    );
    assert.ok(error instanceof StorefrontError, String(error));
    assert.equal(error.status, 503);
    assert.equal(error.attempts, 3);
    assert.equal(checkoutCalls(fetch).length, 3);
    assert.equal(error.idempotencyKey, checkoutCalls(fetch)[0]!.headers.get('idempotency-key'));
    assert.deepEqual(await ordersOf(shop), [], 'no order was made');
  });

  test('network errors are retried with backoff, then surface as StorefrontNetworkError', async () => {
    const fetch = scriptedFetch();
    const shop = await shopWithCart(fetch);
    const refuse = async () => {
      throw new TypeError('fetch failed: connect ECONNREFUSED');
    };
    for (let i = 0; i < 10; i++) fetch.script[fetch.calls.length + i] = refuse;
    const error = await rejection(
      shop.storefront.checkout.create(
        { cartId: shop.cartId, email: 'buyer@example.com' },
        { retry: { maxAttempts: 4, baseDelayMs: 5 } },
      ),
    );
    assert.ok(error instanceof StorefrontNetworkError, String(error));
    assert.equal(error.attempts, 4);
    assert.equal(new Set(checkoutCalls(fetch).map((call) => call.headers.get('idempotency-key'))).size, 1);
    assert.equal(error.idempotencyKey, checkoutCalls(fetch)[0]!.headers.get('idempotency-key'));
  });

  test('a validation error is never retried: 400 with errors[] at once', async () => {
    const fetch = scriptedFetch();
    const shop = await shopWithCart(fetch);
    const error = await rejection(
      shop.storefront.checkout.create({ cartId: shop.cartId, email: 'not-an-email' }),
    );
    assert.ok(error instanceof StorefrontError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.title, 'validation_failed');
    assert.deepEqual(
      error.errors.map((entry) => entry.pointer),
      ['/email'],
    );
    assert.equal(checkoutCalls(fetch).length, 1);
    assert.equal(error.attempts, 1);
  });

  test('business refusals are not retried either: 409 insufficient_stock, 422 idempotency_key_reused', async () => {
    const fetch = scriptedFetch();
    const shop = await shopWithCart(fetch);
    const product = await createProduct(shop.admin, { onHand: 1 });
    const cart = await shop.storefront.carts.create({
      items: [{ variantId: product.variants[0]!.id, quantity: 3 }],
    });
    const short = await rejection(
      shop.storefront.checkout.create({ cartId: cart.id, email: 'buyer@example.com' }),
    );
    assert.ok(short instanceof StorefrontError);
    assert.equal(short.status, 409);
    assert.equal(short.title, 'insufficient_stock');
    assert.equal((short.problem.errors ?? [])[0]?.available, 1, 'extra members are kept');
    assert.equal(checkoutCalls(fetch).length, 1);

    const key = randomUUID();
    await shop.storefront.checkout.create(
      { cartId: shop.cartId, email: 'a@example.com' },
      { idempotencyKey: key },
    );
    const reused = await rejection(
      shop.storefront.checkout.create(
        { cartId: shop.cartId, email: 'b@example.com' },
        { idempotencyKey: key },
      ),
    );
    assert.ok(reused instanceof StorefrontError);
    assert.equal(reused.status, 422);
    assert.equal(reused.title, 'idempotency_key_reused');
    assert.equal(checkoutCalls(fetch).length, 3);
  });
});

describe('payment', () => {
  test('the sandbox confirms the payment and waitForPaid resolves with the paid order', async () => {
    const shop = await shopWithCart();
    const { order, payment } = await shop.storefront.checkout.create({
      cartId: shop.cartId,
      email: 'buyer@example.com',
    });
    assert.equal(payment.provider, 'sandbox');
    const confirmation = await shop.storefront.sandbox.confirm(payment, 'pm_card_visa');
    assert.equal(confirmation.ref, payment.ref);
    const paid = await shop.storefront.orders.waitForPaid(order.id, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(paid.id, order.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.payment?.status, 'succeeded');
    assert.ok(paid.paidAt);
  });

  test('a wrong client secret is a 404 from the sandbox', async () => {
    const shop = await shopWithCart();
    const { payment } = await shop.storefront.checkout.create({
      cartId: shop.cartId,
      email: 'buyer@example.com',
    });
    const error = await rejection(
      shop.storefront.sandbox.confirm({ ref: payment.ref, clientSecret: 'nope' }),
    );
    assert.ok(error instanceof StorefrontError);
    assert.equal(error.status, 404);
  });

  test('waitForPaid times out on an order that stays pending (a declined card), with the last order seen', async () => {
    const shop = await shopWithCart();
    const { order, payment } = await shop.storefront.checkout.create({
      cartId: shop.cartId,
      email: 'buyer@example.com',
    });
    const declined = await shop.storefront.sandbox.confirm(payment, 'pm_card_declined');
    assert.equal(declined.status, 'failed');
    const started = Date.now();
    const error = await rejection(
      shop.storefront.orders.waitForPaid(order.id, { timeoutMs: 300, intervalMs: 50 }),
    );
    assert.ok(error instanceof WaitTimeoutError, String(error));
    assert.equal(error.orderId, order.id);
    assert.equal(error.lastOrder?.status, 'pending');
    assert.ok(Date.now() - started >= 290);
  });

  test('waitForPaid rejects at once when the order expires, and on a 404; an abort stops it', async () => {
    const shop = await shopWithCart();
    const { order } = await shop.storefront.checkout.create({
      cartId: shop.cartId,
      email: 'buyer@example.com',
    });
    const waiting = rejection(
      shop.storefront.orders.waitForPaid(order.id, { timeoutMs: 10_000, intervalMs: 50 }),
    );
    const ttl = live.t.config.payments.orderTtlMs + 1000;
    live.t.clock.advance(ttl);
    try {
      await expireOrders(ordersDeps(live.t.runtime, pino({ level: 'silent' })));
    } finally {
      live.t.clock.advance(-ttl);
    }
    const error = await waiting;
    assert.ok(error instanceof OrderNotPaidError, String(error));
    assert.equal(error.status, 'expired');
    assert.equal(error.order.id, order.id);

    const missing = await rejection(shop.storefront.orders.waitForPaid(randomUUID(), { timeoutMs: 5000 }));
    assert.ok(missing instanceof StorefrontError);
    assert.equal(missing.status, 404);

    const other = await shopWithCart();
    const pending = await other.storefront.checkout.create({
      cartId: other.cartId,
      email: 'buyer@example.com',
    });
    const controller = new AbortController();
    const stopped = rejection(
      other.storefront.orders.waitForPaid(pending.order.id, { intervalMs: 50, signal: controller.signal }),
    );
    setTimeout(() => controller.abort(new Error('left the page')), 100);
    assert.equal(((await stopped) as Error).message, 'left the page');
  });
});
