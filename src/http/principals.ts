import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../lib/errors.ts';

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
    /**
     * On admin routes, who may call: `public` (sign-in, verify: no session) or the lowest staff
     * role. Set from ADMIN_ACCESS (admin-access.ts) as the route is registered, never by the route.
     */
    access?: 'public' | StaffRole;
  }
}

export function requireStorefront(request: FastifyRequest): StorefrontPrincipal {
  if (!request.storefront) throw unauthorized('A publishable key is required.', 'storefront');
  return request.storefront;
}

/**
 * The signed-in staff member. Their role was checked against the route's entry in ADMIN_ACCESS
 * before the route ran (staff authentication).
 */
export function requireStaff(request: FastifyRequest): StaffPrincipal {
  const staff = request.staff;
  if (!staff) throw unauthorized('A staff session is required.', 'admin');
  return staff;
}
