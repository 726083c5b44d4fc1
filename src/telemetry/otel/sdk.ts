/**
 * The OpenTelemetry SDK, loaded only when tracing is on (`startTelemetry` imports this module with
 * `await import()`; the architecture check keeps every other import of OpenTelemetry out): the
 * tracer provider, its sampler and resource, a batch span processor exporting over OTLP/HTTP, the
 * W3C trace-context propagator and the AsyncLocalStorage context manager.
 */
import {
  context,
  defaultTextMapSetter,
  diag,
  DiagLogLevel,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  isSpanContextValid,
  type Attributes,
  type DiagLogger,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { FastifyInstance } from 'fastify';
import type { Dialect } from 'kysely';
import type { Log } from '../../lib/log.ts';
import { OncePerInterval } from '../../lib/once-per-interval.ts';
import {
  errorTypeOf,
  installTracing,
  type SpanAttributes,
  type SpanKindName,
  type SpanScope,
  type Tracing,
} from '../spans.ts';
import type { SamplerConfig, TelemetryConfig } from '../telemetry.config.ts';
import { requestSpans, type RequestSpanScope } from './http.ts';
import { instrumentKyselyDialect } from './sql.ts';

/** The instrumentation scope of every span this service makes. */
export const TRACER_NAME = 'storefront';
/** An unreachable collector is reported at most this often (with how many failures went unlogged). */
const REPORT_INTERVAL_MS = 60_000;

/** What startTelemetry (telemetry.ts) gets back. */
export interface StartedTelemetry {
  instrumentHttp(app: FastifyInstance): void;
  /** The server span of a request, for the log lines Fastify writes outside its hooks. */
  readonly requestScope: RequestSpanScope;
  readonly instrumentDialect: (dialect: Dialect) => Dialect;
  /** Exports what is buffered now; a failure is reported (rate-limited), never thrown. */
  forceFlush(): Promise<void>;
  /** Exports what is buffered within `timeoutMs` at most, then unregisters everything; never rejects. */
  shutdown(timeoutMs: number): Promise<void>;
}

function samplerOf(config: SamplerConfig): Sampler {
  switch (config.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) });
  }
}

async function exporterOf(config: TelemetryConfig): Promise<SpanExporter> {
  // Only the chosen encoding's modules are loaded. Both exporters also read the OTEL_EXPORTER_OTLP_*
  // variables themselves as a fallback; everything they would read there is passed explicitly.
  const { OTLPTraceExporter } =
    config.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  type Options = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;
  return new OTLPTraceExporter({
    url: config.endpoint ?? undefined,
    headers: config.headers.values(),
    timeoutMillis: config.timeoutMs,
    compression: config.compression as unknown as Options['compression'],
  });
}

/**
 * Reports the SDK's own troubles (failed exports, a full queue) as one warning per interval with the
 * count of those not logged, so that a collector that is down costs a log line a minute, not one
 * per batch. Export errors carry the collector's answer, never the request's headers.
 */
/** A diagnostic's text: its message and the messages of the errors after it. */
function diagnosis(message: string, args: unknown[]): string {
  const details = args.map((arg) =>
    arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : '',
  );
  return [message, ...details.filter((detail) => detail !== '')].join(': ');
}

function troubleReporter(log: Log): (problem: unknown) => void {
  const limiter = new OncePerInterval(REPORT_INTERVAL_MS);
  return (problem) => {
    const unlogged = limiter.hit();
    if (unlogged === null) return;
    const message = problem instanceof Error ? problem.message : String(problem);
    log.warn(
      { error: message.slice(0, 500), unloggedSinceLast: unlogged },
      'tracing: spans could not be exported (the service is unaffected; spans are dropped)',
    );
  };
}

function attributesOf(attributes: SpanAttributes): Attributes {
  const result: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) result[key] = value;
  return result;
}

