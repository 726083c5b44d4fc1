import { randomInt, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext } from '../http/context.ts';
import { hmacSha256, safeEqual } from '../lib/crypto.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { MAIL_LOOP } from '../mail/mail-worker.loop.ts';
import { openStaffSession, type StaffSession } from './staff.service.ts';
import { unauthorized } from '../lib/errors.ts';

export const SIGN_IN_CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
/** At most this many codes per staff member per hour (the rest are silently not sent). */
export const MAX_CODES_PER_HOUR = 5;

function hashCode(ctx: AppContext, staffId: string, code: string): string {
  return hmacSha256(ctx.signInCodeKey, `${staffId}:${code}`).toString('hex');
}

async function findStaff(ctx: AppContext, storeSlug: string, email: string) {
  return ctx.db
    .selectFrom('stores as st')
    .innerJoin('staff_members as m', 'm.store_id', 'st.id')
    .select(['st.id as store_id', 'st.name as store_name', 'm.id as staff_id', 'm.email'])
    .where('st.slug', '=', storeSlug.trim().toLowerCase())
    .where('m.email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
}

/**
 * Starts a sign-in: for a real staff member, a fresh 6-digit code (replacing any earlier one) is
 * stored as an HMAC and mailed from the platform sender. The caller always answers 202, so the
 * response never tells whether the address belongs to anyone.
 */
export async function requestSignInCode(ctx: AppContext, storeSlug: string, email: string): Promise<void> {
  const staff = await findStaff(ctx, storeSlug, email);
  if (!staff) return;
  const now = ctx.clock.now();
  const queued = await ctx.db.transaction().execute(async (trx) => {
    // Serialise concurrent requests for one staff member (the row lock), then apply the hourly cap.
    await trx
      .selectFrom('staff_members')
      .select('id')
      .where('store_id', '=', staff.store_id)
      .where('id', '=', staff.staff_id)
      .forUpdate()
      .execute();
    const recent = await trx
      .selectFrom('sign_in_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('store_id', '=', staff.store_id)
      .where('staff_id', '=', staff.staff_id)
      .where('created_at', '>', new Date(now.getTime() - 3600_000))
      .executeTakeFirstOrThrow();
    if (Number(recent.n) >= MAX_CODES_PER_HOUR) return false;

    await trx
      .updateTable('sign_in_codes')
      .set({ voided_at: now })
      .where('store_id', '=', staff.store_id)
      .where('staff_id', '=', staff.staff_id)
      .where('used_at', 'is', null)
      .where('voided_at', 'is', null)
      .execute();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await trx
      .insertInto('sign_in_codes')
      .values({
        store_id: staff.store_id,
        staff_id: staff.staff_id,
        code_hash: hashCode(ctx, staff.staff_id, code),
        expires_at: new Date(now.getTime() + SIGN_IN_CODE_TTL_MS),
        created_at: now,
      })
      .execute();
    await enqueueMail(
      trx,
      {
        storeId: staff.store_id,
        tier: 'platform',
        kind: 'sign_in_code',
        to: staff.email,
        subject: `${code} is your sign-in code for ${staff.store_name}`,
        text: [
          `Your code to sign in to ${staff.store_name} is:`,
          '',
          `    ${code}`,
          '',
          'It works once and expires in 10 minutes.',
          'If you did not try to sign in, you can ignore this email: nobody can sign in without the code.',
        ].join('\n'),
      },
      ctx.keyring,
    );
    return true;
  });
  if (queued) ctx.signals.wake(MAIL_LOOP);
}

const WRONG_CODE = 'The code is wrong or has expired. Request a new code and try again.';
/** Compared against when there is no code, so a miss costs what a wrong guess costs. */
const NO_CODE = '0'.repeat(64);

/**
 * Exchanges a code for a session. The code works once; each wrong guess counts, and the fifth
 * voids the pending code. Both transitions are single conditional UPDATEs, so concurrent guesses
 * cannot use a code twice or exceed the attempt limit. An unknown store or address goes through the
 * same queries, hash and comparison (matching nothing), so the answer's timing does not tell which
 * addresses are staff (D30).
 */
export async function verifySignInCode(
  ctx: AppContext,
  storeSlug: string,
  email: string,
  code: string,
): Promise<StaffSession> {
  const staff = await findStaff(ctx, storeSlug, email);
  const storeId = staff?.store_id ?? randomUUID();
  const staffId = staff?.staff_id ?? randomUUID();
  const now = ctx.clock.now();
  const pending = await ctx.db
    .selectFrom('sign_in_codes')
    .select(['id', 'code_hash'])
    .where('store_id', '=', storeId)
    .where('staff_id', '=', staffId)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', MAX_CODE_ATTEMPTS)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  const matches = safeEqual(pending?.code_hash ?? NO_CODE, hashCode(ctx, staffId, code));

  if (!staff || !pending || !matches) {
    await ctx.db
      .updateTable('sign_in_codes')
      .set({
        attempts: sql<number>`attempts + 1`,
        voided_at: sql<Date | null>`CASE WHEN attempts + 1 >= ${MAX_CODE_ATTEMPTS} THEN ${now}::timestamptz ELSE NULL END`,
      })
      .where('store_id', '=', storeId)
      .where('id', '=', pending?.id ?? randomUUID())
      .where('voided_at', 'is', null)
      .execute();
    throw unauthorized(WRONG_CODE, 'admin');
  }

  const used = await ctx.db
    .updateTable('sign_in_codes')
    .set({ used_at: now })
    .where('store_id', '=', staff.store_id)
    .where('id', '=', pending.id)
    .where('used_at', 'is', null)
    .where('voided_at', 'is', null)
    .where('attempts', '<', MAX_CODE_ATTEMPTS)
    .returning('id')
    .executeTakeFirst();
  if (!used) throw unauthorized(WRONG_CODE, 'admin');
  return openStaffSession(ctx.db, staff.store_id, staff.email, ctx.config.staffSessionTtlMs, now);
}

/** Ends a session: the credential is deleted and the session marked revoked. */
export async function revokeStaffSession(ctx: AppContext, storeId: string, sessionId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('staff_sessions')
      .set({ revoked_at: ctx.clock.now() })
      .where('store_id', '=', storeId)
      .where('id', '=', sessionId)
      .execute();
    await trx
      .deleteFrom('credentials')
      .where('store_id', '=', storeId)
      .where('subject_id', '=', sessionId)
      .where('kind', '=', 'staff_session')
      .execute();
  });
}
