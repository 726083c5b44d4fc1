import type { FastifyReply, FastifyRequest } from 'fastify';
import { CORS_EXPOSE_HEADERS } from '../http/cors.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';
import type { StorefrontPrincipal } from '../http/principals.ts';
import type { KeyResolver } from './key-resolver.ts';

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

/**
 * The storefront's authentication: a store scope from the key, then the Origin guard (decision `publishable-keys-and-cors`). A
 * callback hook that answers at once when the key is in the resolver's cache (nearly every
 * request): no promise on the hot path of every storefront read.
 */
export function storefrontAuth(resolver: KeyResolver) {
  return function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    if (request.method === 'OPTIONS') {
      done();
      return;
    }
    const origin = request.headers.origin;
    const hasOrigin = typeof origin === 'string' && origin !== '';
    void reply.header('vary', 'Origin');
    // Let browser code read a 401's problem body; an allowed origin is confirmed below once the key
    // is known (a 403 for other origins carries no CORS header).
    if (hasOrigin) void reply.header('access-control-allow-origin', origin);
    const key = publishableKeyOf(request);
    if (key?.startsWith('ct_')) {
      done(
        unauthorized(
          'A customer token (Authorization: Bearer ct_…) travels beside the publishable key: send the key in the X-Publishable-Key header.',
          'storefront',
        ),
      );
      return;
    }
    if (key === null) {
      done(
        unauthorized(
          'Send a publishable key in the X-Publishable-Key header or as Authorization: Bearer pk_….',
          'storefront',
        ),
      );
      return;
    }
    const admit = (resolved: StorefrontPrincipal | null): void => {
      if (!resolved) {
        done(unauthorized('The publishable key is unknown or has been revoked.', 'storefront', true));
        return;
      }
      if (hasOrigin) {
        if (!resolved.allowedOrigins.includes(origin)) {
          reply.removeHeader('access-control-allow-origin');
          done(forbidden(`The origin ${origin} is not in this key's allowedOrigins.`));
          return;
        }
        void reply.header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
      }
      request.storefront = resolved;
      done();
    };
    const cached = resolver.cached(key);
    if (cached !== undefined) admit(cached);
    else resolver.resolve(key).then(admit, done);
  };
}
