/**
 * OpenTelemetry traces end to end (decision `tracing-off-costs-nothing`): the app and its workers on a real database, spans
 * exported over OTLP/HTTP to a real receiver on 127.0.0.1 (otlp.test-support.ts), webhooks to a
 * real receiver. The off case, where nothing of OpenTelemetry may even load, is
 * telemetry-off.test.ts (a process of its own).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { TestDnsServer } from '../email/email.test-dns.ts';
import { lookUpRecords } from '../email/email.dns.ts';
import { StripeProvider } from '../payments/stripe.provider.ts';
import { SECRET_KEY, StripeStub, WEBHOOK_SECRET } from '../payments/stripe.test-support.ts';
import {
  createTestStore,
  openTestDatabase,
  startTestApp,
  waitFor,
  type TestApp,
  type TestDb,
} from '../test/harness.ts';
import {
  emit,
  registerEndpoint,
  startReceiver,
  webhookTestConfig,
} from '../webhooks/webhooks.test-support.ts';
import { startOtlpReceiver, SPAN_KIND, type OtlpReceiver, type ReceivedSpan } from './otlp.test-support.ts';
import { ShopDriver } from '../orders/orders.test-support.ts';
import { clientSpan, internalSpan } from './spans.ts';
import { loadTelemetryConfig, type TelemetryConfig } from './telemetry.config.ts';
import { startTelemetry, type Telemetry } from './telemetry.ts';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
const METRICS_TOKEN = 'metrics-token-tracing-test-0123456789';

/** A pino logger whose lines land in `lines`, parsed. */
function capturedLog(lines: Record<string, unknown>[]) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return pino({ level: 'info' }, stream);
}

function tracingConfig(receiver: OtlpReceiver, extra: Record<string, string> = {}): TelemetryConfig {
  return loadTelemetryConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '20',
    OTEL_SERVICE_NAME: 'storefront-test',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    ...extra,
  });
}

/** Every attribute value of every span, as one string, to look for what must never be recorded. */
const everything = (spans: readonly ReceivedSpan[]): string =>
  JSON.stringify(spans.map((span) => [span.name, span.attributes]));

