import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { listEvents } from '../events/events.ts';
import { createTestStore, startTestApp, testConfig, type TestApp } from '../test/harness.ts';

const WEBHOOK_SECRET = `whsec_${randomUUID().replace(/-/g, '')}`;
let t: TestApp;

before(async () => {
  // The Stripe provider pointed at a port where nothing listens: every API call fails for real.
  t = await startTestApp({
    config: {
      payments: {
        ...testConfig().payments,
        provider: 'stripe',
        stripeSecretKey: 'sk_test_provider_down',
        stripeWebhookSecret: WEBHOOK_SECRET,
        stripeApiBase: 'http://127.0.0.1:1',
      },
    },
  });
});
after(() => t.close());

describe('checkout when the payment provider is down', () => {
  test('answers 502, reserves nothing, writes no order, and a retry with the same key runs again', async () => {
    const shop = await createTestStore(t);
    const auth = { authorization: `Bearer ${shop.staffToken}` };
    const product = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/products',
      headers: auth,
      payload: { title: 'X', status: 'active', variants: [{ label: 'x', priceAmount: 100, onHand: 3 }] },
    });
    const variantId = product.json<{ variants: { id: string }[] }>().variants[0]!.id;
    const cart = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/carts',
      headers: { 'x-publishable-key': shop.publishableKey },
      payload: { items: [{ variantId, quantity: 2 }] },
    });
    const cartId = cart.json<{ id: string }>().id;
    const key = randomUUID();
    const attempt = () =>
      t.app.inject({
        method: 'POST',
        url: '/storefront/v1/checkout',
        headers: { 'x-publishable-key': shop.publishableKey, 'idempotency-key': key },
        payload: { cartId, email: 'a@example.com' },
      });
    const response = await attempt();
    assert.equal(response.statusCode, 502, response.body);
    assert.equal(response.json<{ title: string }>().title, 'provider_unavailable');
    assert.doesNotMatch(response.body, /sk_test/);
    const stock = await t.db.kysely
      .selectFrom('variants')
      .select(['on_hand', 'reserved'])
      .where('id', '=', variantId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stock, { on_hand: 3, reserved: 0 });
    assert.equal(
      (await t.db.kysely.selectFrom('orders').select('id').where('store_id', '=', shop.store.id).execute())
        .length,
      0,
    );
    assert.deepEqual(
      (await listEvents(t.db.kysely, shop.store.id)).filter((e) => e.type.startsWith('order')),
      [],
    );
    const cartAfter = await t.app.inject({
      method: 'PUT',
      url: `/storefront/v1/carts/${cartId}`,
      headers: { 'x-publishable-key': shop.publishableKey },
      payload: { items: [{ variantId, quantity: 1 }] },
    });
    assert.equal(cartAfter.statusCode, 200, 'the cart is still open');

    // A 5xx is not stored: the retry runs again (and fails again while the provider is down).
    const retry = await attempt();
    assert.notEqual(retry.headers['idempotent-replayed'], 'true');
  });

  test('Stripe webhooks are verified with the Stripe signature', async () => {
    const payload = JSON.stringify({
      id: 'evt_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: {
        object: { id: 'pi_1', object: 'payment_intent', amount: 100, amount_received: 100, metadata: {} },
      },
    });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/payments/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload,
    });
    assert.equal(bad.statusCode, 400);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const good = await t.app.inject({
      method: 'POST',
      url: '/payments/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      payload,
    });
    assert.equal(good.statusCode, 200, good.body);
    assert.equal(good.json<{ result: string }>().result, 'ignored', 'no store in its metadata');
    const sandbox = await t.app.inject({
      method: 'POST',
      url: '/payments/webhooks/sandbox',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(sandbox.statusCode, 404, 'only the configured provider has a webhook');
  });
});
