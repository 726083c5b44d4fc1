import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { addStaffMember, openStaffSession } from '../staff/staff.service.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import {
  as,
  hmacHex,
  registerEndpoint,
  signaturesOf,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from './webhooks.test-support.ts';

const ENDPOINTS = '/admin/v1/webhooks/endpoints';

let t: TestApp; // no worker loops: anything the receiver gets comes from the test send itself
let strict: TestApp; // https only, no loopback (the production default)
let hook: Receiver;
let failing: Receiver;
before(async () => {
  [t, hook, failing] = await Promise.all([
    startTestApp({ config: webhookTestConfig() }),
    startReceiver(),
    startReceiver(() => ({ status: 500, body: 'boom' })),
  ]);
  // A second process on the same database with the production default: https only, no loopback.
  strict = await startTestApp({ db: t.db, config: webhookTestConfig({ allowHttp: false }) });
});
after(async () => {
  await strict.close();
  await Promise.all([t.close(), hook.close(), failing.close()]);
});

interface TestSendBody {
  eventId: string;
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

describe('POST /admin/v1/webhooks/endpoints/:id/test', () => {
  test('sends one signed envelope now and reports the answer; nothing is stored', async () => {
    const shop = await createTestStore(t);
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
    assert.deepEqual(Object.keys(request.body), ['id', 'event', 'createdAt', 'data']);
    assert.equal(request.body.event, 'order.paid');
    assert.deepEqual(request.body.data, { storeId: shop.store.id, test: true });
    assert.equal(request.headers['x-webhook-event'], 'order.paid');
    assert.equal(request.headers['x-webhook-id'], result.eventId);
    assert.equal(request.headers['x-webhook-attempt'], '1');
    assert.match(String(request.headers['x-webhook-timestamp']), /^\d{10}$/);
    assert.deepEqual(signaturesOf(request), [hmacHex(endpoint.secret, request.rawBody)]);

    const deliveries = await t.app.inject({
      method: 'GET',
      url: `/admin/v1/webhooks/deliveries?endpointId=${endpoint.id}`,
      headers: as(shop.staffToken),
    });
    assert.deepEqual(deliveries.json<{ items: unknown[] }>().items, [], 'a test send is not a delivery');
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

  test('a failing endpoint is reported, not retried', async () => {
    const shop = await createTestStore(t);
    const endpoint = await registerEndpoint(t, shop, `${failing.url}/down`);
    const response = await sendTest(t, shop, endpoint.id);
    assert.equal(response.statusCode, 200);
    const result = response.json<TestSendBody>();
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 500);
    assert.ok(result.error && result.error.length > 0);
    await sleep(300); // the test retry schedule is 50 ms: a retry would have come by now
    assert.equal(failing.requests.filter((r) => r.body.id === result.eventId).length, 1);
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
