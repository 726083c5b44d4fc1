/**
 * Tracing off (the default, and OTEL_SDK_DISABLED): nothing of OpenTelemetry is loaded, no span is
 * exported, webhooks carry no traceparent and log lines no trace id. A process of its own: the
 * module hook below must see every import the app makes, so the app is imported after it.
 */
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';

const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.includes('@opentelemetry/') || specifier.includes('/telemetry/otel/'))
      resolved.push(specifier);
    return nextResolve(specifier, context);
  },
});

const { startTestApp, createTestStore } = await import('../test/harness.ts');
const { emit, registerEndpoint, startReceiver, webhookTestConfig } =
  await import('../webhooks/webhooks.test-support.ts');
const { startOtlpReceiver } = await import('./otlp.test-support.ts');
const { loadConfig } = await import('../config.ts');
const { loadTelemetryConfig } = await import('./telemetry.config.ts');
const { startTelemetry } = await import('./telemetry.ts');

type TestApp = Awaited<ReturnType<typeof startTestApp>>;
type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

describe('tracing off', () => {
  let t: TestApp;
  let collector: OtlpReceiver;
  before(async () => {
    collector = await startOtlpReceiver();
    t = await startTestApp({ workers: true, config: { ...webhookTestConfig(), readCacheBytes: 0 } });
  });
  after(async () => {
    await t.close();
    await collector.close();
  });

  test('is the default: no OTEL_* variable, no tracing', () => {
    const config = loadConfig({});
    assert.equal(config.telemetry.enabled, false);
    assert.equal(config.telemetry.endpoint, null);
  });

  test('OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none win over an endpoint; nothing starts', async () => {
    for (const env of [
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SDK_DISABLED: 'true' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_EXPORTER: 'none' },
    ]) {
      const config = loadTelemetryConfig(env);
      assert.equal(config.enabled, false, JSON.stringify(env));
      assert.equal(await startTelemetry(config, pino({ level: 'silent' })), null);
    }
  });

  test('requests, SQL and a webhook delivery: no traceparent, no trace id, no OpenTelemetry module', async () => {
    const shop = await createTestStore(t);
    const hooks = await startReceiver();
    try {
      const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const read = await fetch(`${base}/storefront/v1/products?limit=5`, {
        headers: {
          'x-publishable-key': shop.publishableKey,
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        },
      });
      assert.equal(read.status, 200, await read.text());
      await registerEndpoint(t, shop, hooks.url);
      const event = await emit(t, shop.store.id, 'product.updated', { productId: 'p-1' }, 'product:p-1');
      const [request] = await hooks.waitForRequests(1, (r) => r.body.id === event.id);
      assert.ok(request);
      assert.equal(request.headers.traceparent, undefined);
      assert.equal(request.headers.tracestate, undefined);
      assert.ok(t.logs.length > 0);
      assert.ok(
        t.logs.every((line) => !('trace_id' in line) && !('span_id' in line)),
        'no log line carries a trace id',
      );
      assert.deepEqual(resolved, [], 'no OpenTelemetry module was loaded');
      assert.deepEqual(collector.exports, [], 'nothing was exported');
    } finally {
      await hooks.close();
    }
  });
});
