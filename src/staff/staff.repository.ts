import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { StaffRole } from '../http/principals.ts';
import type { StaffMemberRow } from './staff.tables.ts';

/** All SQL on staff members (their sessions' and codes' is the sign-in module's). */

// Members

export function membersQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'staff_members', StaffMemberRow> {
  return db.selectFrom('staff_members').selectAll().where('store_id', '=', storeId);
}

export function findMember(
  db: Kysely<Database>,
  storeId: string,
  staffId: string,
): Promise<StaffMemberRow | undefined> {
  return membersQuery(db, storeId).where('id', '=', staffId).executeTakeFirst();
}

export function findMemberByEmail(
  db: Kysely<Database>,
  storeId: string,
  email: string,
): Promise<StaffMemberRow | undefined> {
  return membersQuery(db, storeId).where('email', '=', email).executeTakeFirst();
}

/** Inserts a member unless the address is one already (then undefined). */
export function insertMember(
  db: Kysely<Database>,
  member: { storeId: string; email: string; role: StaffRole; now: Date },
): Promise<StaffMemberRow | undefined> {
  return db
    .insertInto('staff_members')
    .values({
      store_id: member.storeId,
      email: member.email,
      role: member.role,
      created_at: member.now,
      updated_at: member.now,
    })
    .onConflict((oc) => oc.columns(['store_id', 'email']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateMemberRole(
  db: Kysely<Database>,
  storeId: string,
  staffId: string,
  role: StaffRole,
  now: Date,
): Promise<StaffMemberRow> {
  return db
    .updateTable('staff_members')
    .set({ role, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', staffId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteMember(db: Kysely<Database>, storeId: string, staffId: string): Promise<void> {
  await db.deleteFrom('staff_members').where('store_id', '=', storeId).where('id', '=', staffId).execute();
}

/** Locks the store's owner rows and returns their ids. */
export async function lockOwners(db: Kysely<Database>, storeId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('staff_members')
    .select('id')
    .where('store_id', '=', storeId)
    .where('role', '=', 'owner')
    .forUpdate()
    .execute();
  return rows.map((row) => row.id);
}

export async function ownerAddresses(db: Kysely<Database>, storeId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('staff_members')
    .select('email')
    .where('store_id', '=', storeId)
    .where('role', '=', 'owner')
    .orderBy('email')
    .execute();
  return rows.map((row) => row.email);
}

// Sessions (their SQL is the sign-in module's; this joins the member)

/** A live session (not revoked, not expired, within the absolute lifetime) with its member. */
export function findLiveSession(
  db: Kysely<Database>,
  storeId: string,
  sessionId: string,
  now: Date,
  createdAfter: Date,
) {
  return db
    .selectFrom('staff_sessions as s')
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
    .where('s.store_id', '=', storeId)
    .where('s.id', '=', sessionId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('s.created_at', '>', createdAfter)
    .executeTakeFirst();
}
