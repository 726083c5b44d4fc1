import {
  context,
  defaultTextMapGetter,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorTypeOf } from '../spans.ts';

/** The methods HTTP semantic conventions name; any other is `_OTHER` (bounded cardinality). */
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'CONNECT',
  'TRACE',
]);

/** Where a request keeps its span. */
const SPAN = Symbol('storefront.span');

interface RequestSpan {
  span: Span;
  /** The context with this span active: the request's code runs in it. */
  active: Context;
  /** `error.type` of an error raised while handling, used if the answer is a 5xx. */
  errorType: string | null;
  ended: boolean;
}

/** A request's span: what its log lines and code run inside (telemetry.ts `RequestSpans`). */
export interface RequestSpanScope {
  enter<T>(request: FastifyRequest, fn: () => T): T;
  leave<T>(request: FastifyRequest, reply: FastifyReply, fn: () => T): T;
}

/**
 * One SERVER span per request (HTTP semantic conventions): named `METHOD /route/pattern` (the
 * pattern, never the path with its ids, nor the query string), a child of the caller's span when
 * the request carries a W3C `traceparent` (the sampler decides whether to follow its sampled
 * flag), failed on a 5xx. The span is opened by the first of Fastify's "incoming request" log line
 * (`scope.enter`, through the app's log controller) and its first onRequest hook, and is active for
 * everything the request runs: hooks, the handler and so its SQL, and both of Fastify's log lines.
 * Routes that say `config: { traced: false }` (health checks, /metrics) get none.
 */
export function requestSpans(
  tracer: Tracer,
  propagator: TextMapPropagator,
): { scope: RequestSpanScope; instrument(app: FastifyInstance): void } {
  const entryOf = (request: FastifyRequest): RequestSpan | null =>
    (request as unknown as Partial<Record<typeof SPAN, RequestSpan | null>>)[SPAN] ?? null;

  const begin = (request: FastifyRequest): RequestSpan | null => {
    const existing = entryOf(request);
    if (existing !== null) return existing;
    const config = request.routeOptions.config as { traced?: boolean } | undefined;
    if (config?.traced === false) return null;
    const parent = propagator.extract(context.active(), request.headers, defaultTextMapGetter);
    const method = KNOWN_METHODS.has(request.method) ? request.method : '_OTHER';
    const route = request.routeOptions.url;
    const span = tracer.startSpan(
      route === undefined ? method : `${method} ${route}`,
      { kind: SpanKind.SERVER },
      parent,
    );
    // The attributes only for a span the sampler keeps: an unsampled request costs less.
    if (span.isRecording()) {
      const attributes: Attributes = {
        'http.request.method': method,
        'url.scheme': request.protocol,
        'server.address': request.hostname,
        'network.protocol.version': request.raw.httpVersion,
      };
      if (method === '_OTHER') attributes['http.request.method_original'] = request.method.slice(0, 32);
      if (route !== undefined) attributes['http.route'] = route;
      if (request.port !== null) attributes['server.port'] = request.port;
      span.setAttributes(attributes);
    }
    const entry: RequestSpan = { span, active: trace.setSpan(parent, span), errorType: null, ended: false };
    (request as unknown as Record<typeof SPAN, RequestSpan | null>)[SPAN] = entry;
    return entry;
  };

  const end = (entry: RequestSpan, statusCode: number | null): void => {
    if (entry.ended) return;
    entry.ended = true;
    if (statusCode !== null) {
      entry.span.setAttribute('http.response.status_code', statusCode);
      if (statusCode >= 500) {
        entry.span.setAttribute('error.type', entry.errorType ?? String(statusCode));
        entry.span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    entry.span.end();
  };

  const scope: RequestSpanScope = {
    enter(request, fn) {
      const entry = begin(request);
      return entry === null ? fn() : context.with(entry.active, fn);
    },
    // A request no hook ran for (a framework refusal before routing) is ended here too.
    leave(request, reply, fn) {
      const entry = entryOf(request);
      if (entry === null) return fn();
      end(entry, reply.statusCode);
      return context.with(entry.active, fn);
    },
  };

  const instrument = (app: FastifyInstance): void => {
    // A request property declared up front (Fastify's advice: no shape change per request); only
    // apps with tracing on get it.
    app.decorateRequest(SPAN, null);

    app.addHook('onRequest', (request, _reply, done) => {
      scope.enter(request, done);
    });

    // A body is read from the socket's events, outside the request's context: enter it again for
    // validation, the handler and what follows.
    app.addHook('preValidation', (request, _reply, done) => {
      const entry = entryOf(request);
      if (entry === null) done();
      else context.with(entry.active, done);
    });

    app.addHook('onError', (request, _reply, error, done) => {
      const entry = entryOf(request);
      if (entry !== null) entry.errorType = errorTypeOf(error);
      done();
    });

    app.addHook('onResponse', (request, reply, done) => {
      const entry = entryOf(request);
      if (entry !== null) end(entry, reply.statusCode);
      done();
    });

    app.addHook('onRequestAbort', (request, done) => {
      const entry = entryOf(request);
      if (entry !== null) {
        entry.span.setAttribute('storefront.request.aborted', true);
        end(entry, null);
      }
      done();
    });
  };

  return { scope, instrument };
}
