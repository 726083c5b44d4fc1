import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dialect } from 'kysely';
import type { Log } from '../lib/log.ts';
import { traceLogFields } from './spans.ts';
import type { StartedTelemetry } from './otel/sdk.ts';
import type { TelemetryConfig } from './telemetry.config.ts';

/**
 * OpenTelemetry traces for the composition (decision `tracing-off-costs-nothing`; docs/tracing.md): `serve` and `worker` start it
 * before they open the database and stop it last. When the OTEL_* variables leave tracing off,
 * `startTelemetry` returns null without loading any OpenTelemetry package, and the helpers below
 * add nothing: no hook, no SQL wrapper, no log mixin (decision `tracing-off-costs-nothing`).
 */
export interface Telemetry {
  /** A Kysely dialect whose statements get a span when they run inside one (a request's). */
  readonly instrumentDialect: (dialect: Dialect) => Dialect;
  /** Exports the spans buffered so far (tests; shutdown does it too); a failure is logged, not thrown. */
  forceFlush(): Promise<void>;
  /**
   * Exports what is still buffered and stops, within `timeoutMs` whatever the collector does; then
   * the process makes no more spans. Never rejects.
   */
  shutdown(timeoutMs: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `false`: the route's requests get no server span (nor, so, SQL spans): health checks and
     * /metrics scrapes, which would otherwise be most of the traces and tell nothing.
     */
    traced?: boolean;
  }
}

let started: StartedTelemetry | null = null;

/**
 * Starts tracing when `config.enabled` (an OTLP endpoint is set and the SDK not disabled): loads the
 * SDK, and from then on spans are made and exported. Null when off. One per process: OpenTelemetry's
 * context and propagation are process-wide.
 */
export async function startTelemetry(config: TelemetryConfig, log: Log): Promise<Telemetry | null> {
  if (!config.enabled) return null;
  if (started !== null) throw new Error('Tracing is already started in this process.');
  const { startSdk } = await import('./otel/sdk.ts');
  const sdk = await startSdk(config, log);
  started = sdk;
  return {
    instrumentDialect: sdk.instrumentDialect,
    forceFlush: () => sdk.forceFlush(),
    async shutdown(timeoutMs) {
      if (started === sdk) started = null;
      await sdk.shutdown(timeoutMs);
    },
  };
}

/**
 * Adds the server spans to an app (Fastify hooks: one span per request, the caller's `traceparent`
 * honoured), when tracing is started; otherwise installs nothing.
 */
export function instrumentHttp(app: FastifyInstance): void {
  started?.instrumentHttp(app);
}

/** A request's server span, as the app's log controller enters it (see `requestSpans`). */
export interface RequestSpans {
  /** Runs `fn` in the request's server span, started first if the request has none yet. */
  enter<T>(request: FastifyRequest, fn: () => T): T;
  /** Ends the request's server span (if its hooks did not) and runs `fn` in it. */
  leave<T>(request: FastifyRequest, reply: FastifyReply, fn: () => T): T;
}

/**
 * The server spans of requests for the log lines Fastify writes outside the request's hooks (its
 * `incoming request` before the first hook, `request completed` after the last), so that those
 * carry the trace id too; null when tracing is off.
 */
export function requestSpans(): RequestSpans | null {
  return started?.requestScope ?? null;
}

/**
 * Logger options with a pino `mixin` that adds `trace_id` and `span_id` to every line written while
 * a span is active; `options` unchanged when tracing is off (or they are not an options object).
 */
export function withTraceIds<T>(config: TelemetryConfig, options: T): T {
  if (!config.enabled || typeof options !== 'object' || options === null) return options;
  const mixin = (options as { mixin?: (...args: unknown[]) => object }).mixin;
  return {
    ...options,
    // pino merges the line into the object returned, so it must be a new one each time.
    mixin: (...args: unknown[]) => ({ ...mixin?.(...args), ...traceLogFields() }),
  };
}
