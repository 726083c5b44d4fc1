/**
 * The Stripe adapter against a local stand-in for api.stripe.com (node:http on 127.0.0.1): the
 * real `stripe` SDK sends real form-encoded requests, the stub answers with Stripe-shaped JSON.
 * Webhook signatures are made with the SDK's own `generateTestHeaderString`. No network.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { after, before, beforeEach, describe, test } from 'node:test';
import Stripe from 'stripe';
import { ProviderError, WebhookSignatureError, type ProviderEvent } from './provider.ts';
import {
  IntentNotCancelableError,
  STRIPE_API_VERSION,
  StripeProvider,
  type StripeProviderOptions,
} from './stripe.provider.ts';
import {
  SECRET_KEY,
  StripeStub,
  WEBHOOK_SECRET,
  apiError,
  now,
  signStripe,
  stripeEvent,
  stripeId,
  type JsonObject,
} from './stripe.test-support.ts';

type WithId = JsonObject & { id: string };

// ---------------------------------------------------------------------------------------------

const stub = new StripeStub();
let apiBase = '';

const provider = (overrides: Partial<StripeProviderOptions> = {}) =>
  new StripeProvider({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase, ...overrides });

const metadata = () => ({
  storeId: '7d0e2f3a-51c6-4d7e-9a43-3f1f0c2f9b10',
  orderId: 'a4b6c8d0-1e2f-4a5b-8c7d-9e0f1a2b3c4d',
  orderNumber: '1042',
});

/** The ProviderError a call rejects with; the key must not be anywhere in it (cause included). */
async function providerFailure(promise: Promise<unknown>, key = SECRET_KEY): Promise<ProviderError> {
  const error = await promise.then(
    () => assert.fail('expected a ProviderError'),
    (error: unknown) => error,
  );
  assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${inspect(error)}`);
  const rendered = [
    error.message,
    error.stack ?? '',
    inspect(error, { depth: Infinity, showHidden: true }),
    JSON.stringify(error),
  ].join('\n');
  assert.ok(!rendered.includes(key), `the secret key leaked:\n${rendered}`);
  return error;
}

before(async () => {
  apiBase = await stub.start();
});
after(() => stub.stop());
beforeEach(() => stub.reset());

describe('StripeProvider: PaymentIntents and refunds against a local Stripe stub', () => {
  test('createIntent sends amount, lower-cased currency, metadata, automatic payment methods and the idempotency key', async () => {
    const stripe = provider();
    assert.equal(stripe.name, 'stripe');
    const intent = await stripe.createIntent({
      amount: 4599,
      currency: 'EUR',
      metadata: metadata(),
      idempotencyKey: 'checkout:3c1d0a9e-order-1042',
    });

    assert.equal(stub.requests.length, 1);
    const [request] = stub.requests;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.path, '/v1/payment_intents');
    assert.equal(request!.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(request!.headers.authorization, `Bearer ${SECRET_KEY}`);
    assert.equal(request!.headers['idempotency-key'], 'checkout:3c1d0a9e-order-1042');
    assert.equal(request!.headers['stripe-version'], STRIPE_API_VERSION);
    assert.deepEqual(request!.form, {
      amount: '4599',
      currency: 'eur',
      'metadata[storeId]': metadata().storeId,
      'metadata[orderId]': metadata().orderId,
      'metadata[orderNumber]': '1042',
      'automatic_payment_methods[enabled]': 'true',
    });

    const stored = stub.intents.get(intent.ref);
    assert.ok(stored, 'the ref is the PaymentIntent id');
    assert.match(intent.ref, /^pi_/);
    assert.equal(intent.clientSecret, stored.client_secret);
    assert.equal(intent.status, 'pending');
  });

  test('a retry with the same idempotency key returns the same intent; Stripe creates one', async () => {
    const stripe = provider();
    const input = { amount: 1200, currency: 'usd', metadata: metadata(), idempotencyKey: 'retry-key-1' };
    const intentsBefore = stub.intents.size;
    const first = await stripe.createIntent(input);
    const again = await stripe.createIntent(input);
    assert.deepEqual(again, first);
    assert.equal(stub.requests.length, 2);
    assert.equal(stub.intents.size, intentsBefore + 1);
    assert.deepEqual(
      stub.requests.map((r) => r.headers['idempotency-key']),
      ['retry-key-1', 'retry-key-1'],
    );
  });

  test('the same idempotency key with different parameters is a ProviderError', async () => {
    const stripe = provider();
    await stripe.createIntent({ amount: 500, currency: 'usd', metadata: metadata(), idempotencyKey: 'k-2' });
    const error = await providerFailure(
      stripe.createIntent({ amount: 501, currency: 'usd', metadata: metadata(), idempotencyKey: 'k-2' }),
    );
    assert.ok(error.cause instanceof Stripe.errors.StripeIdempotencyError);
  });

  test('retrieveIntent maps every Stripe status and returns the amount', async () => {
    const stripe = provider();
    const { ref } = await stripe.createIntent({
      amount: 2500,
      currency: 'gbp',
      metadata: metadata(),
      idempotencyKey: 'k-status',
    });
    const expected = {
      requires_payment_method: ['pending', false],
      requires_confirmation: ['pending', true],
      requires_action: ['pending', true],
      processing: ['processing', false],
      requires_capture: ['processing', false],
      succeeded: ['succeeded', false],
      canceled: ['canceled', false],
    } as const;
    for (const [stripeStatus, [status, attempted]] of Object.entries(expected)) {
      stub.setStatus(ref, stripeStatus);
      assert.deepEqual(await stripe.retrieveIntent(ref), { status, amount: 2500, attempted }, stripeStatus);
    }
    // A declined attempt: back to requires_payment_method, with the error (the buyer may try again).
    stub.setStatus(ref, 'requires_payment_method', {
      last_payment_error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' },
    });
    assert.deepEqual(await stripe.retrieveIntent(ref), { status: 'pending', amount: 2500, attempted: true });
    const get = stub.requests.at(-1)!;
    assert.equal(get.method, 'GET');
    assert.equal(get.path, `/v1/payment_intents/${ref}`);

    stub.setStatus(ref, 'requires_reauthorization_from_the_future');
    await providerFailure(stripe.retrieveIntent(ref));
  });

  test('retrieveIntent of an unknown intent is a ProviderError (HTTP 404)', async () => {
    const error = await providerFailure(provider().retrieveIntent('pi_missing'));
    assert.ok(error.cause instanceof Stripe.errors.StripeInvalidRequestError);
    assert.match(error.message, /HTTP 404/);
    assert.match(error.message, /resource_missing/);
  });

  test('cancelIntent cancels an open intent and accepts one that is already canceled', async () => {
    const stripe = provider();
    const { ref } = await stripe.createIntent({
      amount: 800,
      currency: 'usd',
      metadata: metadata(),
      idempotencyKey: 'k-cancel',
    });
    await stripe.cancelIntent(ref);
    assert.equal(stub.intents.get(ref)!.status, 'canceled');
    const cancel = stub.requests.at(-1)!;
    assert.equal(cancel.method, 'POST');
    assert.equal(cancel.path, `/v1/payment_intents/${ref}/cancel`);
    assert.equal(typeof cancel.headers['idempotency-key'], 'string', 'the SDK keys every POST');

    await stripe.cancelIntent(ref); // Stripe answers 400 payment_intent_unexpected_state: fine.
    assert.equal(stub.intents.get(ref)!.status, 'canceled');
  });

  test('cancelIntent of a succeeded or processing intent rejects: the money is not thrown away', async () => {
    const stripe = provider();
    for (const stripeStatus of ['succeeded', 'processing'] as const) {
      const { ref } = await stripe.createIntent({
        amount: 3100,
        currency: 'usd',
        metadata: metadata(),
        idempotencyKey: `k-paid-${stripeStatus}`,
      });
      stub.setStatus(ref, stripeStatus);
      const error = await providerFailure(stripe.cancelIntent(ref));
      assert.ok(error instanceof IntentNotCancelableError);
      assert.equal(error.status, stripeStatus);
      assert.ok(error.cause instanceof Stripe.errors.StripeInvalidRequestError);
      assert.equal(stub.intents.get(ref)!.status, stripeStatus);
    }
  });

  test('cancelIntent of an unknown intent is a ProviderError', async () => {
    const error = await providerFailure(provider().cancelIntent('pi_nope'));
    assert.ok(!(error instanceof IntentNotCancelableError));
  });

  test('refund sends payment_intent, amount, metadata and the idempotency key; a retry is the same refund', async () => {
    const stripe = provider();
    const { ref } = await stripe.createIntent({
      amount: 5000,
      currency: 'eur',
      metadata: metadata(),
      idempotencyKey: 'k-refund-intent',
    });
    stub.setStatus(ref, 'succeeded');
    const input = {
      ref,
      amount: 1500,
      currency: 'EUR',
      metadata: { ...metadata(), refundId: 'c0ffee00-0000-4000-8000-000000000001' },
      idempotencyKey: 'refund:c0ffee00',
    };
    const { refundRef } = await stripe.refund(input);
    assert.match(refundRef, /^re_/);
    const request = stub.requests.at(-1)!;
    assert.equal(request.path, '/v1/refunds');
    assert.equal(request.headers['idempotency-key'], 'refund:c0ffee00');
    assert.deepEqual(request.form, {
      payment_intent: ref,
      amount: '1500',
      'metadata[storeId]': metadata().storeId,
      'metadata[orderId]': metadata().orderId,
      'metadata[orderNumber]': '1042',
      'metadata[refundId]': 'c0ffee00-0000-4000-8000-000000000001',
    });

    assert.deepEqual(await stripe.refund(input), { refundRef });
    assert.equal([...stub.refunds.values()].filter((r) => r.payment_intent === ref).length, 1);

    // Reconciliation reads a refund back; every Stripe refund status maps onto ours.
    assert.deepEqual(await stripe.retrieveRefund(refundRef), { status: 'succeeded', amount: 1500 });
    assert.equal(stub.requests.at(-1)!.path, `/v1/refunds/${refundRef}`);
    for (const [stripeStatus, ours] of [
      ['pending', 'pending'],
      ['requires_action', 'pending'],
      ['failed', 'failed'],
      ['canceled', 'failed'],
    ] as const) {
      Object.assign(stub.refunds.get(refundRef)!, { status: stripeStatus });
      assert.equal((await stripe.retrieveRefund(refundRef)).status, ours, stripeStatus);
    }
    Object.assign(stub.refunds.get(refundRef)!, { status: 'succeeded' });
    assert.match((await providerFailure(stripe.retrieveRefund('re_missing'))).message, /resource_missing/);

    const tooMuch = await providerFailure(
      stripe.refund({ ...input, amount: 4000, idempotencyKey: 'refund:2' }),
    );
    assert.match(tooMuch.message, /amount_too_large/);
  });
});

describe('StripeProvider: API and network failures become ProviderError without the key', () => {
  test('HTTP 402 (card declined)', async () => {
    stub.script({
      kind: 'json',
      status: 402,
      body: apiError('card_error', 'Your card was declined.', {
        code: 'card_declined',
        decline_code: 'generic_decline',
        doc_url: 'https://stripe.com/docs/error-codes/card-declined',
      }),
    });
    const error = await providerFailure(
      provider().createIntent({
        amount: 100,
        currency: 'usd',
        metadata: metadata(),
        idempotencyKey: 'k-402',
      }),
    );
    assert.ok(error.cause instanceof Stripe.errors.StripeCardError);
    assert.match(error.message, /HTTP 402/);
    assert.match(error.message, /card_declined/);
    assert.equal(stub.requests.length, 1, 'a 402 is not retried');
  });

  test('HTTP 500 is retried with the same idempotency key, then a ProviderError', async () => {
    const failure = {
      kind: 'json',
      status: 500,
      body: apiError('api_error', 'Something went wrong.'),
    } as const;
    stub.script(failure, failure);
    const error = await providerFailure(
      provider({ maxNetworkRetries: 1 }).createIntent({
        amount: 100,
        currency: 'usd',
        metadata: metadata(),
        idempotencyKey: 'k-500',
      }),
    );
    assert.ok(error.cause instanceof Stripe.errors.StripeAPIError);
    assert.match(error.message, /HTTP 500/);
    assert.deepEqual(
      stub.requests.map((r) => r.headers['idempotency-key']),
      ['k-500', 'k-500'],
    );
  });

  test('a transient 503 is retried with the same key and the intent is created once', async () => {
    stub.script({ kind: 'text', status: 503, body: '<html>503 Service Unavailable</html>' });
    const intent = await provider().createIntent({
      amount: 100,
      currency: 'usd',
      metadata: metadata(),
      idempotencyKey: 'k-503',
    });
    assert.ok(stub.intents.has(intent.ref));
    assert.deepEqual(
      stub.requests.map((r) => r.headers['idempotency-key']),
      ['k-503', 'k-503'],
    );
  });

  test('a non-JSON answer (a proxy error page)', async () => {
    stub.script({ kind: 'text', status: 502, body: '<html><body>Bad gateway</body></html>' });
    const error = await providerFailure(provider({ maxNetworkRetries: 0 }).retrieveIntent('pi_x'));
    assert.ok(error.cause instanceof Stripe.errors.StripeAPIError);
  });

  test('HTTP 401 (a wrong key): the error names neither the wrong key nor the right one', async () => {
    const wrongKey = `sk_test_${randomBytes(18).toString('hex')}`;
    const stripe = provider({ secretKey: wrongKey });
    const error = await providerFailure(stripe.retrieveIntent('pi_x'), wrongKey);
    assert.ok(error.cause instanceof Stripe.errors.StripeAuthenticationError);
    assert.match(error.message, /Invalid API Key provided: sk_test_\*+/);
    assert.ok(!inspect(error, { depth: Infinity }).includes(SECRET_KEY));
  });

  test('an API that echoes the key back has it redacted from the error and its cause', async () => {
    stub.script({
      kind: 'json',
      status: 400,
      body: apiError('invalid_request_error', `Bad request made with ${SECRET_KEY}`),
    });
    const error = await providerFailure(provider().retrieveIntent('pi_x'));
    assert.match(error.message, /\[redacted\]/);
  });

  test('connection refused', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const stripe = provider({ apiBase: `http://127.0.0.1:${port}`, maxNetworkRetries: 0 });
    const error = await providerFailure(
      stripe.createIntent({
        amount: 100,
        currency: 'usd',
        metadata: metadata(),
        idempotencyKey: 'k-refused',
      }),
    );
    assert.ok(error.cause instanceof Stripe.errors.StripeConnectionError);
    await providerFailure(
      stripe.refund({
        ref: 'pi_x',
        amount: 1,
        currency: 'usd',
        metadata: { ...metadata(), refundId: 'r' },
        idempotencyKey: 'k-refused-refund',
      }),
    );
    await providerFailure(stripe.cancelIntent('pi_x'));
  });

  test('a request that times out', async () => {
    stub.script({ kind: 'hang' });
    const started = Date.now();
    const error = await providerFailure(
      provider({ timeoutMs: 300, maxNetworkRetries: 0 }).createIntent({
        amount: 100,
        currency: 'usd',
        metadata: metadata(),
        idempotencyKey: 'k-timeout',
      }),
    );
    assert.ok(error.cause instanceof Stripe.errors.StripeConnectionError);
    assert.match(error.message, /timeout/);
    assert.ok(Date.now() - started < 5000);
  });
});

