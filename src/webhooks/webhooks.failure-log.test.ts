/**
 * A receiver that is down fails every attempt to it: the relay logs its failures once per interval
 * per endpoint (and its dead letters apart), with the count of the others, while every delivery
 * keeps its own last error for the console and the API.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestStore, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { FAILURE_LOG_INTERVAL_MS } from './webhooks.relay.ts';
import { as, emit, registerEndpoint, startReceiver, webhookTestConfig } from './webhooks.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ workers: true, config: webhookTestConfig({ timeoutMs: 5000 }) });
});
after(() => t.close());

interface Delivery {
  endpointId: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
}

test('a receiver that is down: a bounded number of log lines, every delivery keeps its last error', async () => {
  const shop = await createTestStore(t);
  // One endpoint whose port refuses connections, one that answers 500 to everything.
  const gone = await startReceiver();
  const refusing = gone.url;
  await gone.close();
  const failing = await startReceiver(() => ({ status: 500 }));
  try {
    const down = await registerEndpoint(t, shop, refusing);
    const erring = await registerEndpoint(t, shop, failing.url);
    const started = Date.now();
    const EVENTS = 25;
    for (let i = 0; i < EVENTS; i++) await emit(t, shop.store.id, 'product.updated', { i }, `product:${i}`);
    // Four attempts each (WEBHOOK_RETRY_SCHEDULE of three retries), to both endpoints.
    const attempts = EVENTS * 2 * 4;
    const failed = await waitFor(
      async () => {
        const response = await t.app.inject({
          url: '/admin/v1/webhooks/deliveries?status=failed&limit=100',
          headers: as(shop.staffToken),
        });
        const items = response.json<{ items: Delivery[] }>().items;
        return items.length === EVENTS * 2 ? items : undefined;
      },
      60_000,
      'every delivery to fail for good',
    );
    const minutes = Math.floor((Date.now() - started) / FAILURE_LOG_INTERVAL_MS) + 1;

    // Each delivery's record is whole: its attempts and its last error, for the console and the API.
    for (const delivery of failed) {
      assert.equal(delivery.attempts, 4);
      if (delivery.endpointId === down.id) {
        assert.equal(delivery.lastStatusCode, null);
        assert.match(String(delivery.lastError), /ECONNREFUSED|refused/i);
      } else {
        assert.equal(delivery.endpointId, erring.id);
        // 500, or a timeout when the machine is too loaded for the receiver to answer in time.
        assert.match(String(delivery.lastError), /^HTTP 500|timed out/);
      }
    }

    // The log: per endpoint, one line for its failed attempts and one for its dead letters, per
    // interval; not one per attempt.
    const lines = t.logs.filter((line) => /^webhook (attempt|delivery) failed/.test(String(line.msg)));
    assert.ok(
      lines.length <= 2 * 2 * minutes,
      `${lines.length} lines for ${attempts} failed attempts in ${minutes} minute(s)`,
    );
    for (const endpoint of [down, erring]) {
      const own = lines.filter((line) => line.endpointId === endpoint.id);
      assert.ok(own.some((line) => String(line.msg).startsWith('webhook attempt failed')));
      assert.ok(own.some((line) => String(line.msg).startsWith('webhook delivery failed for good')));
      for (const line of own) assert.equal(typeof line.failedMeanwhile, 'number');
    }
    assert.ok(
      !JSON.stringify(lines).includes('/hooks'),
      "the receiver's URL path is not logged, its host is",
    );
    assert.ok(lines.every((line) => String(line.host).startsWith('127.0.0.1:')));
  } finally {
    await failing.close();
  }
});
