/**
 * A local stand-in for api.stripe.com (node:http on 127.0.0.1) for tests: the real `stripe` SDK
 * sends real form-encoded requests, the stub answers with Stripe-shaped JSON. Payment intents,
 * refunds, idempotency keys, auth, and scripted failures. No network.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { STRIPE_API_VERSION } from './stripe.provider.ts';

export const SECRET_KEY = `sk_test_${randomBytes(18).toString('hex')}`;
export const WEBHOOK_SECRET = `whsec_${randomBytes(18).toString('hex')}`;

// ---------------------------------------------------------------------------------------------
// A minimal Stripe API: payment intents, refunds, idempotency keys, auth, scripted failures.
// ---------------------------------------------------------------------------------------------

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  form: Record<string, string>;
}

export type JsonObject = Record<string, unknown>;

export type Scripted =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'text'; status: number; body: string }
  | { kind: 'hang' };

export const stripeId = (prefix: string) => `${prefix}_3Q${randomBytes(12).toString('base64url')}`;
export const now = () => Math.floor(Date.now() / 1000);

export function apiError(type: string, message: string, extra: JsonObject = {}) {
  return { error: { type, message, ...extra } };
}

export class StripeStub {
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

/** A Stripe event envelope around an API object. */
export function stripeEvent(type: string, object: JsonObject): JsonObject & { id: string } {
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

/** A webhook request as Stripe sends it: the body and its `stripe-signature` (the SDK's own signer). */
export function signStripe(
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
