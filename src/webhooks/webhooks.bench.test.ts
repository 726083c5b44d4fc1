import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { recordEvent } from '../events/events.ts';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import {
  emit,
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
  type Receiver,
} from './webhooks.test-support.ts';

/**
 * Measures commit-to-delivery latency (one event at a time) and delivery throughput (a burst of
 * events in one commit) against a real local receiver, and prints them as test diagnostics.
 */

let t: TestApp;
let hook: Receiver;
before(async () => {
  t = await startTestApp({ workers: true, config: webhookTestConfig({ timeoutMs: 10_000 }) });
  hook = await startReceiver();
});
after(async () => {
  await hook.close();
  await t.close();
});

test('commit-to-delivery latency and deliveries per second', async (context) => {
  const shop = await createTestStore(t);
  await registerEndpoint(t, shop, hook.url);
  const latencies: number[] = [];
  for (let i = 0; i < 50; i++) {
    const committedAt = performance.now() + performance.timeOrigin;
    const event = await emit(t, shop.store.id, 'inventory.updated', { variantId: `v-${i}`, available: i });
    const [request] = await hook.waitForRequests(1, (r) => r.body.id === event.id);
    latencies.push(request!.receivedAt - committedAt);
  }
  latencies.sort((a, b) => a - b);
  const p = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;

  const burst = 1000;
  const ids = new Set<string>();
  const started = Date.now();
  await t.db.kysely.transaction().execute(async (trx) => {
    for (let i = 0; i < burst; i++) {
      const event = await recordEvent(trx, {
        storeId: shop.store.id,
        type: 'product.updated',
        data: { productId: `b-${i}` },
      });
      ids.add(event.id);
    }
  });
  const committed = Date.now();
  await hook.waitForRequests(burst, (r) => ids.has(r.body.id), 60_000);
  const seconds = (Date.now() - committed) / 1000;
  context.diagnostic(
    `${t.db.kind}: commit-to-delivery p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms (50 events); ` +
      `${burst} events committed in ${committed - started} ms, delivered in ${seconds.toFixed(2)} s = ${Math.round(burst / seconds)} deliveries/s`,
  );
  const received = hook.requests.filter((r) => ids.has(r.body.id));
  assert.equal(new Set(received.map((r) => r.body.id)).size, burst, 'every event of the burst arrived');
  assert.ok(p(0.5) < (t.db.kind === 'postgres' ? 250 : 1000), `p50 ${p(0.5)} ms`);
});
