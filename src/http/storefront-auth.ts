import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyResolver, ResolvedKey } from '../keys/key-resolver.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated publishable key on storefront routes (null elsewhere). */
    storefront: ResolvedKey | null;
  }
}

export const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, OPTIONS';
export const CORS_ALLOW_HEADERS =
  'X-Publishable-Key, Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match';
export const CORS_EXPOSE_HEADERS =
  'ETag, Location, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, X-Request-Id';

/** The key from `X-Publishable-Key`, or from `Authorization: Bearer pk_…`. */
export function publishableKeyOf(request: FastifyRequest): string | null {
  const header = request.headers['x-publishable-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1]!;
  }
  return null;
}

/** The storefront's authentication: a store scope from the key, then the Origin guard (D11). */
export function storefrontAuth(resolver: KeyResolver) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.method === 'OPTIONS') return;
    const origin = request.headers.origin;
    void reply.header('vary', 'Origin');
    if (typeof origin === 'string' && origin !== '') {
      // Let browser code read a 401's problem body; an allowed origin is confirmed below once the
      // key is known (a 403 for other origins carries no CORS header).
      void reply.header('access-control-allow-origin', origin);
    }
    const key = publishableKeyOf(request);
    if (key === null) {
      throw unauthorized(
        'Send a publishable key in the X-Publishable-Key header or as Authorization: Bearer pk_….',
        'storefront',
      );
    }
    const resolved = await resolver.resolve(key);
    if (!resolved)
      throw unauthorized('The publishable key is unknown or has been revoked.', 'storefront', true);

    if (typeof origin === 'string' && origin !== '') {
      if (!resolved.allowedOrigins.includes(origin)) {
        reply.removeHeader('access-control-allow-origin');
        throw forbidden(`The origin ${origin} is not in this key's allowedOrigins.`);
      }
      void reply.header('access-control-allow-origin', origin);
      void reply.header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
    }
    request.storefront = resolved;
  };
}

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

export function requireStorefront(request: FastifyRequest): ResolvedKey {
  if (!request.storefront) throw unauthorized('A publishable key is required.', 'storefront');
  return request.storefront;
}
