import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { isEmail } from '../lib/validate.ts';
import { randomBase62, sha256Hex } from '../lib/crypto.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';
import type { StaffMemberRow, StaffRole } from './staff.tables.ts';

export const STAFF_TOKEN_PREFIX = 'st_';

export interface StaffSession {
  token: string;
  expiresAt: Date;
  staff: { id: string; email: string; role: StaffRole };
}

/**
 * Opens a staff session: an opaque `st_` token whose SHA-256 is the only thing stored.
 * The CLI (`storefront staff token`) and the emailed-code sign-in both end here.
 */
export async function openStaffSession(
  db: Kysely<Database>,
  storeId: string,
  email: string,
  ttlMs: number,
  now: Date = new Date(),
): Promise<StaffSession> {
  const staff = await db
    .selectFrom('staff_members')
    .select(['id', 'email', 'role'])
    .where('store_id', '=', storeId)
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  if (!staff) throw notFound(`No staff member ${email} in this store.`);

  const token = `${STAFF_TOKEN_PREFIX}${randomBase62(40)}`;
  const expiresAt = new Date(now.getTime() + ttlMs);
  await db.transaction().execute(async (trx) => {
    const session = await trx
      .insertInto('staff_sessions')
      .values({
        store_id: storeId,
        staff_id: staff.id,
        expires_at: expiresAt,
        last_used_at: now,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('credentials')
      .values({ hash: sha256Hex(token), kind: 'staff_session', store_id: storeId, subject_id: session.id })
      .execute();
  });
  return { token, expiresAt, staff };
}

export interface StaffMember {
  id: string;
  email: string;
  role: StaffRole;
  createdAt: string;
  updatedAt: string;
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

const lastOwner = (): AppError =>
  new AppError('last_owner', 409, 'A store needs at least one owner: make someone else owner first.');

/**
 * Locks the store's owner rows and fails if the change would leave none. Taking the lock first
 * means two owners removing each other at the same moment cannot both succeed.
 */
async function assertAnotherOwner(
  trx: Transaction<Database>,
  storeId: string,
  staffId: string,
): Promise<void> {
  const owners = await trx
    .selectFrom('staff_members')
    .select('id')
    .where('store_id', '=', storeId)
    .where('role', '=', 'owner')
    .forUpdate()
    .execute();
  if (!owners.some((owner) => owner.id !== staffId)) throw lastOwner();
}

export async function addStaffMember(
  db: Kysely<Database>,
  storeId: string,
  input: { email: string; role: StaffRole },
): Promise<StaffMember> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) {
    throw validationFailed('The email address is invalid.', [
      { pointer: '/email', detail: 'must be an email address' },
    ]);
  }
  const row = await db
    .insertInto('staff_members')
    .values({ store_id: storeId, email, role: input.role })
    .onConflict((oc) => oc.columns(['store_id', 'email']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError('staff_exists', 409, `${email} is already a staff member of this store.`);
  return staffRowToMember(row);
}

export async function changeStaffRole(
  db: Kysely<Database>,
  storeId: string,
  staffId: string,
  role: StaffRole,
): Promise<StaffMember> {
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('staff_members')
      .select('role')
      .where('store_id', '=', storeId)
      .where('id', '=', staffId)
      .executeTakeFirst();
    if (!current) throw notFound('No staff member with that id in this store.');
    if (current.role === 'owner' && role !== 'owner') await assertAnotherOwner(trx, storeId, staffId);
    const row = await trx
      .updateTable('staff_members')
      .set({ role, updated_at: new Date() })
      .where('store_id', '=', storeId)
      .where('id', '=', staffId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return staffRowToMember(row);
  });
}

/** Removes a staff member and ends every session they hold (credentials included). */
export async function removeStaffMember(
  db: Kysely<Database>,
  storeId: string,
  staffId: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('staff_members')
      .select('role')
      .where('store_id', '=', storeId)
      .where('id', '=', staffId)
      .executeTakeFirst();
    if (!current) throw notFound('No staff member with that id in this store.');
    if (current.role === 'owner') await assertAnotherOwner(trx, storeId, staffId);
    const sessions = trx
      .selectFrom('staff_sessions')
      .select('id')
      .where('store_id', '=', storeId)
      .where('staff_id', '=', staffId);
    await trx
      .deleteFrom('credentials')
      .where('store_id', '=', storeId)
      .where('kind', '=', 'staff_session')
      .where('subject_id', 'in', sessions)
      .execute();
    await trx.deleteFrom('staff_members').where('store_id', '=', storeId).where('id', '=', staffId).execute();
  });
}