// ---------------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------------

const event = stripeEvent;
const signed = signStripe;

function intentObject(status: string, extra: JsonObject = {}): WithId {
  return {
    id: stripeId('pi'),
    object: 'payment_intent',
    amount: 4599,
    amount_received: status === 'succeeded' ? 4599 : 0,
    currency: 'eur',
    last_payment_error: null,
    livemode: false,
    metadata: metadata(),
    status,
    ...extra,
  };
}

function refundObject(status: string, extra: JsonObject = {}): WithId {
  return {
    id: stripeId('re'),
    object: 'refund',
    amount: 1500,
    charge: stripeId('ch'),
    currency: 'eur',
    metadata: { ...metadata(), refundId: 'c0ffee00-0000-4000-8000-000000000001' },
    payment_intent: stripeId('pi'),
    reason: null,
    status,
    ...extra,
  };
}

describe('StripeProvider.verifyWebhook', () => {
  const verify = (message: { body: Buffer; headers: Record<string, string | string[] | undefined> }) =>
    provider().verifyWebhook(message.body, message.headers);

  test('payment_intent.succeeded → payment.succeeded with the amount received', () => {
    const pi = intentObject('succeeded', { amount_received: 4500 });
    const evt = event('payment_intent.succeeded', pi);
    assert.deepEqual(verify(signed(evt)), {
      id: evt.id,
      kind: 'payment.succeeded',
      ref: pi.id,
      amount: 4500,
      metadata: metadata(),
    } satisfies ProviderEvent);

    const noReceived = intentObject('succeeded', { amount_received: 0 });
    const mapped = verify(signed(event('payment_intent.succeeded', noReceived)));
    assert.equal(mapped.kind === 'payment.succeeded' && mapped.amount, 4599);
  });

  test('payment_intent.payment_failed → payment.failed with the error code, else "failed"', () => {
    const declined = intentObject('requires_payment_method', {
      last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' },
    });
    const evt = event('payment_intent.payment_failed', declined);
    assert.deepEqual(verify(signed(evt)), {
      id: evt.id,
      kind: 'payment.failed',
      ref: declined.id,
      reason: 'card_declined',
      metadata: metadata(),
    } satisfies ProviderEvent);

    const bare = verify(
      signed(event('payment_intent.payment_failed', intentObject('requires_payment_method'))),
    );
    assert.equal(bare.kind === 'payment.failed' && bare.reason, 'failed');
  });

  test('refund.created / refund.updated / charge.refund.updated with status succeeded → refund.succeeded', () => {
    for (const type of ['refund.created', 'refund.updated', 'charge.refund.updated']) {
      const refund = refundObject('succeeded');
      const evt = event(type, refund);
      assert.deepEqual(
        verify(signed(evt)),
        {
          id: evt.id,
          kind: 'refund.succeeded',
          ref: refund.payment_intent as string,
          refundRef: refund.id,
          amount: 1500,
          metadata: { ...metadata(), refundId: 'c0ffee00-0000-4000-8000-000000000001' },
        } satisfies ProviderEvent,
        type,
      );
    }
  });

  test('a refund whose payment_intent is expanded uses the intent id', () => {
    const pi = intentObject('succeeded');
    const mapped = verify(signed(event('refund.updated', refundObject('succeeded', { payment_intent: pi }))));
    assert.equal(mapped.kind === 'refund.succeeded' && mapped.ref, pi.id);
  });

  test('refund status failed or canceled → refund.failed (refund.updated, refund.failed, charge.refund.updated)', () => {
    const cases = [
      ['refund.updated', 'failed'],
      ['refund.updated', 'canceled'],
      ['refund.failed', 'failed'],
      ['charge.refund.updated', 'canceled'],
    ] as const;
    for (const [type, status] of cases) {
      const refund = refundObject(status, { failure_reason: 'expired_or_canceled_card' });
      const evt = event(type, refund);
      assert.deepEqual(
        verify(signed(evt)),
        {
          id: evt.id,
          kind: 'refund.failed',
          ref: refund.payment_intent as string,
          refundRef: refund.id,
          metadata: { ...metadata(), refundId: 'c0ffee00-0000-4000-8000-000000000001' },
        } satisfies ProviderEvent,
        `${type} ${status}`,
      );
    }
  });

  test('everything else is ignored, with its type', () => {
    const cases: [string, JsonObject][] = [
      ['refund.created', refundObject('pending')],
      ['refund.updated', refundObject('requires_action')],
      ['refund.created', refundObject('succeeded', { payment_intent: null })],
      ['payment_intent.created', intentObject('requires_payment_method')],
      ['charge.succeeded', { id: stripeId('ch'), object: 'charge', amount: 100 }],
      ['customer.created', { id: 'cus_1', object: 'customer' }],
    ];
    for (const [type, object] of cases) {
      const evt = event(type, object);
      assert.deepEqual(verify(signed(evt)), { id: evt.id, kind: 'ignored', type }, type);
    }
  });

  test('payment_intent.processing is mirrored as payment.processing', () => {
    const intent = intentObject('processing');
    const evt = event('payment_intent.processing', intent);
    assert.deepEqual(verify(signed(evt)), {
      id: evt.id,
      kind: 'payment.processing',
      ref: intent.id,
      metadata: intent.metadata,
    });
  });

  test('the signature header is found whatever its case', () => {
    const message = signed(event('payment_intent.succeeded', intentObject('succeeded')));
    const mapped = verify({
      body: message.body,
      headers: { 'Stripe-Signature': message.headers['stripe-signature'] },
    });
    assert.equal(mapped.kind, 'payment.succeeded');
  });

  describe('rejections (WebhookSignatureError)', () => {
    const good = () => signed(event('payment_intent.succeeded', intentObject('succeeded')));
    const rejects = (message: { body: Buffer; headers: Record<string, string | string[] | undefined> }) =>
      assert.throws(() => verify(message), WebhookSignatureError);

    test('a tampered body', () => {
      const message = good();
      const tampered = Buffer.from(message.body.toString('utf8').replace('"amount": 4599', '"amount": 1'));
      assert.notDeepEqual(tampered, message.body);
      rejects({ body: tampered, headers: message.headers });
      // Even a whitespace change breaks the signature: the raw bytes are what is signed.
      rejects({
        body: Buffer.from(JSON.stringify(JSON.parse(message.body.toString()))),
        headers: message.headers,
      });
    });

    test('a signature made with another secret', () => {
      rejects(
        signed(event('payment_intent.succeeded', intentObject('succeeded')), { secret: 'whsec_other' }),
      );
    });

    test('an old timestamp (beyond the 300 s tolerance)', () => {
      rejects(
        signed(event('payment_intent.succeeded', intentObject('succeeded')), { timestamp: now() - 600 }),
      );
      // Within the tolerance is fine.
      const recent = signed(event('payment_intent.succeeded', intentObject('succeeded')), {
        timestamp: now() - 60,
      });
      assert.equal(verify(recent).kind, 'payment.succeeded');
    });

    test('a missing, empty, repeated or malformed header', () => {
      const { body, headers } = good();
      const signature = headers['stripe-signature']!;
      rejects({ body, headers: { 'content-type': 'application/json' } });
      rejects({ body, headers: { 'stripe-signature': '' } });
      rejects({ body, headers: { 'stripe-signature': [signature, signature] } });
      rejects({ body, headers: { 'stripe-signature': 'garbage' } });
      rejects({ body, headers: { 'stripe-signature': signature.replace(/v1=[0-9a-f]+/, 'v0=abc') } });
      rejects({ body: Buffer.alloc(0), headers });
    });

    test('a correctly signed body that is not a JSON event', () => {
      rejects(signed('not json at all'));
    });

    test('the rejection message carries neither secret', () => {
      const message = signed('{"id":"evt_1","object":"event"}', { secret: 'whsec_wrong' });
      assert.throws(
        () => verify(message),
        (error: unknown) =>
          error instanceof WebhookSignatureError &&
          !inspect(error).includes(WEBHOOK_SECRET) &&
          !inspect(error).includes(SECRET_KEY),
      );
    });
  });
});
