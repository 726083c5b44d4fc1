/**
 * Deliveries verified the two ways a receiver may (decision `webhook-signatures`): the specification's single
 * `x-webhook-signature` compared literally with the receiver's own HMAC, and the Standard Webhooks
 * headers checked by the official `standardwebhooks` verifier, before, during and after a secret
 * rotation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import {
  as,
  emit,
  hmacHex,
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type ReceivedRequest,
  type Receiver,
} from './webhooks.test-support.ts';

let t: TestApp;
let hook: Receiver;
before(async () => {
  t = await startTestApp({ workers: true, config: webhookTestConfig() });
  hook = await startReceiver();
});
after(async () => {
  await hook.close();
  await t.close();
});

const standardHeaders = (request: ReceivedRequest) => ({
  'webhook-id': String(request.headers['webhook-id']),
  'webhook-timestamp': String(request.headers['webhook-timestamp']),
  'webhook-signature': String(request.headers['webhook-signature']),
});

/** What a receiver that reads the spec literally does: its HMAC equals the header, exactly. */
const literalReceiverAccepts = (secret: string, request: ReceivedRequest): boolean =>
  request.headers['x-webhook-signature'] === hmacHex(secret, request.rawBody);

describe('Standard Webhooks and the spec header (decision `webhook-signatures`)', () => {
  test('the official verifier accepts every delivery; a spec-literal receiver too, also during a rotation', async () => {
    const shop = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, `${hook.url}/standard`);
    const before = await emit(t, shop.store.id, 'product.updated', { productId: 'p1' }, 'product:p1');
    const [plain] = await hook.waitForRequests(1, (r) => r.body.id === before.id);
    assert.equal(plain!.headers['webhook-id'], before.id);
    assert.equal(plain!.headers['webhook-timestamp'], plain!.headers['x-webhook-timestamp']);
    assert.match(String(plain!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/, 'one signature');
    const verified = new Webhook(endpoint.secret).verify(
      plain!.rawBody.toString('utf8'),
      standardHeaders(plain!),
    );
    assert.deepEqual(verified, JSON.parse(plain!.rawBody.toString('utf8')));
    assert.ok(literalReceiverAccepts(endpoint.secret, plain!));

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`,
      headers: as(shop.staffToken),
    });
    const { secret } = rotated.json<{ secret: string }>();
    const during = await emit(t, shop.store.id, 'product.updated', { productId: 'p2' }, 'product:p2');
    const [both] = await hook.waitForRequests(1, (r) => r.body.id === during.id);
    assert.match(
      String(both!.headers['webhook-signature']),
      /^v1,\S+ v1,\S+$/,
      'both secrets during a rotation',
    );
    // A receiver on the new secret and one still on the old: both verify with the official library …
    for (const key of [secret, endpoint.secret]) {
      new Webhook(key).verify(both!.rawBody.toString('utf8'), standardHeaders(both!));
    }
    // … and with the spec headers: the new secret's value in x-webhook-signature, exactly one.
    assert.ok(literalReceiverAccepts(secret, both!));
    assert.equal(both!.headers['x-webhook-signature-previous'], hmacHex(endpoint.secret, both!.rawBody));
  });

  test('the verifier rejects a tampered body, a wrong secret and a replay outside its tolerance', async () => {
    const shop = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, `${hook.url}/tamper`);
    const event = await emit(t, shop.store.id, 'order.paid', { orderId: 'o1' }, 'order:o1');
    const [request] = await hook.waitForRequests(1, (r) => r.body.id === event.id);
    const body = request!.rawBody.toString('utf8');
    const headers = standardHeaders(request!);
    const webhook = new Webhook(endpoint.secret);
    assert.throws(() => webhook.verify(body.replace('o1', 'o2'), headers), WebhookVerificationError);
    assert.throws(
      () => new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(body, headers),
      WebhookVerificationError,
    );
    const old = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 600) };
    assert.throws(() => webhook.verify(body, old), WebhookVerificationError, 'replayed ten minutes later');
  });
});
