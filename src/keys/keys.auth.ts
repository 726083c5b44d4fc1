import type { FastifyReply, FastifyRequest } from 'fastify';
import { CORS_EXPOSE_HEADERS } from '../http/cors.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';
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
