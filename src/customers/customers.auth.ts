import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../lib/errors.ts';
import { requireStorefront } from '../http/principals.ts';
import { sessionAuthenticator, tokenPattern, type SessionAuthDeps } from '../sign-in/sign-in.service.ts';
import { membershipsOf } from './customer-groups.repository.ts';
import { findLiveSession } from './customers.repository.ts';
import { CUSTOMER_SIGN_IN } from './customers.sign-in.ts';

export const CUSTOMER_TOKEN_PATTERN = tokenPattern(CUSTOMER_SIGN_IN);

/** The signed-in customer of a storefront request. */
export interface CustomerPrincipal {
  storeId: string;
  customerId: string;
  /** The customer's email (lower case): a checkout's email by default. */
  email: string;
  sessionId: string;
  expiresAt: Date;
}

export type CustomerAuthDeps = SessionAuthDeps;

/** The `ct_…` of `Authorization: Bearer ct_…`, or null when the header carries none. */
export function customerTokenOf(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return null;
  const match = /^Bearer\s+(ct_\S*)\s*$/i.exec(authorization);
  return match ? match[1]! : null;
}

const authenticateCustomer = sessionAuthenticator(CUSTOMER_SIGN_IN, {
  invalid: () =>
    unauthorized('The customer token is invalid or has expired; sign in again.', 'storefront', true),
  findLive: findLiveSession,
});

/**
 * The customer a storefront request is signed in as (decision `customer-accounts`), or null without a customer token; a
 * token that is unknown, revoked, expired, past its absolute lifetime or of another store than the
 * publishable key's is 401 (`sessionAuthenticator`: its expiry slides by the session TTL on use,
 * never past the absolute lifetime). Resolved only by the routes that need a customer (never on
 * catalog reads).
 */
export async function customerOf(
  deps: CustomerAuthDeps,
  request: FastifyRequest,
): Promise<CustomerPrincipal | null> {
  const token = customerTokenOf(request);
  if (token === null) return null;
  const { session, expiresAt } = await authenticateCustomer(
    deps,
    token,
    () => requireStorefront(request).storeId,
  );
  return {
    storeId: session.store_id,
    customerId: session.customer_id,
    email: session.email,
    sessionId: session.session_id,
    expiresAt,
  };
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

/**
 * The groups of the customer a storefront request is signed in as, sorted (decision
 * `customer-groups`): [] without a customer token; a token that is not valid is 401, as
 * `customerOf` answers. What prices a signed-in customer sees (the composition hands it to the
 * catalog, which cannot import customers).
 */
export async function customerGroupIdsOf(deps: CustomerAuthDeps, request: FastifyRequest): Promise<string[]> {
  return (await customerBuyerOf(deps, request))?.groupIds ?? [];
}

/** The request's customer and their groups (what prices and promotions a cart for them), or null. */
export async function customerBuyerOf(
  deps: CustomerAuthDeps,
  request: FastifyRequest,
): Promise<{ customerId: string; groupIds: string[] } | null> {
  const customer = await customerOf(deps, request);
  if (!customer) return null;
  const rows = await membershipsOf(deps.db, customer.storeId, [customer.customerId]);
  return { customerId: customer.customerId, groupIds: rows.map((row) => row.group_id) };
}
