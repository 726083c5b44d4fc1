import { randomUUID } from 'node:crypto';
import { unauthorized } from '../lib/errors.ts';
import {
  checkCode,
  codeOwner,
  issueCode,
  redeemCode,
  revokeSession,
  WRONG_CODE,
  type CodeDeps,
  type SessionLifetime,
} from '../sign-in/sign-in.service.ts';
import { findStoreWithSlug } from '../stores/stores.service.ts';
import { findMemberByEmail } from './staff.repository.ts';
import { openStaffSession, type StaffSession } from './staff.service.ts';
import { STAFF_SIGN_IN } from './staff.sign-in.ts';

export { mayIssueCode } from '../sign-in/sign-in.service.ts';

export interface SignInDeps extends CodeDeps {
  sessions: SessionLifetime;
}

/** Who asks: the store and address typed in, and the client's address bucket (`clientBucketOf`). */
export interface SignInRequest {
  storeSlug: string;
  email: string;
  client: string;
}

/**
 * The staff member an address names in a store, or a stand-in that matches nothing: an unknown
 * store or address runs the same lookups as a known one (decision `staff-sessions`).
 */
async function findStaff(deps: SignInDeps, request: SignInRequest) {
  const store = await findStoreWithSlug(deps, request.storeSlug);
  const storeId = store?.id ?? randomUUID();
  const member = await findMemberByEmail(deps.db, storeId, request.email.trim().toLowerCase());
  const owner = codeOwner(deps.signInCodeKey, STAFF_SIGN_IN, {
    storeId,
    owner: member?.id ?? randomUUID(),
    client: request.client,
  });
  return {
    owner,
    found: store !== null && member !== undefined ? { storeName: store.name, email: member.email } : null,
  };
}

/**
 * Starts a sign-in: a real staff member gets a code (`issueCode`) mailed from the platform sender.
 * The caller answers 202 before this runs, so the response never tells whether the address
 * belongs to anyone.
 */
export async function requestSignInCode(deps: SignInDeps, request: SignInRequest): Promise<void> {
  const { owner, found } = await findStaff(deps, request);
  if (!found) return;
  await issueCode(deps, STAFF_SIGN_IN, owner, (code) => ({
    storeId: owner.storeId,
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
  }));
}

/**
 * Exchanges a code for a session, from the client that asked for it (`checkCode`, then
 * `redeemCode`: the code works once). An unknown store or address goes through the same queries,
 * hash and comparison (matching nothing), so the answer's timing does not tell which addresses are
 * staff (decision `staff-sessions`).
 */
export async function verifySignInCode(
  deps: SignInDeps,
  request: SignInRequest,
  code: string,
): Promise<StaffSession> {
  const { owner, found } = await findStaff(deps, request);
  const now = deps.clock.now();
  const codeId = await checkCode(deps, STAFF_SIGN_IN, owner, code, now);
  if (!found || codeId === null) throw unauthorized(WRONG_CODE, 'admin');
  if (!(await redeemCode(deps.db, STAFF_SIGN_IN, owner.storeId, codeId, now)))
    throw unauthorized(WRONG_CODE, 'admin');
  return openStaffSession(deps, owner.storeId, found.email);
}

/** Ends a session: the credential is deleted and the session marked revoked. */
export async function revokeStaffSession(
  deps: Pick<SignInDeps, 'db' | 'clock'>,
  storeId: string,
  sessionId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await revokeSession(trx, STAFF_SIGN_IN, storeId, sessionId, deps.clock.now());
  });
}
