import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { forbidden, unauthorized } from '../lib/errors.ts';
import type { StaffRole } from './staff.tables.ts';

export const STAFF_TOKEN_PATTERN = /^st_[0-9A-Za-z]{40}$/;

/** The signed-in staff member on admin routes. */
export interface StaffPrincipal {
  storeId: string;
  staffId: string;
  sessionId: string;
  email: string;
  role: StaffRole;
  expiresAt: Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    staff: StaffPrincipal | null;
  }
  interface FastifyContextConfig {
    /** Admin routes reachable without a session (sign-in, verify). */
    public?: boolean;
  }
}

/** A session's expiry slides forward at most this often (saves a write on every request). */
const SLIDE_EVERY_MS = 60_000;

function bearerToken(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1]! : null;
}

/**
 * Admin authentication: `Authorization: Bearer st_…`. The token's SHA-256 is looked up (never the
 * token), the session must be live, and its expiry slides forward by STAFF_SESSION_TTL on use,
 * within STAFF_SESSION_MAX_AGE from sign-in (D30): a stolen token does not live forever.
 */
export function staffAuth(ctx: AppContext) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (request.routeOptions.config.public === true) return;
    const token = bearerToken(request);
    if (token === null)
      throw unauthorized('Send a staff session token as Authorization: Bearer st_….', 'admin');
    if (!STAFF_TOKEN_PATTERN.test(token))
      throw unauthorized('The staff session token is invalid or has expired.', 'admin', true);

    const now = ctx.clock.now();
    const row = await ctx.db
      .selectFrom('credentials as c')
      .innerJoin('staff_sessions as s', (join) =>
        join.onRef('s.store_id', '=', 'c.store_id').onRef('s.id', '=', 'c.subject_id'),
      )
      .innerJoin('staff_members as m', (join) =>
        join.onRef('m.store_id', '=', 's.store_id').onRef('m.id', '=', 's.staff_id'),
      )
      .select([
        's.store_id',
        's.id as session_id',
        's.expires_at',
        's.last_used_at',
        's.created_at',
        'm.id as staff_id',
        'm.email',
        'm.role',
      ])
      .where('c.hash', '=', sha256Hex(token))
      .where('c.kind', '=', 'staff_session')
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', now)
      .where('s.created_at', '>', new Date(now.getTime() - ctx.config.staffSessionMaxAgeMs))
      .executeTakeFirst();
    if (!row) throw unauthorized('The staff session token is invalid or has expired.', 'admin', true);

    let expiresAt = row.expires_at;
    if (now.getTime() - row.last_used_at.getTime() >= SLIDE_EVERY_MS) {
      // Slides by STAFF_SESSION_TTL, never past STAFF_SESSION_MAX_AGE from sign-in (D30).
      expiresAt = new Date(
        Math.min(
          now.getTime() + ctx.config.staffSessionTtlMs,
          row.created_at.getTime() + ctx.config.staffSessionMaxAgeMs,
        ),
      );
      await ctx.db
        .updateTable('staff_sessions')
        .set({ expires_at: expiresAt, last_used_at: now })
        .where('store_id', '=', row.store_id)
        .where('id', '=', row.session_id)
        .execute();
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

/** The signed-in staff member, or 403 when their role is not among `roles` (none = any role). */
export function requireStaff(request: FastifyRequest, ...roles: StaffRole[]): StaffPrincipal {
  const staff = request.staff;
  if (!staff) throw unauthorized('A staff session is required.', 'admin');
  if (roles.length > 0 && !roles.includes(staff.role)) {
    throw forbidden(`This action needs the ${roles.join(' or ')} role; you are ${staff.role}.`);
  }
  return staff;
}
