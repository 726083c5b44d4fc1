import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../lib/errors.ts';
import { roleMayCall } from '../http/admin-access.ts';
import { sessionAuthenticator, tokenPattern, type SessionAuthDeps } from '../sign-in/sign-in.service.ts';
import { findLiveSession } from './staff.repository.ts';
import { STAFF_SIGN_IN } from './staff.sign-in.ts';

export const STAFF_TOKEN_PATTERN = tokenPattern(STAFF_SIGN_IN);

function bearerToken(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1]! : null;
}

export type StaffAuthDeps = SessionAuthDeps;

const authenticateStaff = sessionAuthenticator(STAFF_SIGN_IN, {
  invalid: () => unauthorized('The staff session token is invalid or has expired.', 'admin', true),
  findLive: findLiveSession,
});

/**
 * Admin authentication: `Authorization: Bearer st_…`, a live staff session whose expiry slides by
 * STAFF_SESSION_TTL within STAFF_SESSION_MAX_AGE from sign-in (`sessionAuthenticator`, decision `staff-sessions`). Then
 * the member's role must reach the route's `access` (ADMIN_ACCESS), else 403 `forbidden`, before
 * the request is even validated.
 */
export function staffAuth(deps: StaffAuthDeps) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const access = request.routeOptions.config.access;
    if (access === 'public') return;
    const token = bearerToken(request);
    if (token === null)
      throw unauthorized('Send a staff session token as Authorization: Bearer st_….', 'admin');
    const { session: row, expiresAt } = await authenticateStaff(deps, token);
    // Every admin route has its access (ADMIN_ACCESS); none only where no route matches (a 404).
    if (access !== undefined && !roleMayCall(row.role, access)) {
      const needs = access === 'owner' ? 'the owner role' : `the ${access} role or higher`;
      throw forbidden(`This action needs ${needs}; you are ${row.role}.`);
    }
    request.staff = {
      storeId: row.store_id,
      staffId: row.staff_id,
      sessionId: row.session_id,
      email: row.email,
      role: row.role,
      expiresAt,
    };
  };
}
