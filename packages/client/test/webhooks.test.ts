/**
 * verifyWebhook against real deliveries: the service's relay posts signed events to a local HTTP
 * receiver (registered through the admin client), and the raw body and headers it captured are
 * verified, tampered with, and checked across a secret rotation.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '@storefront/client';
import {
  emit,
  startReceiver,
  webhookTestConfig,
  type Receiver,
  type ReceivedRequest,
} from '../../../src/webhooks/webhooks.test-support.ts';
import { createProduct, openShop, startLiveApp, type LiveApp } from './server.test-support.ts';

let live: LiveApp;
let hook: Receiver;
before(async () => {
  live = await startLiveApp({ config: webhookTestConfig() });
  hook = await startReceiver();
});
after(async () => {
  await hook.close();
  await live.close();
});

/** Node's req.headers of a captured request, as a receiver gets them. */
type NodeHeaders = Record<string, string | string[] | undefined>;

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationReason> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    return error.reason;
  }
  assert.fail('expected verifyWebhook to refuse the request');
}

const otherSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Runs `trigger` (which returns the id of the resource it changed) and waits for the new delivery of `event` about it. */
async function delivery(trigger: () => Promise<string>, event: string): Promise<ReceivedRequest> {
  const earlier = new Set(hook.requests);
  const resourceId = await trigger();
  const [request] = await hook.waitForRequests(
    1,
    (r) => !earlier.has(r) && r.body.event === event && Object.values(r.body.data).includes(resourceId),
  );
  return request!;
}

