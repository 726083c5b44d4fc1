import type { FastifyInstance } from 'fastify';

/** CORS for the Storefront API (decision `publishable-keys-and-cors`): what browsers may send and read. */
export const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
// traceparent and tracestate: a shop traced in the browser continues its trace here (decision `tracing-off-costs-nothing`).
export const CORS_ALLOW_HEADERS =
  'X-Publishable-Key, Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, traceparent, tracestate';
export const CORS_EXPOSE_HEADERS =
  'ETag, Location, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, X-Request-Id';

/**
 * Preflight: browsers cannot send the key on OPTIONS, so it is answered without one; the origin is
 * checked against the key on the real request.
 */
export function registerPreflight(app: FastifyInstance, prefix: string): void {
  app.options(`${prefix}/*`, { schema: { hide: true } }, (request, reply) => {
    const origin = request.headers.origin;
    if (typeof origin === 'string' && origin !== '') void reply.header('access-control-allow-origin', origin);
    return reply
      .code(204)
      .header('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
      .header('access-control-allow-methods', CORS_ALLOW_METHODS)
      .header('access-control-allow-headers', CORS_ALLOW_HEADERS)
      .header('access-control-expose-headers', CORS_EXPOSE_HEADERS)
      .header('access-control-max-age', '600')
      .send();
  });
}
