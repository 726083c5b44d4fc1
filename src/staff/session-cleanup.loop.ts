import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { purgeOldCodes } from '../sign-in/session-cleanup.loop.ts';
import { STAFF_SIGN_IN } from './staff.sign-in.ts';

/** Staff sign-in codes made over a day ago go (one pass of the `session-cleanup` loop's). */
export function purgeOldSignInCodes(deps: { db: Kysely<Database> }, now: Date, batch = 500): Promise<number> {
  return purgeOldCodes(deps, STAFF_SIGN_IN, now, batch);
}
