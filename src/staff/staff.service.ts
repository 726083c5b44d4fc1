import type { Kysely } from 'kysely';
import { byCreated } from '../db/keyset.ts';
import type { Database } from '../db/tables.ts';
import type { StaffRole } from '../http/principals.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';
import { isEmail } from '../lib/validate.ts';
import {
  deleteMember,
  findMember,
  findMemberByEmail,
  insertMember,
  lockOwners,
  membersQuery,
  updateMemberRole,
} from './staff.repository.ts';
import type { StaffMember } from './staff.schemas.ts';
import type { StaffMemberRow } from './staff.tables.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { openSession, revokeCredentialsOf, type SessionLifetime } from '../sign-in/sign-in.service.ts';
import { STAFF_SIGN_IN } from './staff.sign-in.ts';

export type StaffDeps = ServiceDeps;

/** How long staff sessions live (decision `staff-sessions`): sliding by `ttlMs` within `maxAgeMs` of the sign-in. */
export type { SessionLifetime } from '../sign-in/sign-in.service.ts';

export interface StaffSession {
  token: string;
  expiresAt: Date;
  staff: { id: string; email: string; role: StaffRole };
}

export function staffRowToMember(row: StaffMemberRow): StaffMember {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const noMember = () => notFound('No staff member with that id in this store.');

/**
 * Opens a staff session: an opaque `st_` token whose SHA-256 is the only thing stored.
 * The CLI (`storefront staff token`) and the emailed-code sign-in both end here.
 */
export async function openStaffSession(
  deps: Pick<StaffDeps, 'db' | 'clock'> & { sessions: SessionLifetime },
  storeId: string,
  email: string,
): Promise<StaffSession> {
  const staff = await findMemberByEmail(deps.db, storeId, email.trim().toLowerCase());
  if (!staff) throw notFound(`No staff member ${email} in this store.`);
  const { token, expiresAt } = await deps.db
    .transaction()
    .execute((trx) =>
      openSession(trx, STAFF_SIGN_IN, deps.sessions, { storeId, owner: staff.id, now: deps.clock.now() }),
    );
  return { token, expiresAt, staff: { id: staff.id, email: staff.email, role: staff.role } };
}

export function listStaff(
  deps: StaffDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<StaffMember>> {
  return byCreated(deps.cursors, `${storeId}:staff`, membersQuery(deps.db, storeId), page, staffRowToMember);
}

export async function getStaffMember(
  deps: Pick<StaffDeps, 'db'>,
  storeId: string,
  staffId: string,
): Promise<StaffMember> {
  const row = await findMember(deps.db, storeId, staffId);
  if (!row) throw noMember();
  return staffRowToMember(row);
}

/** Adds a staff member (in the caller's transaction when `deps.db` is one). */
export async function addStaffMember(
  deps: Pick<StaffDeps, 'db' | 'clock'>,
  storeId: string,
  input: { email: string; role: StaffRole },
): Promise<StaffMember> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) {
    throw validationFailed('The email address is invalid.', [
      { pointer: '/email', detail: 'must be an email address' },
    ]);
  }
  const row = await insertMember(deps.db, { storeId, email, role: input.role, now: deps.clock.now() });
  if (!row) throw new AppError('staff_exists', 409, `${email} is already a staff member of this store.`);
  return staffRowToMember(row);
}

const lastOwner = (): AppError =>
  new AppError('last_owner', 409, 'A store needs at least one owner: make someone else owner first.');

/**
 * Locks the store's owner rows and fails if the change would leave none. Taking the lock first
 * means two owners removing each other at the same moment cannot both succeed.
 */
async function assertAnotherOwner(db: Kysely<Database>, storeId: string, staffId: string): Promise<void> {
  const owners = await lockOwners(db, storeId);
  if (!owners.some((id) => id !== staffId)) throw lastOwner();
}

export async function changeStaffRole(
  deps: Pick<StaffDeps, 'db' | 'clock'>,
  storeId: string,
  staffId: string,
  role: StaffRole,
): Promise<StaffMember> {
  return deps.db.transaction().execute(async (trx) => {
    const current = await findMember(trx, storeId, staffId);
    if (!current) throw noMember();
    if (current.role === 'owner' && role !== 'owner') await assertAnotherOwner(trx, storeId, staffId);
    return staffRowToMember(await updateMemberRole(trx, storeId, staffId, role, deps.clock.now()));
  });
}

/** Removes a staff member and ends every session they hold (credentials included). */
export async function removeStaffMember(
  deps: Pick<StaffDeps, 'db'>,
  storeId: string,
  staffId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await findMember(trx, storeId, staffId);
    if (!current) throw noMember();
    if (current.role === 'owner') await assertAnotherOwner(trx, storeId, staffId);
    await revokeCredentialsOf(trx, STAFF_SIGN_IN, storeId, staffId);
    await deleteMember(trx, storeId, staffId);
  });
}
