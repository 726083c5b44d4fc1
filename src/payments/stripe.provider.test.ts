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

const SECRET_KEY = `sk_test_${randomBytes(18).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(18).toString('hex')}`;

// ---------------------------------------------------------------------------------------------
// A minimal Stripe API: payment intents, refunds, idempotency keys, auth, scripted failures.
// ---------------------------------------------------------------------------------------------

interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  form: Record<string, string>;
}

type JsonObject = Record<string, unknown>;
type WithId = JsonObject & { id: string };

type Scripted =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'text'; status: number; body: string }
  | { kind: 'hang' };

const stripeId = (prefix: string) => `${prefix}_3Q${randomBytes(12).toString('base64url')}`;
const now = () => Math.floor(Date.now() / 1000);

function apiError(type: string, message: string, extra: JsonObject = {}) {
  return { error: { type, message, ...extra } };
}

class StripeStub {
  readonly requests: RecordedRequest[] = [];
  readonly intents = new Map<string, JsonObject>();
  readonly refunds = new Map<string, JsonObject>();
  readonly #idempotent = new Map<string, { path: string; body: string; status: number; json: unknown }>();
  readonly #script: Scripted[] = [];
  readonly #server = http.createServer((req, res) => void this.#handle(req, res));
  #hanging: http.ServerResponse[] = [];

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The next requests (in order) get these answers instead of the API's. */
  script(...responses: Scripted[]): void {
    this.#script.push(...responses);
  }

  reset(): void {
    this.requests.length = 0;
    this.#script.length = 0;
  }

