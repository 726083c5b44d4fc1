import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const CATALOG_CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=300';
export const CATALOG_VARY = 'X-Publishable-Key, Authorization, Origin';

function etagOf(payload: string | Buffer): string {
  return `"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
}

function matches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/**
 * onSend hook for cacheable reads (catalog, content, store): a strong ETag over the exact bytes
 * sent, `Cache-Control`/`Vary` per DESIGN D13, and 304 Not Modified when If-None-Match matches.
 */
export function cacheableOnSend(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
    return Promise.resolve(payload);
  }
  const etag = etagOf(payload);
  void reply.header('etag', etag);
  void reply.header('cache-control', CATALOG_CACHE_CONTROL);
  void reply.header('vary', CATALOG_VARY);
  const ifNoneMatch = request.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string' && matches(ifNoneMatch, etag)) {
    void reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return Promise.resolve('');
  }
  return Promise.resolve(payload);
}

/** onSend hook for private, changing resources (carts, orders). */
export function noStoreOnSend(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  void reply.header('cache-control', 'no-store');
  return Promise.resolve(payload);
}