export async function startSdk(config: TelemetryConfig, log: Log): Promise<StartedTelemetry> {
  const report = troubleReporter(log);
  const diagLogger: DiagLogger = {
    // The SDK names its component first (`OTLPExportDelegate`) and passes the error after it.
    error: (message, ...args) => report(diagnosis(message, args)),
    warn: (message, ...args) => report(diagnosis(message, args)),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
  diag.setLogger(diagLogger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  setGlobalErrorHandler(report);

  const contextManager = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  const provider = new TracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName }),
    ),
    sampler: samplerOf(config.sampler),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: await exporterOf(config),
        scheduledDelayMillis: config.batch.scheduleDelayMs,
        exportTimeoutMillis: config.batch.exportTimeoutMs,
        maxQueueSize: config.batch.maxQueueSize,
        maxExportBatchSize: config.batch.maxExportBatchSize,
      }),
    ],
  });
  // Registered process-wide, as OpenTelemetry expects (another OpenTelemetry-aware library then
  // joins the same traces); unregistered at shutdown.
  const registered = [
    context.setGlobalContextManager(contextManager),
    propagation.setGlobalPropagator(propagator),
    trace.setGlobalTracerProvider(provider),
  ];
  if (registered.includes(false)) {
    // What of ours did get registered goes again; the other SDK's stays.
    if (registered[0]) context.disable();
    if (registered[1]) propagation.disable();
    if (registered[2]) trace.disable();
    throw new Error('Another OpenTelemetry SDK is already registered in this process.');
  }
  const tracer = provider.getTracer(TRACER_NAME);

  const tracing: Tracing = {
    span<T>(
      name: string,
      kind: SpanKindName,
      attributes: SpanAttributes,
      fn: (span: SpanScope) => Promise<T>,
    ): Promise<T> {
      const parent = context.active();
      const span = tracer.startSpan(
        name,
        {
          kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
          attributes: attributesOf(attributes),
        },
        parent,
      );
      const active = trace.setSpan(parent, span);
      let failed = false;
      const scope: SpanScope = {
        set: (more) => void span.setAttributes(attributesOf(more)),
        fail(errorType) {
          failed = true;
          span.setAttribute('error.type', errorType);
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
        withTraceContext(headers) {
          const carrier = { ...headers };
          propagator.inject(active, carrier, defaultTextMapSetter);
          return carrier;
        },
      };
      // An async function: a synchronous throw of fn rejects too, and still ends the span.
      const running = (async () => context.with(active, () => fn(scope)))();
      return running.then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          if (!failed) scope.fail(errorTypeOf(error));
          span.end();
          throw error;
        },
      );
    },
    logFields() {
      const spanContext = trace.getSpanContext(context.active());
      if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
      // As OpenTelemetry's own log correlation does: the flags say whether the trace was kept.
      return {
        trace_id: spanContext.traceId,
        span_id: spanContext.spanId,
        trace_flags: (spanContext.traceFlags & TraceFlags.SAMPLED) === 0 ? '00' : '01',
      };
    },
  };
  installTracing(tracing);

  let stopped: Promise<void> | null = null;
  const http = requestSpans(tracer, propagator);
  return {
    instrumentHttp: (app) => http.instrument(app),
    requestScope: http.scope,
    instrumentDialect: (dialect) => instrumentKyselyDialect(dialect, tracer),
    // A failed export is reported like a scheduled one's, never thrown at the caller.
    forceFlush: () => provider.forceFlush().catch(report),
    shutdown(timeoutMs) {
      stopped ??= (async () => {
        installTracing(null);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            report(new Error(`the last spans were not exported within ${timeoutMs} ms`));
            resolve();
          }, timeoutMs);
          timer.unref();
        });
        await Promise.race([provider.shutdown().catch(report), late]);
        clearTimeout(timer);
        trace.disable();
        propagation.disable();
        context.disable();
        diag.disable();
        setGlobalErrorHandler(() => undefined);
      })();
      return stopped;
    },
  };
}
