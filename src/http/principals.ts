import type { FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../lib/errors.ts';

/**
 * Who is calling, as the authentication hooks leave it on the request: a publishable key on
 * storefront routes (resolved by keys/), a staff session on admin routes (resolved by staff/).
 * Routes read them through `requireStorefront` and `requireStaff`, so no feature needs another
 * feature to know its caller.
 */

export type StaffRole = 'owner' | 'admin' | 'staff';

/** What a valid publishable key grants: its store, and the key's own settings. */
export interface StorefrontPrincipal {
  storeId: string;
  keyId: string;
  allowedOrigins: readonly string[];
  rateLimitRead: number | null;
  rateLimitWrite: number | null;
}

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
    /** The authenticated publishable key on storefront routes (null elsewhere). */
    storefront: StorefrontPrincipal | null;
    /** The signed-in staff member on admin routes (null elsewhere). */
    staff: StaffPrincipal | null;
  }
  interface FastifyContextConfig {
    /** Admin routes reachable without a session (sign-in, verify). */
    public?: boolean;
  }
}

export function requireStorefront(request: FastifyRequest): StorefrontPrincipal {
  if (!request.storefront) throw unauthorized('A publishable key is required.', 'storefront');
  return request.storefront;
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
