import { randomInt, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { revokeCredentials } from '../credentials/credentials.service.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import { hmacSha256, safeEqual } from '../lib/crypto.ts';
import { unauthorized } from '../lib/errors.ts';
import type { Keyring } from '../lib/keyring.ts';
import { enqueueMail, MAIL_LOOP } from '../mail/outbox.ts';
import { findStoreWithSlug } from '../stores/stores.service.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import {
  countCodesSince,
  findMemberByEmail,
  insertCode,
  lockMember,
  markSessionRevoked,
  spendCodeAttempt,
  useCode,
  voidPendingCodes,
} from './staff.repository.ts';
import { openStaffSession, type SessionLifetime, type StaffSession } from './staff.service.ts';

export const SIGN_IN_CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
/** At most this many codes per staff member per hour (the rest are silently not sent). */
export const MAX_CODES_PER_HOUR = 5;

export interface SignInDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** Seals the mail carrying the code (D28). */
  keyring: Keyring;
  /** Keys the HMAC of codes (a 6-digit code is too small for a plain hash). */
  signInCodeKey: Buffer;
  sessions: SessionLifetime;
  /** Wakes this process's mail loop once a code is queued. */
  signals: WorkerSignals;
}

function hashCode(deps: SignInDeps, staffId: string, code: string): string {
  return hmacSha256(deps.signInCodeKey, `${staffId}:${code}`).toString('hex');
}

/**
 * The staff member an address names in a store, or a stand-in that matches nothing: an unknown
 * store or address runs the same lookups as a known one (D30).
 */
async function findStaff(deps: SignInDeps, storeSlug: string, email: string) {
  const store = await findStoreWithSlug(deps, storeSlug);
  const storeId = store?.id ?? randomUUID();
  const member = await findMemberByEmail(deps.db, storeId, email.trim().toLowerCase());
  return {
    storeId,
    staffId: member?.id ?? randomUUID(),
    found: store !== null && member !== undefined ? { storeName: store.name, email: member.email } : null,
  };
}

/**
 * Starts a sign-in: for a real staff member, a fresh 6-digit code (replacing any earlier one) is
 * stored as an HMAC and mailed from the platform sender, sealed in the outbox. The caller answers
 * 202 before this runs, so the response never tells whether the address belongs to anyone.
 */
export async function requestSignInCode(deps: SignInDeps, storeSlug: string, email: string): Promise<void> {
  const staff = await findStaff(deps, storeSlug, email);
  const found = staff.found;
  if (!found) return;
  const now = deps.clock.now();
  const queued = await deps.db.transaction().execute(async (trx) => {
    // Serialise concurrent requests for one staff member (the row lock), then apply the hourly cap.
    await lockMember(trx, staff.storeId, staff.staffId);
    const recent = await countCodesSince(
      trx,
      staff.storeId,
      staff.staffId,
      new Date(now.getTime() - 3600_000),
    );
    if (recent >= MAX_CODES_PER_HOUR) return false;
    await voidPendingCodes(trx, staff.storeId, staff.staffId, now);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await insertCode(trx, {
      storeId: staff.storeId,
      staffId: staff.staffId,
      hash: hashCode(deps, staff.staffId, code),
      expiresAt: new Date(now.getTime() + SIGN_IN_CODE_TTL_MS),
      now,
    });
    await enqueueMail(
      trx,
      {
        storeId: staff.storeId,
        tier: 'platform',
        kind: 'sign_in_code',
        to: found.email,
        subject: `${code} is your sign-in code for ${found.storeName}`,
        text: [
          `Your code to sign in to ${found.storeName} is:`,
          '',
          `    ${code}`,
          '',
          'It works once and expires in 10 minutes.',
          'If you did not try to sign in, you can ignore this email: nobody can sign in without the code.',
        ].join('\n'),
      },
      deps.keyring,
    );
    return true;
  });
  if (queued) deps.signals.wake(MAIL_LOOP);
}

const WRONG_CODE = 'The code is wrong or has expired. Request a new code and try again.';
/** Compared against when there is no code, so a miss costs what a wrong guess costs. */
const NO_CODE = '0'.repeat(64);

/**
 * Exchanges a code for a session. Each guess first spends one of the code's attempts and only then
 * sees its hash (one conditional UPDATE), so at most MAX_CODE_ATTEMPTS guesses are ever compared
 * with a code, however many arrive at once; the code works once (a second conditional UPDATE). An
 * unknown store or address goes through the same queries, hash and comparison (matching nothing),
 * so the answer's timing does not tell which addresses are staff (D30).
 */
export async function verifySignInCode(
  deps: SignInDeps,
  storeSlug: string,
  email: string,
  code: string,
): Promise<StaffSession> {
  const staff = await findStaff(deps, storeSlug, email);
  const now = deps.clock.now();
  const pending = await spendCodeAttempt(deps.db, staff.storeId, staff.staffId, now, MAX_CODE_ATTEMPTS);
  const matches = safeEqual(pending?.code_hash ?? NO_CODE, hashCode(deps, staff.staffId, code));
  if (!staff.found || !pending || !matches) throw unauthorized(WRONG_CODE, 'admin');
  if (!(await useCode(deps.db, staff.storeId, pending.id, now))) throw unauthorized(WRONG_CODE, 'admin');
  return openStaffSession(deps, staff.storeId, staff.found.email);
}

/** Ends a session: the credential is deleted and the session marked revoked. */
export async function revokeStaffSession(
  deps: Pick<SignInDeps, 'db' | 'clock'>,
  storeId: string,
  sessionId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await markSessionRevoked(trx, storeId, sessionId, deps.clock.now());
    await revokeCredentials({ db: trx }, storeId, sessionId, 'staff_session');
  });
}
