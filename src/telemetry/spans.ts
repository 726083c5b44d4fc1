/**
 * The tracing seam (decision `tracing-seam`): what adapters call to put an outside call in a span,
 * without loading OpenTelemetry. `startTelemetry` (telemetry.ts) installs the process's one tracer
 * when the OTEL_* variables turn tracing on; until then, and always when they do not, every helper
 * here calls straight through after one null check.
 */

export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** What the code inside a span may do with it. */
export interface SpanScope {
  /** Adds attributes learnt during the call (a response status, a count). */
  set(attributes: SpanAttributes): void;
  /**
   * Marks the span failed, with a short, low-cardinality `error.type` (a status code, an error
   * code, a class name): never an error message, which may carry personal data.
   */
  fail(errorType: string): void;
  /**
   * `headers` plus this span's W3C trace context (`traceparent`, and `tracestate` when there is
   * one), for an outgoing request; the same object when tracing is off.
   */
  withTraceContext(headers: Record<string, string>): Record<string, string>;
}

export type SpanKindName = 'client' | 'internal';

/** The process's tracer as the seam sees it (implemented in otel/sdk.ts). */
export interface Tracing {
  span<T>(
    name: string,
    kind: SpanKindName,
    attributes: SpanAttributes,
    fn: (span: SpanScope) => Promise<T>,
  ): Promise<T>;
  /** The active span's ids and whether its trace is sampled, for log lines; undefined outside any span. */
  logFields(): TraceLogFields | undefined;
}

const NO_SPAN: SpanScope = {
  set() {},
  fail() {},
  withTraceContext: (headers) => headers,
};

let tracing: Tracing | null = null;

/** Installs (or, with null, removes) the process's tracer: startTelemetry and its shutdown only. */
export function installTracing(installed: Tracing | null): void {
  tracing = installed;
}

/**
 * Runs `fn` in a client span (a call to another system: a webhook receiver, the payment provider,
 * a DNS server), a child of the active span or else a root. A rejection marks the span failed.
 */
export function clientSpan<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (span: SpanScope) => Promise<T>,
): Promise<T> {
  return tracing === null ? fn(NO_SPAN) : tracing.span(name, 'client', attributes, fn);
}

/** Runs `fn` in an internal span, which groups the spans made inside it (one domain's DNS checks). */
export function internalSpan<T>(
  name: string,
  attributes: SpanAttributes,
  fn: (span: SpanScope) => Promise<T>,
): Promise<T> {
  return tracing === null ? fn(NO_SPAN) : tracing.span(name, 'internal', attributes, fn);
}

/** `error.type` of something thrown: its code (`ECONNREFUSED`), else its class name. */
export function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

/** What a log line written inside a span carries. */
export interface TraceLogFields {
  trace_id: string;
  span_id: string;
  /** `01` when the trace is sampled (exported), `00` when not. */
  trace_flags: '00' | '01';
}

/** The active span's log fields, or undefined (no span, or tracing off). */
export function traceLogFields(): TraceLogFields | undefined {
  return tracing?.logFields();
}
