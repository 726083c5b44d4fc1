/**
 * `node bench/tracing-inject.ts [none|unsampled|sampled]`: the CPU the tracing hooks add to one
 * request, without network, database or other processes: a bare Fastify app with one trivial route,
 * 30,000 `app.inject` requests after 3,000 of warm-up, CPU microseconds per request. `unsampled`
 * and `sampled` install the server-span hooks of src/telemetry/otel/http.ts with an always-off or
 * always-on sampler and an exporter that drops everything. Run each mode a few times, alternately:
 * the differences are a few microseconds. Cited in bench/RESULTS.md ("tracing off, on and before").
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  TracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import Fastify from 'fastify';
import { requestSpans } from '../src/telemetry/otel/http.ts';

const MODES = ['none', 'unsampled', 'sampled'] as const;
const mode = process.argv[2] ?? 'none';
if (!(MODES as readonly string[]).includes(mode)) {
  process.stderr.write(`Usage: node bench/tracing-inject.ts [${MODES.join('|')}]\n`);
  process.exit(2);
}

const app = Fastify();
if (mode !== 'none') {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter: SpanExporter = {
    export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
    shutdown: async () => undefined,
  };
  const provider = new TracerProvider({
    sampler: mode === 'sampled' ? new AlwaysOnSampler() : new AlwaysOffSampler(),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  requestSpans(provider.getTracer('bench'), new W3CTraceContextPropagator()).instrument(app);
}
app.get('/things/:id', async () => ({ ok: true, items: [1, 2, 3] }));
await app.ready();

const requests = 30_000;
for (let i = 0; i < 3000; i++) await app.inject({ url: '/things/1' });
const before = process.cpuUsage();
for (let i = 0; i < requests; i++) await app.inject({ url: '/things/1' });
const used = process.cpuUsage(before);
process.stdout.write(`${mode}: ${((used.user + used.system) / requests).toFixed(1)} µs CPU per request\n`);
