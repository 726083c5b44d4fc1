import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { StaffRole } from '../http/principals.ts';
import type { StaffMemberRow } from './staff.tables.ts';

/** All SQL on staff members, their sessions and their sign-in codes. */

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

/** Locks the member row (serialises sign-in code requests of one member). */
export async function lockMember(db: Kysely<Database>, storeId: string, staffId: string): Promise<void> {
  await db
    .selectFrom('staff_members')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', '=', staffId)
    .forUpdate()
    .execute();
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

// Sessions

export async function insertSession(
  db: Kysely<Database>,
  session: { storeId: string; staffId: string; expiresAt: Date; now: Date },
): Promise<string> {
  const row = await db
    .insertInto('staff_sessions')
    .values({
      store_id: session.storeId,
      staff_id: session.staffId,
      expires_at: session.expiresAt,
      last_used_at: session.now,
      created_at: session.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

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

export async function slideSession(
  db: Kysely<Database>,
  storeId: string,
  sessionId: string,
  expiresAt: Date,
  now: Date,
): Promise<void> {
  await db
    .updateTable('staff_sessions')
    .set({ expires_at: expiresAt, last_used_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', sessionId)
    .execute();
}

export async function markSessionRevoked(
  db: Kysely<Database>,
  storeId: string,
  sessionId: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('staff_sessions')
    .set({ revoked_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', sessionId)
    .execute();
}

export async function sessionIdsOf(
  db: Kysely<Database>,
  storeId: string,
  staffId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('staff_sessions')
    .select('id')
    .where('store_id', '=', storeId)
    .where('staff_id', '=', staffId)
    .execute();
  return rows.map((row) => row.id);
}

/** Sessions expired, or revoked before `revokedBefore`, at most `limit`. */
export function staleSessions(db: Kysely<Database>, now: Date, revokedBefore: Date, limit: number) {
  return db
    .selectFrom('staff_sessions')
    .select(['store_id', 'id'])
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('revoked_at', '<', revokedBefore)]))
    .limit(limit)
    .execute();
}

export async function deleteSession(db: Kysely<Database>, storeId: string, sessionId: string): Promise<void> {
  await db.deleteFrom('staff_sessions').where('store_id', '=', storeId).where('id', '=', sessionId).execute();
}

// Sign-in codes

/** Codes made for a member since `since`: in all, and for one of its clients. */
export async function countCodesSince(
  db: Kysely<Database>,
  code: { storeId: string; staffId: string; clientHash: string },
  since: Date,
): Promise<{ member: number; client: number }> {
  const row = await db
    .selectFrom('sign_in_codes')
    .select((eb) => [
      eb.fn.countAll<number>().as('member'),
      eb.fn.countAll<number>().filterWhere('client_hash', '=', code.clientHash).as('client'),
    ])
    .where('store_id', '=', code.storeId)
    .where('staff_id', '=', code.staffId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { member: Number(row.member), client: Number(row.client) };
}

/** Voids the pending codes of one client of a member (not other clients'). */
export async function voidPendingCodes(
  db: Kysely<Database>,
  code: { storeId: string; staffId: string; clientHash: string },
  now: Date,
): Promise<void> {
  await db
    .updateTable('sign_in_codes')
    .set({ voided_at: now })
    .where('store_id', '=', code.storeId)
    .where('staff_id', '=', code.staffId)
    .where('client_hash', '=', code.clientHash)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .execute();
}

export async function insertCode(
  db: Kysely<Database>,
  code: { storeId: string; staffId: string; clientHash: string; hash: string; expiresAt: Date; now: Date },
): Promise<void> {
  await db
    .insertInto('sign_in_codes')
    .values({
      store_id: code.storeId,
      staff_id: code.staffId,
      client_hash: code.clientHash,
      code_hash: code.hash,
      expires_at: code.expiresAt,
      created_at: code.now,
    })
    .execute();
}

/** Deletes at most `limit` codes made before `before` (a system purge, across stores); returns how many. */
export async function deleteCodesMadeBefore(
  db: Kysely<Database>,
  before: Date,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('sign_in_codes')
    .where('id', 'in', (eb) =>
      eb.selectFrom('sign_in_codes').select('id').where('created_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Spends one attempt on the newest usable code of a member's client and hands back its hash to
 * compare, in one
 * conditional UPDATE: a guess is counted before it is compared, and a code whose attempts are used
 * up is not returned at all, so at most `maxAttempts` guesses ever see a code's hash however many
 * arrive at once (concurrent UPDATEs of the row wait for each other and re-check the condition).
 */
export function spendCodeAttempt(
  db: Kysely<Database>,
  code: { storeId: string; staffId: string; clientHash: string },
  now: Date,
  maxAttempts: number,
): Promise<{ id: string; code_hash: string } | undefined> {
  return db
    .updateTable('sign_in_codes')
    .set({ attempts: sql<number>`attempts + 1` })
    .where('store_id', '=', code.storeId)
    .where('id', '=', (eb) =>
      eb
        .selectFrom('sign_in_codes')
        .select('id')
        .where('store_id', '=', code.storeId)
        .where('staff_id', '=', code.staffId)
        .where('client_hash', '=', code.clientHash)
        .where('used_at', 'is', null)
        .where('voided_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .limit(1),
    )
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .returning(['id', 'code_hash'])
    .executeTakeFirst();
}

/** Uses a code once (its attempt already counted): true when this call used it. */
export async function useCode(
  db: Kysely<Database>,
  storeId: string,
  codeId: string,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('sign_in_codes')
    .set({ used_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
