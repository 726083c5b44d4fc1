import type { ServiceDeps } from '../db/service-deps.ts';
import { hmacSha256 } from '../lib/crypto.ts';
import { unauthorized } from '../lib/errors.ts';
import {
  checkCode,
  codeOwner,
  issueCode,
  redeemCode,
  WRONG_CODE,
  type CodeDeps,
  type SessionLifetime,
} from '../sign-in/sign-in.service.ts';
import { recentStore } from '../stores/stores.service.ts';
import { verifyCustomerOfEmail } from './customers.repository.ts';
import type { CustomerSession } from './customers.schemas.ts';
import { openCustomerSession, recordCustomerEvent } from './customers.service.ts';
import { CUSTOMER_SIGN_IN } from './customers.sign-in.ts';

export { mayIssueCode, WRONG_CODE } from '../sign-in/sign-in.service.ts';

export interface CustomerSignInDeps extends ServiceDeps, CodeDeps {
  sessions: SessionLifetime;
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

const ownerOf = (deps: CustomerSignInDeps, request: CustomerSignInRequest) =>
  codeOwner(deps.signInCodeKey, CUSTOMER_SIGN_IN, {
    storeId: request.storeId,
    owner: emailHashOf(deps.signInCodeKey, request.storeId, request.email),
    client: request.client,
  });

/**
 * Starts a sign-in (decision `customer-accounts`): any email gets a code (`issueCode`), known or not (the code makes the
 * account on verify), so the answer never tells who is a customer. The code is mailed by the store
 * (its verified domain).
 */
export async function requestCustomerCode(
  deps: CustomerSignInDeps,
  request: CustomerSignInRequest,
): Promise<void> {
  const store = await recentStore(deps, request.storeId);
  if (!store) return;
  await issueCode(deps, CUSTOMER_SIGN_IN, ownerOf(deps, request), (code) => ({
    storeId: request.storeId,
    tier: 'store',
    kind: 'customer_sign_in_code',
    to: normalEmail(request.email),
    subject: `${code} is your code for ${store.name}`,
    text: [
      `Your code to sign in to ${store.name} is:`,
      '',
      `    ${code}`,
      '',
      'It works once, for 10 minutes, and only from the network (IP address) that asked for it.',
      'If you did not ask for it, you can ignore this email: nobody can sign in without the code.',
    ].join('\n'),
  }));
}

/**
 * Exchanges a code for a session, from the client that asked for it (`checkCode`, then
 * `redeemCode`: the code works once). The email is then proven: its customer is made
 * (customer.created) or becomes an account (customer.updated, `hasAccount`), and the guest orders
 * it placed show in `/me/orders`.
 */
export async function verifyCustomerCode(
  deps: CustomerSignInDeps,
  request: CustomerSignInRequest,
  code: string,
): Promise<CustomerSession> {
  const owner = ownerOf(deps, request);
  const now = deps.clock.now();
  const codeId = await checkCode(deps, CUSTOMER_SIGN_IN, owner, code, now);
  if (codeId === null) throw unauthorized(WRONG_CODE, 'storefront');
  return deps.db.transaction().execute(async (trx) => {
    if (!(await redeemCode(trx, CUSTOMER_SIGN_IN, owner.storeId, codeId, now)))
      throw unauthorized(WRONG_CODE, 'storefront');
    const { row, created, verified } = await verifyCustomerOfEmail(
      trx,
      owner.storeId,
      normalEmail(request.email),
      now,
    );
    if (created) await recordCustomerEvent(trx, row, 'customer.created');
    else if (verified) await recordCustomerEvent(trx, row, 'customer.updated', ['hasAccount']);
    return openCustomerSession(deps, trx, row);
  });
}
