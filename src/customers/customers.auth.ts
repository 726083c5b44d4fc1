import type { FastifyRequest } from 'fastify';
import { resolveCredential } from '../credentials/credentials.service.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { unauthorized } from '../lib/errors.ts';
import { requireStorefront } from '../http/principals.ts';
import { findLiveSession, slideSession } from './customers.repository.ts';
import type { CustomerSessionLifetime } from './customers.service.ts';

export const CUSTOMER_TOKEN_PATTERN = /^ct_[0-9A-Za-z]{40}$/;

/** A session's expiry slides forward at most this often (saves a write on every request). */
const SLIDE_EVERY_MS = 60_000;

/** The signed-in customer of a storefront request. */
export interface CustomerPrincipal {
  storeId: string;
  customerId: string;
  /** The customer's email (lower case): a checkout's email by default. */
  email: string;
  sessionId: string;
  expiresAt: Date;
}

export interface CustomerAuthDeps extends Pick<ServiceDeps, 'db' | 'clock'> {
  sessions: CustomerSessionLifetime;
}

/** The `ct_…` of `Authorization: Bearer ct_…`, or null when the header carries none. */
export function customerTokenOf(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return null;
  const match = /^Bearer\s+(ct_\S*)\s*$/i.exec(authorization);
  return match ? match[1]! : null;
}

const invalid = () =>
  unauthorized('The customer token is invalid or has expired; sign in again.', 'storefront', true);

/**
 * The customer a storefront request is signed in as (D44), or null without a customer token; a
 * token that is unknown, revoked, expired, past its absolute lifetime or of another store than the
 * publishable key's is 401. Its expiry slides by the session TTL on use, never past the absolute
 * lifetime. Resolved only by the routes that need a customer (never on catalog reads).
 */
export async function customerOf(
  deps: CustomerAuthDeps,
  request: FastifyRequest,
): Promise<CustomerPrincipal | null> {
  const token = customerTokenOf(request);
  if (token === null) return null;
  if (!CUSTOMER_TOKEN_PATTERN.test(token)) throw invalid();
  const { storeId } = requireStorefront(request);
  const credential = await resolveCredential(deps, token, 'customer_session');
  // A token of one store is worthless in another: the same answer as an unknown token.
  if (!credential || credential.storeId !== storeId) throw invalid();
  const now = deps.clock.now();
  const row = await findLiveSession(
    deps.db,
    storeId,
    credential.subjectId,
    now,
    new Date(now.getTime() - deps.sessions.maxAgeMs),
  );
  if (!row) throw invalid();
  let expiresAt = row.expires_at;
  if (now.getTime() - row.last_used_at.getTime() >= SLIDE_EVERY_MS) {
    expiresAt = new Date(
      Math.min(now.getTime() + deps.sessions.ttlMs, row.created_at.getTime() + deps.sessions.maxAgeMs),
    );
    await slideSession(deps.db, storeId, row.session_id, expiresAt, now);
  }
  return { storeId, customerId: row.customer_id, email: row.email, sessionId: row.session_id, expiresAt };
}

/** The signed-in customer, or 401 asking for a token. */
export async function requireCustomer(
  deps: CustomerAuthDeps,
  request: FastifyRequest,
): Promise<CustomerPrincipal> {
  const customer = await customerOf(deps, request);
  if (!customer)
    throw unauthorized(
      'Sign in first: send the customer token as Authorization: Bearer ct_… and the publishable key in X-Publishable-Key.',
      'storefront',
    );
  return customer;
}
