import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const CATALOG_MAX_AGE = 30;
export const CATALOG_STALE_WHILE_REVALIDATE = 300;
export const CATALOG_CACHE_CONTROL = `public, max-age=${CATALOG_MAX_AGE}, stale-while-revalidate=${CATALOG_STALE_WHILE_REVALIDATE}`;
export const CATALOG_VARY = 'X-Publishable-Key, Authorization, Origin';

/** A strong ETag over the exact bytes of a body. */
export function etagOf(payload: string | Buffer): string {
  return `"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
}

/** Whether an If-None-Match header names `etag` (or is `*`); weak validators compare by their tag. */
export function ifNoneMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** onSend hook for private, changing resources (carts, checkout, orders, the admin API). */
export function noStoreOnSend(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  void reply.header('cache-control', 'no-store');
  return Promise.resolve(payload);
}
