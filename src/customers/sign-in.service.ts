import { randomInt } from 'node:crypto';
import { lockScope } from '../db/advisory-lock.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import { hmacSha256, safeEqual } from '../lib/crypto.ts';
import { unauthorized } from '../lib/errors.ts';
import type { Keyring } from '../lib/keyring.ts';
import { enqueueMail, MAIL_LOOP } from '../mail/outbox.ts';
import { recentStore } from '../stores/stores.service.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import {
  countCodesSince,
  insertCode,
  spendCodeAttempt,
  useCode,
  verifyCustomerOfEmail,
  voidPendingCodes,
} from './customers.repository.ts';
import type { CustomerSession } from './customers.schemas.ts';
import {
  openCustomerSession,
  recordCustomerEvent,
  type CustomerSessionLifetime,
} from './customers.service.ts';

export const CUSTOMER_CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
/** Codes per email and client an hour (the rest are silently not sent). */
export const CODES_PER_CLIENT_PER_HOUR = 5;
/** Codes per email an hour beyond which each client gets only its guaranteed share. */
export const CODES_PER_EMAIL_PER_HOUR = 20;
/** Codes per email, client and hour that no other client's requests can take away. */
export const GUARANTEED_CODES_PER_CLIENT = 2;

/**
 * Whether a client may have one more code for an email: the staff rule (issue #26) applied to
 * customers. Up to GUARANTEED_CODES_PER_CLIENT codes an hour whatever other clients do (a flood of
 * requests from elsewhere never locks the real person out), up to CODES_PER_CLIENT_PER_HOUR while
 * the email has had fewer than CODES_PER_EMAIL_PER_HOUR in all.
 */
export function mayIssueCode(recent: { member: number; client: number }): boolean {
  if (recent.client < GUARANTEED_CODES_PER_CLIENT) return true;
  return recent.client < CODES_PER_CLIENT_PER_HOUR && recent.member < CODES_PER_EMAIL_PER_HOUR;
}

export interface CustomerSignInDeps extends ServiceDeps {
  /** Seals the mail carrying the code (D28). */
  keyring: Keyring;
  /** Keys the HMACs of codes, emails and clients. */
  signInCodeKey: Buffer;
  sessions: CustomerSessionLifetime;
  signals: WorkerSignals;
}

/** Who asks: the store (from the publishable key), the email typed in, the client's address bucket. */
export interface CustomerSignInRequest {
  storeId: string;
  email: string;
  client: string;
}

export const normalEmail = (email: string): string => email.trim().toLowerCase();

/** The HMAC an email is known by in sign-in codes (the codes never hold the email itself). */
export function emailHashOf(key: Buffer, storeId: string, email: string): string {
  return hmacSha256(key, `customer-email:${storeId}:${normalEmail(email)}`).toString('hex');
}

function owner(deps: CustomerSignInDeps, request: CustomerSignInRequest) {
  const emailHash = emailHashOf(deps.signInCodeKey, request.storeId, request.email);
  return {
    storeId: request.storeId,
    emailHash,
    clientHash: hmacSha256(deps.signInCodeKey, `customer-client:${emailHash}:${request.client}`).toString(
      'hex',
    ),
  };
}

const hashCode = (deps: CustomerSignInDeps, emailHash: string, code: string): string =>
  hmacSha256(deps.signInCodeKey, `customer-code:${emailHash}:${code}`).toString('hex');

/**
 * Starts a sign-in (D44): any email gets a code, known or not (the code makes the account on
 * verify), so the answer never tells who is a customer. The code is stored as an HMAC, bound to
 * the client that asked, mailed by the store (its verified domain), sealed in the outbox.
 */
export async function requestCustomerCode(
  deps: CustomerSignInDeps,
  request: CustomerSignInRequest,
): Promise<void> {
  const store = await recentStore(deps, request.storeId);
  if (!store) return;
  const code = owner(deps, request);
  const now = deps.clock.now();
  const queued = await deps.db.transaction().execute(async (trx) => {
    // Serialise concurrent requests for one email, then apply the limits.
    await lockScope(trx, 'customer-sign-in', `${code.storeId}:${code.emailHash}`);
    const recent = await countCodesSince(trx, code, new Date(now.getTime() - 3600_000));
    if (!mayIssueCode(recent)) return false;
    await voidPendingCodes(trx, code, now);
    const digits = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await insertCode(trx, {
      ...code,
      hash: hashCode(deps, code.emailHash, digits),
      expiresAt: new Date(now.getTime() + CUSTOMER_CODE_TTL_MS),
      now,
    });
    await enqueueMail(
      trx,
      {
        storeId: code.storeId,
        tier: 'store',
        kind: 'customer_sign_in_code',
        to: normalEmail(request.email),
        subject: `${digits} is your code for ${store.name}`,
        text: [
          `Your code to sign in to ${store.name} is:`,
          '',
          `    ${digits}`,
          '',
          'It works once, for 10 minutes, and only from the network (IP address) that asked for it.',
          'If you did not ask for it, you can ignore this email: nobody can sign in without the code.',
        ].join('\n'),
      },
      deps.keyring,
    );
    return true;
  });
  if (queued) deps.signals.wake(MAIL_LOOP);
}

export const WRONG_CODE = 'The code is wrong or has expired. Request a new code and try again.';
const NO_CODE = '0'.repeat(64);

/**
 * Exchanges a code for a session, from the client that asked for it. Each guess first spends one
 * of the code's attempts and only then sees its hash (one conditional UPDATE), so at most
 * MAX_CODE_ATTEMPTS guesses are ever compared, however many arrive at once; the code works once.
 * The email is then proven: its customer is made (customer.created) or becomes an account
 * (customer.updated, `hasAccount`), and the guest orders it placed show in `/me/orders`.
 */
export async function verifyCustomerCode(
  deps: CustomerSignInDeps,
  request: CustomerSignInRequest,
  code: string,
): Promise<CustomerSession> {
  const owned = owner(deps, request);
  const now = deps.clock.now();
  const pending = await spendCodeAttempt(deps.db, owned, now, MAX_CODE_ATTEMPTS);
  const matches = safeEqual(pending?.code_hash ?? NO_CODE, hashCode(deps, owned.emailHash, code));
  if (!pending || !matches) throw unauthorized(WRONG_CODE, 'storefront');
  return deps.db.transaction().execute(async (trx) => {
    if (!(await useCode(trx, owned.storeId, pending.id, now))) throw unauthorized(WRONG_CODE, 'storefront');
    const { row, created, verified } = await verifyCustomerOfEmail(
      trx,
      owned.storeId,
      normalEmail(request.email),
      now,
    );
    if (created) await recordCustomerEvent(trx, row, 'customer.created');
    else if (verified) await recordCustomerEvent(trx, row, 'customer.updated', ['hasAccount']);
    return openCustomerSession(deps, trx, row);
  });
}
