import type { Kysely } from 'kysely';
import type { Database, StaffRole } from '../db/tables.ts';
import { notFound } from '../http/errors.ts';
import { randomBase62, sha256Hex } from '../lib/crypto.ts';

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
      .values({ store_id: storeId, staff_id: staff.id, expires_at: expiresAt, last_used_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('credentials')
      .values({ hash: sha256Hex(token), kind: 'staff_session', store_id: storeId, subject_id: session.id })
      .execute();
  });
  return { token, expiresAt, staff };
}
