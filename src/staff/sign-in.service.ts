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
/** At most this many codes per staff member and client per hour (the rest are silently not sent). */
export const CODES_PER_CLIENT_PER_HOUR = 5;
/** Codes per member and hour beyond which each client gets only its guaranteed share. */
export const CODES_PER_MEMBER_PER_HOUR = 20;
/** Codes per member, client and hour that no other client's requests can take away. */
export const GUARANTEED_CODES_PER_CLIENT = 2;

/**
 * Whether a client may have one more code for a member (issue #26). Limits are per client so that
 * nobody can lock a member out: up to GUARANTEED_CODES_PER_CLIENT codes an hour, whatever other
 * clients do, and up to CODES_PER_CLIENT_PER_HOUR while the member has had fewer than
 * CODES_PER_MEMBER_PER_HOUR in all. Mail to a member is bounded by 20 an hour plus 2 per client
 * beyond, and the guesses a client can make at the member's codes by 5 per code.
 */
export function mayIssueCode(recent: { member: number; client: number }): boolean {
  if (recent.client < GUARANTEED_CODES_PER_CLIENT) return true;
  return recent.client < CODES_PER_CLIENT_PER_HOUR && recent.member < CODES_PER_MEMBER_PER_HOUR;
}

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

/** The client of a code, as stored: an HMAC of the member and the client's address bucket. */
function hashClient(deps: SignInDeps, staffId: string, client: string): string {
  return hmacSha256(deps.signInCodeKey, `client:${staffId}:${client}`).toString('hex');
}

/**
 * The staff member an address names in a store, or a stand-in that matches nothing: an unknown
 * store or address runs the same lookups as a known one (D30).
 */
async function findStaff(deps: SignInDeps, request: SignInRequest) {
  const store = await findStoreWithSlug(deps, request.storeSlug);
  const storeId = store?.id ?? randomUUID();
  const member = await findMemberByEmail(deps.db, storeId, request.email.trim().toLowerCase());
  const staffId = member?.id ?? randomUUID();
  return {
    storeId,
    staffId,
    clientHash: hashClient(deps, staffId, request.client),
    found: store !== null && member !== undefined ? { storeName: store.name, email: member.email } : null,
  };
}

/** Who asks: the store and address typed in, and the client's address bucket (`clientBucketOf`). */
export interface SignInRequest {
  storeSlug: string;
  email: string;
  client: string;
}

/**
 * Starts a sign-in: for a real staff member, a fresh 6-digit code is stored as an HMAC and mailed
 * from the platform sender, sealed in the outbox. The code belongs to the client that asked: it
 * replaces that client's earlier code only, and only that client can use it, so requests and
 * guesses from elsewhere never void or use up a member's code (issue #26); `mayIssueCode` bounds
 * the mail. The caller answers 202 before this runs, so the response never tells whether the
 * address belongs to anyone.
 */
export async function requestSignInCode(deps: SignInDeps, request: SignInRequest): Promise<void> {
  const staff = await findStaff(deps, request);
  const found = staff.found;
  if (!found) return;
  const now = deps.clock.now();
  const queued = await deps.db.transaction().execute(async (trx) => {
    // Serialise concurrent requests for one staff member (the row lock), then apply the limits.
    await lockMember(trx, staff.storeId, staff.staffId);
    const recent = await countCodesSince(trx, staff, new Date(now.getTime() - 3600_000));
    if (!mayIssueCode(recent)) return false;
    await voidPendingCodes(trx, staff, now);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await insertCode(trx, {
      ...staff,
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
          'It works once, for 10 minutes, and only from the network (IP address) that asked for it.',
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
 * Exchanges a code for a session, from the client that asked for it. Each guess first spends one
 * of the code's attempts and only then sees its hash (one conditional UPDATE), so at most
 * MAX_CODE_ATTEMPTS guesses are ever compared with a code, however many arrive at once; the code
 * works once (a second conditional UPDATE). An
 * unknown store or address goes through the same queries, hash and comparison (matching nothing),
 * so the answer's timing does not tell which addresses are staff (D30).
 */
export async function verifySignInCode(
  deps: SignInDeps,
  request: SignInRequest,
  code: string,
): Promise<StaffSession> {
  const staff = await findStaff(deps, request);
  const now = deps.clock.now();
  const pending = await spendCodeAttempt(deps.db, staff, now, MAX_CODE_ATTEMPTS);
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