describe('tracing on (OTLP http/json)', () => {
  let receiver: OtlpReceiver;
  let telemetry: Telemetry;
  let db: TestDb;
  let t: TestApp;
  /** The app listening on 127.0.0.1: requests go over real sockets, as a caller's would. */
  let base: string;
  const telemetryLog: Record<string, unknown>[] = [];

  before(async () => {
    receiver = await startOtlpReceiver();
    const config = tracingConfig(receiver);
    const started = await startTelemetry(config, capturedLog(telemetryLog));
    assert.ok(started, 'an endpoint turns tracing on');
    telemetry = started;
    db = await openTestDatabase({ instrument: telemetry.instrumentDialect });
    t = await startTestApp({
      db,
      workers: true,
      // No read cache: every read runs its SQL.
      config: {
        ...webhookTestConfig(),
        telemetry: config,
        readCacheBytes: 0,
        metrics: { port: null, host: '127.0.0.1', token: METRICS_TOKEN },
      },
      routes: (app) => {
        app.get('/test/fail', () => {
          throw new Error('boom for the trace');
        });
        // Reads the database after a body that arrives late, and answers more than a socket
        // buffer holds: its SQL and its last log line happen outside the socket read that
        // started the request.
        app.post('/test/slow', async () => {
          await sql`SELECT 1 AS one`.execute(db.kysely);
          return { filler: 'x'.repeat(4 * 1024 * 1024) };
        });
      },
    });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await t.close();
    await db.close();
    await telemetry.shutdown(5000);
    await receiver.close();
    assert.deepEqual(telemetryLog, [], 'the exports all succeeded');
  });

  test("a request with a traceparent: the server span is the caller's child, its SQL the server span's", async () => {
    const shop = await createTestStore(t);
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const response = await fetch(`${base}/storefront/v1/products?limit=5&q=vicky%40example.com`, {
      headers: {
        'x-publishable-key': shop.publishableKey,
        traceparent: `00-${callerTrace}-${callerSpan}-01`,
      },
    });
    assert.equal(response.status, 200, await response.text());

    const [server] = await receiver.waitForSpans(
      (span) => span.traceId === callerTrace && span.kind === SPAN_KIND.server,
    );
    assert.ok(server);
    assert.equal(server.parentSpanId, callerSpan);
    assert.equal(server.name, 'GET /storefront/v1/products');
    assert.equal(server.attributes['http.request.method'], 'GET');
    assert.equal(server.attributes['http.route'], '/storefront/v1/products');
    assert.equal(server.attributes['http.response.status_code'], 200);
    assert.equal(server.attributes['server.address'], '127.0.0.1');
    assert.equal(server.attributes['server.port'], Number(new URL(base).port));
    assert.equal(server.attributes['url.scheme'], 'http');
    assert.equal(server.statusCode, 0, 'a 200 leaves the status unset');
    assert.equal(server.resource['service.name'], 'storefront-test');
    assert.equal(server.resource['deployment.environment.name'], 'test');
    // Neither the query string nor the raw path is recorded (no url.query, no http.target).
    for (const leak of ['limit=5', 'vicky', 'url.query', 'http.target', 'url.full'])
      assert.ok(!everything([server]).includes(leak), everything([server]));

    const sql = await receiver.waitForSpans((span) => span.parentSpanId === server.spanId);
    for (const span of sql) {
      assert.equal(span.traceId, callerTrace);
      assert.equal(span.kind, SPAN_KIND.client);
      assert.equal(span.attributes['db.system.name'], 'postgresql');
      assert.match(String(span.attributes['db.query.text']), /\$1/, 'parameterised text');
    }
    const select = sql.find((span) => span.attributes['db.collection.name'] === 'products');
    assert.ok(select, `a SELECT on products among ${sql.map((span) => span.name).join(', ')}`);
    assert.equal(select.name, 'SELECT products');
    assert.equal(select.attributes['db.operation.name'], 'SELECT');
    assert.ok(!everything(sql).includes(shop.store.id), 'no parameter value is recorded');
  });

  test('a write with a body: its SQL are children of its span; no personal data or id is recorded', async () => {
    const shop = await createTestStore(t);
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${base}/storefront/v1${path}`, {
        method,
        headers: { 'x-publishable-key': shop.publishableKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await send('POST', '/carts', { items: [] });
    assert.equal(created.status, 201);
    const cartId = ((await created.json()) as { id: string }).id;
    const address = {
      name: 'Zoë Privatperson',
      line1: '17 Geheimweg',
      city: 'Cupertino',
      region: 'ca',
      postalCode: '95014',
      country: 'us',
    };
    const set = await send('PUT', `/carts/${cartId}/shipping-address`, address);
    assert.equal(set.status, 200, await set.text());

    const [server] = await receiver.waitForSpans(
      (span) => span.name === 'PUT /storefront/v1/carts/:id/shipping-address',
    );
    assert.ok(server);
    assert.equal(server.parentSpanId, '', 'no traceparent: a root span');
    const sql = await receiver.waitForSpans(
      (span) => span.parentSpanId === server.spanId && span.attributes['db.operation.name'] === 'UPDATE',
    );
    assert.ok(sql.length > 0);
    const trace = receiver.spans.filter((span) => span.traceId === server.traceId);
    for (const secret of [address.name, address.line1, cartId, shop.publishableKey])
      assert.ok(!everything(trace).includes(secret), `${secret} is not in the trace`);
  });

  test('statements inside any span are its children; outside every span they make none', async () => {
    await createTestStore(t);
    const before = receiver.spans.length;
    await internalSpan('probe', {}, async () => {
      await db.kysely.selectFrom('stores').select('id').limit(1).execute();
      await db.kysely
        .transaction()
        .execute((trx) => trx.selectFrom('stores').select('id').limit(1).execute());
    });
    const [probe] = await receiver.waitForSpans((span) => span.name === 'probe');
    assert.ok(probe);
    // On PostgreSQL BEGIN and COMMIT are statements of their own too (PGlite runs its transactions
    // by its own API).
    await receiver.waitForSpans(
      (span) => span.parentSpanId === probe.spanId && span.name === 'SELECT stores',
      2,
    );
    await db.kysely.selectFrom('stores').select('id').limit(1).execute();
    await telemetry.forceFlush();
    assert.ok(
      receiver.spans.slice(before).every((span) => span.name !== 'SELECT stores' || span.parentSpanId !== ''),
      'no root SQL span',
    );
  });

  test('a body that arrives late and a large answer stay in the request span', async () => {
    const { status, requestId } = await new Promise<{ status: number; requestId: string }>(
      (resolve, reject) => {
        const request = http.request(
          `${base}/test/slow`,
          { method: 'POST', headers: { 'content-type': 'application/json' } },
          (response) => {
            // Read the answer slowly, so that it is still being written long after the handler.
            response.pause();
            setTimeout(() => {
              response.resume();
              response.on('end', () =>
                resolve({
                  status: response.statusCode ?? 0,
                  requestId: String(response.headers['x-request-id']),
                }),
              );
            }, 100);
          },
        );
        request.on('error', reject);
        request.write('{"a":');
        setTimeout(() => request.end('1}'), 100);
      },
    );
    assert.equal(status, 200);
    const [server] = await receiver.waitForSpans((span) => span.name === 'POST /test/slow');
    assert.ok(server);
    const [select] = await receiver.waitForSpans((span) => span.parentSpanId === server.spanId);
    assert.equal(select?.name, 'SELECT');
    const completed = await waitFor(() =>
      t.logs.find((line) => line.reqId === requestId && line.msg === 'request completed'),
    );
    assert.equal(completed.trace_id, server.traceId);
  });

  test('a 5xx fails the server span, and the log lines carry its trace id', async () => {
    t.expectErrorLogs(/boom for the trace/);
    const response = await fetch(`${base}/test/fail`);
    assert.equal(response.status, 500);
    const [server] = await receiver.waitForSpans((span) => span.name === 'GET /test/fail');
    assert.ok(server);
    assert.equal(server.statusCode, 2, 'error');
    assert.equal(server.attributes['http.response.status_code'], 500);
    assert.equal(server.attributes['error.type'], 'Error');

    const lines = await waitFor(() => {
      const mine = t.logs.filter((line) => line.reqId === response.headers.get('x-request-id'));
      return mine.some((line) => line.msg === 'request completed') ? mine : undefined;
    });
    const failed = lines.find((line) => line.msg === 'request failed');
    assert.ok(failed, JSON.stringify(lines));
    // Fastify's first line of the request too, written before its first hook.
    const incoming = lines.find((line) => line.msg === 'incoming request');
    assert.equal(incoming?.trace_id, server.traceId, JSON.stringify(incoming));
    assert.equal(incoming?.span_id, server.spanId);
    for (const line of lines)
      assert.equal(line.trace_id, server.traceId, `every line: ${JSON.stringify(line)}`);
    assert.equal(failed.trace_id, server.traceId);
    assert.equal(failed.span_id, server.spanId);
    assert.equal(failed.trace_flags, '01', 'sampled');
    const completed = lines.find((line) => line.msg === 'request completed');
    assert.equal(completed?.trace_id, server.traceId, 'the completion line too');
  });

  test('health checks and /metrics scrapes are not traced; their SQL neither', async () => {
    const traceOf = (n: number) => `5ca1ab1e00000000000000000000000${n}`;
    const probes: [string, Record<string, string>][] = [
      ['/healthz', {}],
      ['/readyz', {}],
      ['/metrics', { authorization: `Bearer ${METRICS_TOKEN}` }],
    ];
    for (const [index, [path, headers]] of probes.entries()) {
      const response = await fetch(`${base}${path}`, {
        headers: { ...headers, traceparent: `00-${traceOf(index)}-00f067aa0ba902b7-01` },
      });
      assert.equal(response.status, 200, `${path}: ${await response.text()}`);
    }
    // A traced request after them: once its span is exported, theirs would have been too.
    const control = traceOf(9);
    const shop = await createTestStore(t);
    await fetch(`${base}/storefront/v1/store`, {
      headers: { 'x-publishable-key': shop.publishableKey, traceparent: `00-${control}-00f067aa0ba902b7-01` },
    });
    await receiver.waitForSpans((span) => span.traceId === control && span.kind === SPAN_KIND.server);
    await telemetry.forceFlush();
    const probed = receiver.spans.filter((span) =>
      probes.some((_, index) => span.traceId === traceOf(index)),
    );
    assert.deepEqual(
      probed.map((span) => span.name),
      [],
      'no span of a health check or scrape, nor of the SQL they ran',
    );
    assert.ok(!receiver.spans.some((span) => /^GET \/(metrics|healthz|readyz)$/.test(span.name)));
  });

  test('SQL spans are named by operation and table, a CTE followed to its table', async () => {
    const driver = await ShopDriver.open(t);
    const variantId = await driver.variant(5);
    const bought = await driver.buy(variantId);
    const [checkout] = await receiver.waitForSpans((span) => span.name === 'POST /storefront/v1/checkout');
    assert.ok(checkout);
    const sql = await receiver.waitForSpans(
      (span) => span.parentSpanId === checkout.spanId && span.kind === SPAN_KIND.client,
      5,
    );
    const names = sql.map((span) => span.name);
    // The reservation (WITH r AS (UPDATE variants …) SELECT … FROM r) and the order's statement
    // (WITH next_number …, o AS (INSERT INTO orders …) … SELECT … FROM o): never "SELECT r" or "WITH".
    assert.ok(names.includes('SELECT variants'), names.join(', '));
    assert.ok(names.includes('SELECT orders'), names.join(', '));
    for (const span of sql) {
      assert.match(span.name, /^[A-Z]+( [a-z_]{3,})?$/, `${span.name}: an operation and a table`);
      assert.doesNotMatch(span.name, /^WITH\b/);
      assert.equal(
        span.name,
        [span.attributes['db.operation.name'], span.attributes['db.collection.name']]
          .filter(Boolean)
          .join(' '),
      );
    }
    assert.ok(!everything(sql).includes(bought.order.id), 'no value');
  });

  test('a webhook delivery carries a traceparent naming its exported client span', async () => {
    const shop = await createTestStore(t);
    const hooks = await startReceiver();
    try {
      await registerEndpoint(t, shop, hooks.url);
      const event = await emit(t, shop.store.id, 'product.updated', { productId: 'p-1' }, 'product:p-1');
      const [request] = await hooks.waitForRequests(1, (r) => r.body.id === event.id);
      const match = TRACEPARENT.exec(String(request?.headers.traceparent));
      assert.ok(match, `traceparent: ${String(request?.headers.traceparent)}`);
      const [, traceId, spanId] = match;

      const [span] = await receiver.waitForSpans((s) => s.spanId === spanId);
      assert.ok(span);
      assert.equal(span.traceId, traceId);
      assert.equal(span.parentSpanId, '', "the relay's delivery starts a trace of its own");
      assert.equal(span.kind, SPAN_KIND.client);
      assert.equal(span.name, 'webhook product.updated');
      assert.equal(span.attributes['server.address'], '127.0.0.1');
      assert.equal(span.attributes['server.port'], hooks.port);
      assert.equal(span.attributes['http.response.status_code'], 204);
      assert.equal(span.attributes['storefront.webhook.event_id'], event.id);
      assert.equal(span.attributes['storefront.webhook.delivery_id'], request?.headers['x-webhook-delivery']);
      assert.ok(!everything([span]).includes('/hooks'), 'the URL path is not recorded');
    } finally {
      await hooks.close();
    }
  });

  test('DNS lookups of a domain check are client spans under one span', async () => {
    const dns = await TestDnsServer.start();
    try {
      dns.setTxt('shop.example', ['v=spf1 include:spf.storefront.test ~all']);
      const results = await lookUpRecords(
        [
          { type: 'TXT', name: 'shop.example', value: 'v=spf1 include:spf.storefront.test ~all' },
          { type: 'CNAME', name: 'missing.shop.example', value: 'x.dkim.storefront.test' },
        ],
        { dnsServers: [dns.address], dnsTimeoutMs: 1000 },
      );
      assert.deepEqual(
        results.map((result) => result.outcome),
        ['verified', 'missing'],
      );
      const [group] = await receiver.waitForSpans((span) => span.name === 'DNS verify records');
      assert.ok(group);
      assert.equal(group.kind, SPAN_KIND.internal);
      const lookups = await receiver.waitForSpans((span) => span.parentSpanId === group.spanId, 2);
      assert.deepEqual(lookups.map((span) => span.name).sort(), ['DNS CNAME', 'DNS TXT']);
      assert.ok(lookups.every((span) => span.kind === SPAN_KIND.client));
      const txt = lookups.find((span) => span.name === 'DNS TXT');
      assert.equal(txt?.attributes['dns.question.name'], 'shop.example');
      assert.equal(txt?.attributes['storefront.dns.outcome'], 'verified');
    } finally {
      await dns.close();
    }
  });

  test('payment-provider calls are client spans; no trace context goes to the provider', async () => {
    const stub = new StripeStub();
    const apiBase = await stub.start();
    try {
      const provider = new StripeProvider({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase });
      const intent = await provider.createIntent({
        amount: 1200,
        currency: 'USD',
        idempotencyKey: 'trace-test-1',
        metadata: { storeId: 's', orderId: 'o', orderNumber: '1' },
      });
      const [span] = await receiver.waitForSpans((s) => s.name === 'POST /v1/payment_intents');
      assert.ok(span);
      assert.equal(span.kind, SPAN_KIND.client);
      assert.equal(span.attributes['url.template'], '/v1/payment_intents');
      assert.equal(span.attributes['server.address'], '127.0.0.1');
      assert.ok(!everything([span]).includes(intent.ref), 'no ids recorded');
      assert.ok(!everything([span]).includes(SECRET_KEY));
      assert.ok(stub.requests.every((request) => request.headers.traceparent === undefined));
    } finally {
      await stub.stop();
    }
  });
});

describe('tracing over http/protobuf', () => {
  test('spans arrive at /v1/traces as application/x-protobuf, with the configured headers', async () => {
    const receiver = await startOtlpReceiver();
    const telemetry = await startTelemetry(
      loadTelemetryConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=s3cr%3Dt,x-tenant=acme',
      }),
      pino({ level: 'silent' }),
    );
    assert.ok(telemetry);
    try {
      await clientSpan('probe', { 'probe.value': 1 }, async () => undefined);
      await telemetry.forceFlush();
      const [exported] = await waitFor(() => (receiver.exports.length > 0 ? receiver.exports : undefined));
      assert.ok(exported);
      assert.equal(exported.path, '/v1/traces');
      assert.equal(exported.contentType, 'application/x-protobuf');
      assert.ok(exported.bytes > 0);
      assert.equal(exported.headers['x-api-key'], 's3cr=t');
      assert.equal(exported.headers['x-tenant'], 'acme');
    } finally {
      await telemetry.shutdown(2000);
      await receiver.close();
    }
  });
});

describe('a collector that is down or stuck', () => {
  test('exports fail quietly: one warning per interval, requests unaffected, shutdown within its budget', async () => {
    // A port nothing listens on.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const lines: Record<string, unknown>[] = [];
    const telemetry = await startTelemetry(
      loadTelemetryConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20never-logged',
        OTEL_EXPORTER_OTLP_TIMEOUT: '300',
        OTEL_BSP_SCHEDULE_DELAY: '10',
      }),
      capturedLog(lines),
    );
    assert.ok(telemetry);
    try {
      for (let i = 0; i < 5; i++) {
        assert.equal(
          await clientSpan('probe', {}, async () => i),
          i,
          'the work inside the span is unaffected',
        );
        await telemetry.forceFlush();
      }
      const warnings = lines.filter((line) =>
        String(line.msg).startsWith('tracing: spans could not be exported'),
      );
      assert.equal(warnings.length, 1, JSON.stringify(lines));
      assert.ok(!JSON.stringify(lines).includes('never-logged'), 'header values are never logged');
    } finally {
      await telemetry.shutdown(1000);
    }

    // A collector that accepts and never answers: shutdown returns within its budget, before the
    // export's own timeout (whose retries end soon after, so this test process can exit).
    const stuck = await startOtlpReceiver();
    stuck.answer = 'hang';
    const second = await startTelemetry(
      loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: stuck.url, OTEL_EXPORTER_OTLP_TIMEOUT: '1500' }),
      pino({ level: 'silent' }),
    );
    assert.ok(second);
    await clientSpan('probe', {}, async () => undefined);
    const started = Date.now();
    await second.shutdown(300);
    const took = Date.now() - started;
    assert.ok(took < 2000, `shutdown took ${took} ms`);
    assert.ok(stuck.exports.length > 0, 'the export was attempted');
    await stuck.close();
  });
});

describe('storefront serve with OTEL_* in its environment', () => {
  test('its requests and their SQL are traced, its log lines carry the trace id, SIGTERM flushes', async () => {
    const receiver = await startOtlpReceiver();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-trace-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      SEED_DEMO: '1',
      ADMIN_UI: '0',
      SHOP_UI: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    };
    // The embedded database in a directory of its own, whatever this run tests on.
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '..', 'main.ts'), 'serve'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const url = await waitFor(
        () => /running at (http:\/\/\S+)/.exec(output)?.[1],
        60_000,
        'serve to start',
      );
      const key = /Publishable key: (\S+)/.exec(output)?.[1];
      assert.ok(key, output);
      const trace = '0af7651916cd43dd8448eb211c80319c';
      const response = await fetch(`${url}/storefront/v1/store`, {
        headers: { 'x-publishable-key': key, traceparent: `00-${trace}-b7ad6b7169203331-01` },
      });
      assert.equal(response.status, 200);
      // The batch waits 5 s by default: what arrives before the exit, the shutdown flushed.
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      const server = receiver.spans.find((span) => span.traceId === trace && span.kind === SPAN_KIND.server);
      assert.ok(server, `spans: ${receiver.spans.map((span) => span.name).join(', ')}`);
      assert.equal(server.name, 'GET /storefront/v1/store');
      assert.ok(
        receiver.spans.some((span) => span.parentSpanId === server.spanId && span.name.startsWith('SELECT')),
      );
      const completed = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'request completed');
      assert.equal(completed?.trace_id, trace, output);
      const incoming = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'incoming request' && line.reqId === completed?.reqId);
      assert.equal(incoming?.trace_id, trace, 'the first line of the request too');
    } finally {
      child.kill('SIGKILL');
      await receiver.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
