import { signInTables, type SignInKind } from '../sign-in/sign-in.service.ts';

/**
 * Staff sign-in on the staff tables: codes in `sign_in_codes` and sessions in `staff_sessions`,
 * both owned by a member's id; tokens `st_…`. The hash prefixes are the ones codes were made with
 * before sign-in was one module, so codes in flight stay valid.
 */
export const STAFF_SIGN_IN: SignInKind = {
  tables: signInTables({
    codes: 'sign_in_codes',
    codeOwner: 'staff_id',
    sessions: 'staff_sessions',
    sessionOwner: 'staff_id',
  }),
  lock: 'staff-sign-in',
  codeHashPrefix: '',
  clientHashPrefix: 'client:',
  credential: 'staff_session',
  tokenPrefix: 'st_',
};
