import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveCredential } from '../credentials/credentials.service.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';
import { roleMayCall } from '../http/admin-access.ts';
import { findLiveSession, slideSession } from './staff.repository.ts';
import type { SessionLifetime } from './staff.service.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

export const STAFF_TOKEN_PATTERN = /^st_[0-9A-Za-z]{40}$/;

/** A session's expiry slides forward at most this often (saves a write on every request). */
const SLIDE_EVERY_MS = 60_000;

function bearerToken(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1]! : null;
}

export interface StaffAuthDeps extends Pick<ServiceDeps, 'db' | 'clock'> {
  sessions: SessionLifetime;
}

const invalid = () => unauthorized('The staff session token is invalid or has expired.', 'admin', true);

/**
 * Admin authentication: `Authorization: Bearer st_…`. The token's SHA-256 is looked up (never the
 * token), the session must be live, and its expiry slides forward by STAFF_SESSION_TTL on use,
 * within STAFF_SESSION_MAX_AGE from sign-in (D30): a stolen token does not live forever. Then the
 * member's role must reach the route's `access` (ADMIN_ACCESS), else 403 `forbidden`, before the
 * request is even validated.
 */
export function staffAuth(deps: StaffAuthDeps) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const access = request.routeOptions.config.access;
    if (access === 'public') return;
    const token = bearerToken(request);
    if (token === null)
      throw unauthorized('Send a staff session token as Authorization: Bearer st_….', 'admin');
    if (!STAFF_TOKEN_PATTERN.test(token)) throw invalid();

    const now = deps.clock.now();
    const credential = await resolveCredential(deps, token, 'staff_session');
    if (!credential) throw invalid();
    const row = await findLiveSession(
      deps.db,
      credential.storeId,
      credential.subjectId,
      now,
      new Date(now.getTime() - deps.sessions.maxAgeMs),
    );
    if (!row) throw invalid();

    let expiresAt = row.expires_at;
    if (now.getTime() - row.last_used_at.getTime() >= SLIDE_EVERY_MS) {
      // Slides by STAFF_SESSION_TTL, never past STAFF_SESSION_MAX_AGE from sign-in (D30).
      expiresAt = new Date(
        Math.min(now.getTime() + deps.sessions.ttlMs, row.created_at.getTime() + deps.sessions.maxAgeMs),
      );
      await slideSession(deps.db, row.store_id, row.session_id, expiresAt, now);
    }
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