  /** Simulates what the buyer's confirmation (or Stripe) does to an intent. */
  setStatus(ref: string, status: string, extra: JsonObject = {}): void {
    const intent = this.intents.get(ref);
    assert.ok(intent, `no stub intent ${ref}`);
    Object.assign(intent, { status, ...extra });
    if (status === 'succeeded') intent.amount_received = intent.amount;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://stub');
    const form = Object.fromEntries(new URLSearchParams(raw));
    const method = req.method ?? 'GET';
    this.requests.push({ method, path: url.pathname, headers: req.headers, form });

    const scripted = this.#script.shift();
    if (scripted?.kind === 'hang') {
      this.#hanging.push(res);
      return;
    }
    if (scripted?.kind === 'text') {
      res.writeHead(scripted.status, { 'content-type': 'text/html' }).end(scripted.body);
      return;
    }
    if (scripted?.kind === 'json') {
      this.#send(res, scripted.status, scripted.body, scripted.headers);
      return;
    }

    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${SECRET_KEY}`) {
      const given = auth.replace(/^Bearer /, '');
      // Stripe masks all but the last four characters of a wrong key.
      const masked = `${given.slice(0, 8)}${'*'.repeat(Math.max(0, given.length - 12))}${given.slice(-4)}`;
      this.#send(res, 401, apiError('invalid_request_error', `Invalid API Key provided: ${masked}`));
      return;
    }

    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && method === 'POST') {
      const seen = this.#idempotent.get(key);
      if (seen) {
        if (seen.path !== url.pathname || seen.body !== raw) {
          this.#send(
            res,
            400,
            apiError(
              'idempotency_error',
              `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            ),
          );
          return;
        }
        this.#send(res, seen.status, seen.json, { 'idempotent-replayed': 'true' });
        return;
      }
    }
    const [status, json] = this.#route(method, url.pathname, form);
    if (typeof key === 'string' && method === 'POST') {
      this.#idempotent.set(key, { path: url.pathname, body: raw, status, json: structuredClone(json) });
    }
    this.#send(res, status, json);
  }

  #send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res
      .writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${randomBytes(7).toString('hex')}`,
        'stripe-version': STRIPE_API_VERSION,
        ...headers,
      })
      .end(JSON.stringify(body, null, 2));
  }

  #route(method: string, path: string, form: Record<string, string>): [number, unknown] {
    const metadata = Object.fromEntries(
      Object.entries(form)
        .map(([k, v]) => [/^metadata\[(.+)\]$/.exec(k)?.[1], v] as const)
        .filter((entry): entry is [string, string] => entry[0] !== undefined),
    );
    if (method === 'POST' && path === '/v1/payment_intents') {
      const id = stripeId('pi');
      const intent = {
        id,
        object: 'payment_intent',
        amount: Number(form.amount),
        amount_capturable: 0,
        amount_details: { tip: {} },
        amount_received: 0,
        application: null,
        application_fee_amount: null,
        automatic_payment_methods:
          form['automatic_payment_methods[enabled]'] === 'true'
            ? { allow_redirects: 'always', enabled: true }
            : null,
        canceled_at: null,
        cancellation_reason: null,
        capture_method: 'automatic_async',
        client_secret: `${id}_secret_${randomBytes(12).toString('base64url')}`,
        confirmation_method: 'automatic',
        created: now(),
        currency: form.currency,
        customer: null,
        description: null,
        last_payment_error: null,
        latest_charge: null,
        livemode: false,
        metadata,
        next_action: null,
        on_behalf_of: null,
        payment_method: null,
        payment_method_options: {},
        payment_method_types: ['card', 'link'],
        processing: null,
        receipt_email: null,
        review: null,
        setup_future_usage: null,
        shipping: null,
        statement_descriptor: null,
        statement_descriptor_suffix: null,
        status: 'requires_payment_method',
        transfer_data: null,
        transfer_group: null,
      };
      this.intents.set(id, intent);
      return [200, intent];
    }
    const refundPath = /^\/v1\/refunds\/([^/]+)$/.exec(path);
    if (method === 'GET' && refundPath) {
      const refund = this.refunds.get(decodeURIComponent(refundPath[1]!));
      return refund
        ? [200, refund]
        : [
            404,
            apiError('invalid_request_error', `No such refund: '${refundPath[1]!}'`, {
              code: 'resource_missing',
              param: 'id',
            }),
          ];
    }
    const intentPath = /^\/v1\/payment_intents\/([^/]+)(\/cancel)?$/.exec(path);
    if (intentPath) {
      const intent = this.intents.get(decodeURIComponent(intentPath[1]!));
      if (!intent) {
        return [
          404,
          apiError('invalid_request_error', `No such payment_intent: '${intentPath[1]}'`, {
            code: 'resource_missing',
            param: 'intent',
          }),
        ];
      }
      if (method === 'GET' && !intentPath[2]) return [200, intent];
      if (method === 'POST' && intentPath[2]) {
        const cancelable = [
          'requires_payment_method',
          'requires_capture',
          'requires_confirmation',
          'requires_action',
        ];
        if (!cancelable.includes(String(intent.status))) {
          return [
            400,
            apiError(
              'invalid_request_error',
              `You cannot cancel this PaymentIntent because it has a status of ${String(intent.status)}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelable.join(', ')}, processing.`,
              { code: 'payment_intent_unexpected_state', payment_intent: intent },
            ),
          ];
        }
        Object.assign(intent, { status: 'canceled', canceled_at: now(), cancellation_reason: null });
        return [200, intent];
      }
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = this.intents.get(form.payment_intent ?? '');
      if (!intent) {
        return [
          404,
          apiError('invalid_request_error', `No such payment_intent: '${form.payment_intent}'`, {
            code: 'resource_missing',
            param: 'payment_intent',
          }),
        ];
      }
      const refunded = [...this.refunds.values()]
        .filter((r) => r.payment_intent === intent.id)
        .reduce((sum, r) => sum + Number(r.amount), 0);
      const amount =
        form.amount === undefined ? Number(intent.amount_received) - refunded : Number(form.amount);
      if (intent.status !== 'succeeded' || refunded + amount > Number(intent.amount_received)) {
        return [
          400,
          apiError(
            'invalid_request_error',
            `Refund amount (${amount}) is greater than unrefunded amount on charge (${Number(intent.amount_received) - refunded})`,
            { code: 'amount_too_large', param: 'amount' },
          ),
        ];
      }
      const refund = {
        id: stripeId('re'),
        object: 'refund',
        amount,
        balance_transaction: stripeId('txn'),
        charge: stripeId('ch'),
        created: now(),
        currency: intent.currency,
        destination_details: { card: { type: 'refund' }, type: 'card' },
        metadata,
        payment_intent: intent.id,
        reason: null,
        receipt_number: null,
        source_transfer_reversal: null,
        status: 'succeeded',
        transfer_reversal: null,
      };
      this.refunds.set(refund.id, refund);
      return [200, refund];
    }
    return [404, apiError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`)];
  }
}

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
      requires_payment_method: 'pending',
      requires_confirmation: 'pending',
      requires_action: 'pending',
      processing: 'processing',
      requires_capture: 'processing',
      succeeded: 'succeeded',
      canceled: 'canceled',
    } as const;
    for (const [stripeStatus, status] of Object.entries(expected)) {
      stub.setStatus(ref, stripeStatus);
      assert.deepEqual(await stripe.retrieveIntent(ref), { status, amount: 2500 }, stripeStatus);
    }
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

function event(type: string, object: JsonObject): WithId {
  return {
    id: stripeId('evt'),
    object: 'event',
    api_version: STRIPE_API_VERSION,
    created: now(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_${randomBytes(7).toString('hex')}`, idempotency_key: null },
    type,
  };
}

function signed(
  body: JsonObject | string,
  options: { secret?: string; timestamp?: number } = {},
): { body: Buffer; headers: Record<string, string> } {
  const payload = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
  });
  return {
    body: Buffer.from(payload),
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
  };
}

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
      ['payment_intent.processing', intentObject('processing')],
      ['charge.succeeded', { id: stripeId('ch'), object: 'charge', amount: 100 }],
      ['customer.created', { id: 'cus_1', object: 'customer' }],
    ];
    for (const [type, object] of cases) {
      const evt = event(type, object);
      assert.deepEqual(verify(signed(evt)), { id: evt.id, kind: 'ignored', type }, type);
    }
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
