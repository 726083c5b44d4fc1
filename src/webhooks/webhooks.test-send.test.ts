import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type * as AjvTypes from 'ajv';
import { EVENT_TYPES, type EventType } from '../events/events.ts';
import { addStaffMember, openStaffSession } from '../staff/staff.service.ts';
import { createTestStore, startTestApp, waitFor, type TestApp, type TestStore } from '../test/harness.ts';
import type { Delivery } from './webhooks.schemas.ts';
import {
  as,
  emit,
  hmacHex,
  registerEndpoint,
  signaturesOf,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from './webhooks.test-support.ts';

const ENDPOINTS = '/admin/v1/webhooks/endpoints';
const DELIVERIES = '/admin/v1/webhooks/deliveries';

// CommonJS modules with `exports.default` (see src/http/ajv.ts).
const Ajv2020 = Ajv2020Module as unknown as new (options: AjvTypes.Options) => AjvTypes.default;
const addFormats = formatsModule as unknown as (ajv: AjvTypes.default) => AjvTypes.default;

let t: TestApp; // no worker loops: anything the receiver gets comes from the test send itself
let strict: TestApp; // https only, no loopback (the production default)
let hook: Receiver;
let failing: Receiver;
/** Validates a webhook body against its event's schema in the document this server serves. */
let validateEvent: (event: EventType, body: unknown) => string[];
before(async () => {
  [t, hook, failing] = await Promise.all([
    startTestApp({ config: webhookTestConfig() }),
    startReceiver(),
    startReceiver(() => ({ status: 500, body: 'boom' })),
  ]);
  // A second process on the same database with the production default: https only, no loopback.
  strict = await startTestApp({ db: t.db, config: webhookTestConfig({ allowHttp: false }) });

  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<object>();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  validateEvent = (event, body) => {
    const validate = ajv.compile({
      $ref: `openapi.json#/webhooks/${event}/post/requestBody/content/application~1json/schema`,
    });
    return validate(body)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  };
});
after(async () => {
  await strict.close();
  await Promise.all([t.close(), hook.close(), failing.close()]);
});

interface TestSendBody {
  eventId: string;
  deliveryId: string;
  event: string;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

function sendTest(
  app: TestApp,
  shop: TestStore,
  id: string,
  payload?: Record<string, unknown>,
  token?: string,
) {
  return app.app.inject({
    method: 'POST',
    url: `${ENDPOINTS}/${id}/test`,
    headers: as(token ?? shop.staffToken),
    ...(payload === undefined ? {} : { payload }),
  });
}

async function deliveriesOf(app: TestApp, shop: TestStore, endpointId: string): Promise<Delivery[]> {
  const response = await app.app.inject({
    method: 'GET',
    url: `${DELIVERIES}?endpointId=${endpointId}&limit=100`,
    headers: as(shop.staffToken),
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ items: Delivery[] }>().items;
}

describe('POST /admin/v1/webhooks/endpoints/:id/test', () => {
  test('sends one signed envelope of sample data now, marked as a test, and lists it as a test delivery', async () => {
    const shop = await createTestStore(t, { currency: 'EUR' });
    const endpoint = await registerEndpoint(t, shop, `${hook.url}/test-send`);
    const response = await sendTest(t, shop, endpoint.id, { event: 'order.paid' });
    assert.equal(response.statusCode, 200, response.body);
    const result = response.json<TestSendBody>();
    assert.equal(result.ok, true);
    assert.equal(result.statusCode, 204);
    assert.equal(result.error, null);
    assert.equal(result.event, 'order.paid');
    assert.ok(Number.isInteger(result.durationMs) && result.durationMs >= 0);

    const [request] = await hook.waitForRequests(1, (r) => r.body.id === result.eventId);
    assert.ok(request);
    assert.equal(request.path, new URL(`${hook.url}/test-send`).pathname);
    assert.deepEqual(Object.keys(request.body), ['id', 'event', 'createdAt', 'test', 'data']);
    assert.equal(request.body.event, 'order.paid');
    assert.equal(request.body.test, true);
    // Realistic data of the event, in this store's currency, about this store.
    const data = request.body.data as { storeId: string; orderId: string; number: number; total: object };
    assert.equal(data.storeId, shop.store.id);
    assert.match(data.orderId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(Number.isInteger(data.number) && data.number > 0);
    assert.deepEqual(data.total, { amount: 4200, currency: 'EUR' });
    assert.deepEqual(validateEvent('order.paid', request.body), []);
    assert.equal(request.headers['x-webhook-event'], 'order.paid');
    assert.equal(request.headers['x-webhook-id'], result.eventId);
    assert.equal(request.headers['x-webhook-delivery'], result.deliveryId);
    assert.equal(request.headers['x-webhook-attempt'], '1');
    assert.match(String(request.headers['x-webhook-timestamp']), /^\d{10}$/);
    assert.deepEqual(signaturesOf(request), [hmacHex(endpoint.secret, request.rawBody)]);

    const [delivery, ...others] = await deliveriesOf(t, shop, endpoint.id);
    assert.deepEqual(others, [], 'one delivery: the test');
    assert.ok(delivery);
    assert.equal(delivery.id, result.deliveryId);
    assert.equal(delivery.endpointId, endpoint.id);
    assert.equal(delivery.eventId, result.eventId);
    assert.equal(delivery.event, 'order.paid');
    assert.equal(delivery.kind, 'test');
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.lastStatusCode, 204);
    assert.equal(delivery.nextAttemptAt, null);
    assert.ok(delivery.deliveredAt);
    const one = await t.app.inject({
      method: 'GET',
      url: `${DELIVERIES}/${delivery.id}`,
      headers: as(shop.staffToken),
    });
    assert.deepEqual(one.json(), delivery);
    const events = await t.db.kysely
      .selectFrom('events')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.deepEqual(events, [], 'a test send records no event');
  });

  test("every event type's test payload is valid against its schema in the served /openapi.json", async () => {
    const shop = await createTestStore(t, { currency: 'JPY' });
    const endpoint = await registerEndpoint(t, shop, `${hook.url}/every-type`);
    const results: TestSendBody[] = [];
    for (const event of EVENT_TYPES) {
      const response = await sendTest(t, shop, endpoint.id, { event });
      assert.equal(response.statusCode, 200, response.body);
      results.push(response.json<TestSendBody>());
    }
    const requests = await hook.waitForRequests(EVENT_TYPES.length, (r) =>
      results.some((result) => result.eventId === r.body.id),
    );
    for (const event of EVENT_TYPES) {
      const request = requests.find((r) => r.body.event === event);
      assert.ok(request, `${event} was sent`);
      assert.equal(request.body.test, true, `${event} is marked as a test`);
      assert.equal(request.body.data.storeId, shop.store.id, `${event} is about this store`);
      assert.deepEqual(validateEvent(event, request.body), [], `${event}: ${JSON.stringify(request.body)}`);
    }
    // The validator is strict enough to catch the old payload, which carried no data of the event.
    const old = { id: results[0]!.eventId, event: 'order.paid', createdAt: new Date().toISOString() };
    assert.notDeepEqual(
      validateEvent('order.paid', { ...old, data: { storeId: shop.store.id, test: true } }),
      [],
    );
    const listed = await deliveriesOf(t, shop, endpoint.id);
    assert.equal(listed.length, EVENT_TYPES.length);
    assert.ok(listed.every((delivery) => delivery.kind === 'test' && delivery.status === 'delivered'));
    assert.deepEqual(new Set(listed.map((delivery) => delivery.event)), new Set(EVENT_TYPES));
  });

  test('without a body it sends the first subscribed event type (product.updated for *)', async () => {
    const shop = await createTestStore(t);
    const paidOnly = await registerEndpoint(t, shop, `${hook.url}/paid`, ['inventory.updated', 'order.paid']);
    const first = await sendTest(t, shop, paidOnly.id);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json<TestSendBody>().event, 'inventory.updated');
    const all = await registerEndpoint(t, shop, `${hook.url}/all`);
    const second = await sendTest(t, shop, all.id, {});
    assert.equal(second.json<TestSendBody>().event, 'product.updated');
  });

  test('a failing test is listed as failed, never retried by the relay, and reaches no other endpoint', async () => {
    // A relay runs on the same database: it would send again anything it could claim.
    const relay = await startTestApp({ db: t.db, workers: true, config: webhookTestConfig() });
    try {
      const shop = await createTestStore(t);
      const down = await registerEndpoint(t, shop, `${failing.url}/down`);
      const other = await registerEndpoint(t, shop, `${hook.url}/other`);
      const response = await sendTest(t, shop, down.id);
      assert.equal(response.statusCode, 200);
      const result = response.json<TestSendBody>();
      assert.equal(result.ok, false);
      assert.equal(result.statusCode, 500);
      assert.ok(result.error && result.error.length > 0);

      // A real event goes to both endpoints; once the failing one has used up its retries (three
      // 50 ms retries), the relay has had every chance to send the test again.
      const real = await emit(t, shop.store.id, 'product.updated', { productId: shop.store.id });
      await waitFor(
        async () =>
          (await deliveriesOf(t, shop, down.id)).find((d) => d.eventId === real.id && d.status === 'failed'),
        10_000,
        'the real delivery to the failing endpoint to give up',
      );
      await hook.waitForRequests(1, (r) => r.body.id === real.id);
      assert.equal(failing.requests.filter((r) => r.body.id === result.eventId).length, 1, 'sent once');
      assert.equal(hook.requests.filter((r) => r.body.id === result.eventId).length, 0, 'not fanned out');
      assert.deepEqual(
        (await deliveriesOf(t, shop, other.id)).map((d) => d.kind),
        ['event'],
        'the other endpoint has no test delivery',
      );

      const test = (await deliveriesOf(t, shop, down.id)).find((d) => d.id === result.deliveryId);
      assert.ok(test);
      assert.equal(test.kind, 'test');
      assert.equal(test.status, 'failed');
      assert.equal(test.attempts, 1);
      assert.equal(test.lastStatusCode, 500);
      assert.match(test.lastError ?? '', /boom/);
      assert.ok(test.failedAt);

      const retry = await t.app.inject({
        method: 'POST',
        url: `${DELIVERIES}/${test.id}/retry`,
        headers: as(shop.staffToken),
      });
      assert.equal(retry.statusCode, 409, retry.body);
      assert.equal(retry.json<{ title: string }>().title, 'test_delivery_not_retryable');

      // A failed test is no delivery waiting for a retry: the console's home counts only the real one.
      const overview = await t.app.inject({
        method: 'GET',
        url: `/admin/v1/overview?since=${encodeURIComponent(new Date(0).toISOString())}`,
        headers: as(shop.staffToken),
      });
      assert.equal(overview.statusCode, 200, overview.body);
      assert.equal(overview.json<{ failedWebhookDeliveries: number }>().failedWebhookDeliveries, 1);
    } finally {
      await relay.close();
    }
  });

  test('during a secret rotation both signatures are sent', async () => {
    const shop = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, `${hook.url}/rotating`);
    const rotated = await t.app.inject({
      method: 'POST',
      url: `${ENDPOINTS}/${endpoint.id}/rotate-secret`,
      headers: as(shop.staffToken),
    });
    const { secret } = rotated.json<{ secret: string }>();
    const result = (await sendTest(t, shop, endpoint.id)).json<TestSendBody>();
    const [request] = await hook.waitForRequests(1, (r) => r.body.id === result.eventId);
    assert.deepEqual(signaturesOf(request!), [
      hmacHex(secret, request!.rawBody),
      hmacHex(endpoint.secret, request!.rawBody),
    ]);
  });

  test('an address the relay may not reach is refused at connect time, without a request', async () => {
    const shop = await createTestStore(t);
    // Registered through the process that allows loopback http; sent from one that does not.
    const endpoint = await registerEndpoint(t, shop, `${hook.url}/ssrf`);
    const before = hook.requests.length;
    const response = await sendTest(strict, shop, endpoint.id);
    assert.equal(response.statusCode, 200, response.body);
    const result = response.json<TestSendBody>();
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, null);
    assert.match(String(result.error), /refused/);
    assert.equal(hook.requests.length, before);
  });

  test('unknown event types are 400, other stores 404, the staff role 403', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, `${hook.url}/rules`);
    assert.equal((await sendTest(t, shop, endpoint.id, { event: 'order.shipped' })).statusCode, 400);
    assert.equal((await sendTest(t, shop, endpoint.id, { event: '*' })).statusCode, 400);
    assert.equal((await sendTest(t, shop, endpoint.id, { extra: 1 })).statusCode, 400);
    assert.equal((await sendTest(t, other, endpoint.id)).statusCode, 404);
    assert.equal((await sendTest(t, shop, 'not-a-uuid')).statusCode, 400);
    const email = `staff-${Math.random().toString(36).slice(2)}@example.com`;
    await addStaffMember(t.deps, shop.store.id, { email, role: 'staff' });
    const staff = await openStaffSession(t.deps, shop.store.id, email);
    assert.equal((await sendTest(t, shop, endpoint.id, undefined, staff.token)).statusCode, 403);
  });
});
