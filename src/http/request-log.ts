import type { FastifyReply, FastifyRequest } from 'fastify';
import fastify from 'fastify';
import { stdSerializers } from 'pino';

/**
 * How requests appear in the log (decision `request-log-lines`, docs/observability.md): a search's
 * `?q=victim@example.com` or a sign-in link's token must never reach a log line, where erasure
 * cannot reach it. Every line that names a request (Fastify's `incoming request`, a 5xx's `request
 * failed`, framework refusals, 404s) goes through the `req` serializer here: the route pattern, and
 * the path with each query value replaced (the parameter names stay) and any path segment holding
 * an `@` (an email typed into a path) replaced too.
 */

export const REDACTED = '[redacted]';

/** A path segment that may be an email address (`@`, raw or percent-encoded). */
const EMAIL_LIKE = /@|%40/i;

/** `url` (a request target: path and query) with its query values and email-like segments redacted. */
export function redactedUrl(url: string): string {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const safePath = path
    .split('/')
    .map((segment) => (EMAIL_LIKE.test(segment) ? REDACTED : segment))
    .join('/');
  if (mark < 0) return safePath;
  const query = url
    .slice(mark + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = (equals < 0 ? pair : pair.slice(0, equals)).slice(0, 64);
      return EMAIL_LIKE.test(name) ? REDACTED : `${name}=${REDACTED}`;
    })
    .join('&');
  return query === '' ? safePath : `${safePath}?${query}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
  routeOptions?: { url?: string };
}

/** The `req` of a log line: Fastify's fields, the URL redacted, and the route pattern when one matched. */
function requestSerializer(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    ...(request.routeOptions?.url === undefined ? {} : { route: request.routeOptions.url }),
    url: redactedUrl(request.url ?? ''),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * pino's error serializer without PostgreSQL's `detail`, which quotes the values of the row that
 * failed (`Key (email)=(victim@example.com) already exists.`).
 */
function errorSerializer(error: Error): Record<string, unknown> {
  const serialized = stdSerializers.err(error) as unknown as Record<string, unknown>;
  if (typeof serialized === 'object' && serialized !== null && 'detail' in serialized)
    delete serialized.detail;
  return serialized;
}

/** Secret headers never written, whatever logs a request's headers. */
const REDACT_PATHS = ['req.headers.authorization', 'req.headers["x-publishable-key"]', 'req.headers.cookie'];

/**
 * Logger options (pino's, as Fastify takes them) with the serializers and redactions above added to
 * whatever `options` set: the app's defaults, or a test's stream.
 */
export function withRequestRedaction<T>(options: T): T {
  if (typeof options !== 'object' || options === null) return options;
  const given = options as {
    serializers?: Record<string, unknown>;
    redact?: string[] | { paths?: string[] };
  };
  const paths = Array.isArray(given.redact) ? given.redact : (given.redact?.paths ?? []);
  return {
    ...options,
    serializers: { ...given.serializers, req: requestSerializer, err: errorSerializer },
    redact: [...new Set([...paths, ...REDACT_PATHS])],
  };
}

/**
 * What the request's own log lines run inside (tracing: its server span, so that they carry its
 * trace id); telemetry gives one when tracing is on.
 */
export interface RequestScope {
  /** Runs `fn` within the request's scope, opening it first if the request has none yet. */
  enter<T>(request: FastifyRequest, fn: () => T): T;
  /** Closes the request's scope (after its answer, if not closed already) and runs `fn` within it. */
  leave<T>(request: FastifyRequest, reply: FastifyReply, fn: () => T): T;
}

/**
 * Fastify's per-request log lines (its LogController): `incoming request` and `request completed`
 * within the request's scope (tracing on: its span, opened here, before Fastify's first hook, so the
 * first line of a request already carries its trace id), and a route-not-found line with the
 * redacted URL instead of the raw one.
 */
export class RequestLogController extends fastify.LogController {
  readonly #scope: RequestScope | null;

  constructor(scope: RequestScope | null) {
    super();
    this.#scope = scope;
  }

  override incomingRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (this.#scope === null) super.incomingRequest(request, reply, metadata);
    else this.#scope.enter(request, () => super.incomingRequest(request, reply, metadata));
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (this.#scope === null) super.requestCompleted(error, request, reply, metadata);
    else this.#scope.leave(request, reply, () => super.requestCompleted(error, request, reply, metadata));
  }

  override routeNotFound(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.info({ req: request }, 'route not found');
  }
}