describe('verifyWebhook on real deliveries', () => {
  test('accepts a real delivery (Buffer or string body, Node headers or Headers) and returns the typed envelope', async () => {
    const { admin, shop } = await openShop(live);
    const endpoint = await admin.webhookEndpoints.create({ url: hook.url, events: ['product.created'] });
    assert.match(endpoint.secret, /^whsec_/);
    let productId = '';
    const request = await delivery(
      async () => (productId = (await createProduct(admin, { title: 'Signed' })).id),
      'product.created',
    );

    const event = await verifyWebhook(request.rawBody, request.headers, endpoint.secret);
    assert.equal(event.event, 'product.created');
    assert.equal(event.id, request.headers['x-webhook-id']);
    assert.equal(event.data.storeId, shop.store.id);
    assert.equal(event.data.productId, productId);
    assert.match(event.createdAt, /^\d{4}-\d{2}-\d{2}T/);

    const fetchHeaders = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === 'string') fetchHeaders.set(name, value);
    const again = await verifyWebhook(request.rawBody.toString('utf8'), fetchHeaders, [
      otherSecret(),
      endpoint.secret,
    ]);
    assert.deepEqual(again, event, 'any of several secrets may match');
  });

  test('refuses a tampered body, a wrong secret, and missing or malformed signatures, before parsing', async () => {
    const { admin } = await openShop(live);
    const endpoint = await admin.webhookEndpoints.create({ url: hook.url, events: ['product.created'] });
    const request = await delivery(async () => (await createProduct(admin)).id, 'product.created');
    const headers = request.headers as NodeHeaders;

    const tampered = Buffer.from(request.rawBody);
    const at = tampered.indexOf('"storeId"');
    tampered[at + 1] = 'S'.charCodeAt(0);
    assert.equal(await refusal(verifyWebhook(tampered, headers, endpoint.secret)), 'signature_mismatch');
    const reformatted = JSON.stringify(JSON.parse(request.rawBody.toString('utf8')), null, 2);
    assert.equal(
      await refusal(verifyWebhook(reformatted, headers, endpoint.secret)),
      'signature_mismatch',
      'the exact raw bytes are signed, not the JSON value',
    );
    assert.equal(await refusal(verifyWebhook(request.rawBody, headers, otherSecret())), 'signature_mismatch');
    const withoutPrefix = endpoint.secret.slice('whsec_'.length);
    assert.equal(
      await refusal(verifyWebhook(request.rawBody, headers, withoutPrefix)),
      'signature_mismatch',
      'the key is the secret as shown, whsec_ included',
    );
    assert.equal(await refusal(verifyWebhook(request.rawBody, headers, [])), 'missing_secret');
    const { ['x-webhook-signature']: _dropped, ...unsigned } = headers;
    assert.equal(
      await refusal(verifyWebhook(request.rawBody, unsigned, endpoint.secret)),
      'missing_signature',
    );
    assert.equal(
      await refusal(
        verifyWebhook(request.rawBody, { ...headers, 'x-webhook-signature': 'zz' }, endpoint.secret),
      ),
      'malformed_signature',
    );
    const twice = [String(headers['x-webhook-signature']), String(headers['x-webhook-signature'])];
    assert.equal(
      await refusal(
        verifyWebhook(request.rawBody, { ...headers, 'x-webhook-signature': twice }, endpoint.secret),
      ),
      'malformed_signature',
      'the header is exactly one value',
    );
    // Not JSON at all: refused for its signature, never a parse error.
    assert.equal(await refusal(verifyWebhook('{not json', headers, endpoint.secret)), 'signature_mismatch');
  });

  test('during a rotation both secrets verify; after the 24 h window only the new one does', async () => {
    const { admin, shop } = await openShop(live);
    const endpoint = await admin.webhookEndpoints.create({ url: hook.url, events: ['*'] });
    const old = endpoint.secret;
    const product = await createProduct(admin);
    const rotated = await admin.webhookEndpoints.rotateSecret(endpoint.id);
    const fresh = rotated.secret;
    assert.notEqual(fresh, old);

    const during = await delivery(
      async () => (await admin.products.update(product.id, { title: 'Renamed' })).id,
      'product.updated',
    );
    const headers = during.headers as NodeHeaders;
    assert.ok(headers['x-webhook-signature-previous'], 'signed with both secrets');
    assert.equal(
      (await verifyWebhook(during.rawBody, headers, old)).event,
      'product.updated',
      'the old secret',
    );
    assert.equal(
      (await verifyWebhook(during.rawBody, headers, fresh)).event,
      'product.updated',
      'the new secret',
    );
    assert.equal((await verifyWebhook(during.rawBody, headers, [old, fresh])).event, 'product.updated');
    assert.equal(await refusal(verifyWebhook(during.rawBody, headers, otherSecret())), 'signature_mismatch');
    const { ['x-webhook-signature-previous']: _previous, ...currentOnly } = headers;
    assert.equal(
      await refusal(verifyWebhook(during.rawBody, currentOnly, old)),
      'signature_mismatch',
      'the old secret verifies through x-webhook-signature-previous',
    );

    const day = 24 * 60 * 60 * 1000 + 1000;
    live.t.clock.advance(day);
    try {
      // The staff session has expired by now: record the event as the catalog would.
      const afterWindow = await delivery(async () => {
        await emit(
          live.t,
          shop.store.id,
          'product.updated',
          { productId: product.id },
          `product:${product.id}`,
        );
        return product.id;
      }, 'product.updated');
      const now = () => live.t.clock.now().getTime();
      assert.equal(afterWindow.headers['x-webhook-signature-previous'], undefined);
      assert.equal(
        (await verifyWebhook(afterWindow.rawBody, afterWindow.headers as NodeHeaders, fresh, { now })).event,
        'product.updated',
      );
      assert.equal(
        await refusal(verifyWebhook(afterWindow.rawBody, afterWindow.headers as NodeHeaders, old, { now })),
        'signature_mismatch',
      );
    } finally {
      live.t.clock.advance(-day);
    }
  });

  test('the timestamp: a stale request is refused, a rewritten timestamp fails its signature, the check can be required or turned off', async () => {
    const { admin } = await openShop(live);
    const endpoint = await admin.webhookEndpoints.create({ url: hook.url, events: ['*'] });
    const tested = await admin.webhookEndpoints.sendTest(endpoint.id, { event: 'order.paid' });
    assert.equal(tested.ok, true, 'the test send reached the receiver');
    const [request] = await hook.waitForRequests(1, (r) => r.body.id === tested.eventId);
    const headers = request!.headers as NodeHeaders;
    const sentAt = Number(headers['webhook-timestamp']) * 1000;
    const event = await verifyWebhook(request!.rawBody, headers, endpoint.secret);
    assert.equal(event.event, 'order.paid');
    assert.equal(event.test, true, 'the envelope marks a test send');

    const sixMinutesLater = () => sentAt + 6 * 60 * 1000;
    assert.equal(
      await refusal(verifyWebhook(request!.rawBody, headers, endpoint.secret, { now: sixMinutesLater })),
      'timestamp_out_of_tolerance',
      'default tolerance 300 s',
    );
    await verifyWebhook(request!.rawBody, headers, endpoint.secret, {
      now: sixMinutesLater,
      toleranceSeconds: 600,
    });
    await verifyWebhook(request!.rawBody, headers, endpoint.secret, {
      now: sixMinutesLater,
      toleranceSeconds: null,
    });

    // A replayer who rewrites the timestamp cannot re-sign it: webhook-signature binds it.
    const fresh = String(Math.floor(sixMinutesLater() / 1000));
    const rewritten = { ...headers, 'webhook-timestamp': fresh, 'x-webhook-timestamp': fresh };
    assert.equal(
      await refusal(verifyWebhook(request!.rawBody, rewritten, endpoint.secret, { now: sixMinutesLater })),
      'timestamp_signature_mismatch',
    );
    assert.equal(
      await refusal(
        verifyWebhook(request!.rawBody, { ...headers, 'webhook-timestamp': 'soon' }, endpoint.secret),
      ),
      'malformed_timestamp',
    );
    const {
      ['webhook-signature']: _standard,
      ['webhook-timestamp']: _timestamp,
      ['webhook-id']: _id,
      ...bodySignatureOnly
    } = headers;
    await verifyWebhook(request!.rawBody, bodySignatureOnly, endpoint.secret);
    assert.equal(
      await refusal(
        verifyWebhook(request!.rawBody, bodySignatureOnly, endpoint.secret, { requireSignedTimestamp: true }),
      ),
      'missing_timestamp',
    );
    await verifyWebhook(request!.rawBody, headers, endpoint.secret, { requireSignedTimestamp: true });
  });
});
