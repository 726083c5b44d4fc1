/**
 * Refunds through the Stripe adapter against a local stand-in whose refund call fails (decision `refund-path`): a
 * late payment is never kept without a refund, and a refund is never marked failed because the
 * provider did not answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  SECRET_KEY,
  signStripe,
  stripeEvent,
  StripeStub,
  WEBHOOK_SECRET,
  type JsonObject,
} from '../payments/stripe.test-support.ts';
import { startTestApp, testConfig, type TestApp } from '../test/harness.ts';
import { expireOrders } from './expiry.service.ts';
import { paymentDeps, ShopDriver } from './orders.test-support.ts';
import { reconcileRefunds } from './refund-reconciliation.service.ts';

const stub = new StripeStub();
let t: TestApp;

before(async () => {
  const apiBase = await stub.start();
  t = await startTestApp({
    config: {
      payments: {
        ...testConfig().payments,
        provider: 'stripe',
        stripeSecretKey: SECRET_KEY,
        stripeWebhookSecret: WEBHOOK_SECRET,
        stripeApiBase: apiBase,
      },
    },
  });
});
after(async () => {
  await t.close();
  await stub.stop();
});

/** The Stripe API answers the next `count` requests with a 500 (the SDK retries twice per call). */
const failNext = (count: number) =>
  stub.script(
    ...Array.from({ length: count }, () => ({
      kind: 'json' as const,
      status: 500,
      body: { error: { type: 'api_error', message: 'Something went wrong on our end.' } },
    })),
  );

async function deliver(type: string, object: JsonObject) {
  const message = signStripe(stripeEvent(type, object));
  return deliverRaw(message);
}

async function deliverRaw(message: { body: Buffer; headers: Record<string, string> }) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/payments/webhooks/stripe',
    headers: message.headers,
    payload: message.body,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ result: string }>().result;
}

async function afterClock<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  t.clock.advance(ms);
  try {
    return await fn();
  } finally {
    t.clock.advance(-ms);
  }
}

describe('refunds through Stripe when Stripe fails (decision `refund-path`)', () => {
  test('a late payment for a sold-out expired order: the refund stays pending through failures and is made later', async () => {
    const shop = await ShopDriver.open(t);
    const variantId = await shop.variant(1, 2500);
    const late = await shop.buy(variantId, 1);
    const ttl = t.config.payments.orderTtlMs + 60_000;
    await afterClock(ttl, () => expireOrders(paymentDeps(t)));
    assert.equal((await shop.order(late.order.id)).status, 'expired');
    await shop.buy(variantId, 1); // the unit is sold to someone else

    // Stripe says the buyer's payment went through after all; the refund call then fails.
    stub.setStatus(late.payment.ref, 'succeeded');
    const intent = stub.intents.get(late.payment.ref)!;
    failNext(3);
    const webhook = signStripe(stripeEvent('payment_intent.succeeded', intent));
    assert.equal(await deliverRaw(webhook), 'applied');

    let order = await shop.adminOrder(late.order.id);
    assert.equal(order.status, 'expired');
    assert.equal(order.payments[0]?.status, 'succeeded');
    assert.equal(order.refunds.length, 1);
    const [refund] = order.refunds;
    assert.equal(refund?.status, 'pending', 'not failed: Stripe never answered');
    assert.equal(refund?.reason, 'expired_out_of_stock');
    assert.match(String(refund?.lastError), /HTTP 500/);
    assert.equal(stub.refunds.size, 0);

    // Stripe retries its webhook: a duplicate, and the refund is still owed (pending), not lost.
    assert.equal(await deliverRaw(webhook), 'duplicate');
    assert.equal((await shop.adminOrder(late.order.id)).refunds[0]?.status, 'pending');

    // Reconciliation asks again once the refund's next check comes; Stripe answers now.
    await afterClock(2 * 60 * 60 * 1000, () => reconcileRefunds(paymentDeps(t)));
    order = await shop.adminOrder(late.order.id);
    assert.equal(order.refunds[0]?.status, 'succeeded');
    assert.equal(order.refunded.amount, 2500);
    const made = [...stub.refunds.values()].filter((r) => r.payment_intent === late.payment.ref);
    assert.equal(made.length, 1, 'refunded once');
    assert.equal(made[0]?.amount, 2500);
  });

  test('a staff refund Stripe did not answer stays pending (202), and its refund.succeeded later settles it', async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(3, 4000), 1);
    stub.setStatus(bought.payment.ref, 'succeeded');
    assert.equal(await deliver('payment_intent.succeeded', stub.intents.get(bought.payment.ref)!), 'applied');
    assert.equal((await shop.order(bought.order.id)).status, 'paid');

    failNext(3);
    const requested = await shop.admin('POST', `/orders/${bought.order.id}/refunds`, { amount: 1500 });
    assert.equal(requested.statusCode, 202, requested.body);
    const { refund } = requested.json<{ refund: { id: string; status: string; lastError: string } }>();
    assert.equal(refund.status, 'pending');
    assert.match(refund.lastError, /HTTP 500/);

    // Stripe made it after all (the answer was lost) and says so.
    const settled = await deliver('refund.updated', {
      id: 're_made_after_timeout',
      object: 'refund',
      amount: 1500,
      currency: 'usd',
      status: 'succeeded',
      payment_intent: bought.payment.ref,
      metadata: { storeId: shop.storeId, orderId: bought.order.id, refundId: refund.id },
    });
    assert.equal(settled, 'applied');
    const order = await shop.adminOrder(bought.order.id);
    assert.equal(order.refunded.amount, 1500);
    assert.equal(order.refunds[0]?.status, 'succeeded');
  });

  test('a refund Stripe refuses for good is 409 refund_rejected and recorded failed', async () => {
    const shop = await ShopDriver.open(t);
    const bought = await shop.buy(await shop.variant(3, 1000), 1);
    stub.setStatus(bought.payment.ref, 'succeeded');
    await deliver('payment_intent.succeeded', stub.intents.get(bought.payment.ref)!);
    // Already refunded in full at Stripe (from its dashboard): Stripe refuses another refund.
    stub.refunds.set('re_dashboard', {
      id: 're_dashboard',
      payment_intent: bought.payment.ref,
      amount: 1000,
    });

    const refused = await shop.admin('POST', `/orders/${bought.order.id}/refunds`, { amount: 500 });
    assert.equal(refused.statusCode, 409, refused.body);
    const problem = refused.json<{ title: string; detail: string }>();
    assert.equal(problem.title, 'refund_rejected');
    assert.match(problem.detail, /greater than unrefunded amount/);
    const order = await shop.adminOrder(bought.order.id);
    assert.equal(order.refunds[0]?.status, 'failed');
    // A failed refund holds nothing: the amount can be refunded again.
    stub.refunds.delete('re_dashboard');
    const again = await shop.admin('POST', `/orders/${bought.order.id}/refunds`, { amount: 500 });
    assert.equal(again.statusCode, 202, again.body);
  });
});
