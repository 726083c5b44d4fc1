import { signInTables, type SignInKind } from '../sign-in/sign-in.service.ts';

/**
 * Customer sign-in on the customers' tables: codes in `customer_sign_in_codes`, owned by an HMAC
 * of the email (`emailHashOf`: the codes never hold the email), sessions in `customer_sessions`,
 * owned by the customer's id; tokens `ct_…`. The hash prefixes are the ones codes were made with
 * before sign-in was one module, so codes in flight stay valid.
 */
export const CUSTOMER_SIGN_IN: SignInKind = {
  tables: signInTables({
    codes: 'customer_sign_in_codes',
    codeOwner: 'email_hash',
    sessions: 'customer_sessions',
    sessionOwner: 'customer_id',
  }),
  lock: 'customer-sign-in',
  codeHashPrefix: 'customer-code:',
  clientHashPrefix: 'customer-client:',
  credential: 'customer_session',
  tokenPrefix: 'ct_',
};
