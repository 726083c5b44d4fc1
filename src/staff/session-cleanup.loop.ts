import type { Kysely } from 'kysely';
import { revokeCredentials } from '../credentials/credentials.service.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import { deleteCodesMadeBefore, deleteSession, staleSessions } from './staff.repository.ts';

/** Deletes staff sessions (and their credentials) that expired or were revoked over a day ago. */
export async function purgeStaleSessions(
  deps: { db: Kysely<Database> },
  now: Date,
  batch = 500,
): Promise<number> {
  const revokedBefore = new Date(now.getTime() - 24 * 3600 * 1000);
  return deps.db.transaction().execute(async (trx) => {
    const stale = await staleSessions(trx, now, revokedBefore, batch);
    for (const session of stale) {
      await revokeCredentials({ db: trx }, session.store_id, session.id, 'staff_session');
      await deleteSession(trx, session.store_id, session.id);
    }
    return stale.length;
  });
}

/**
 * Deletes sign-in codes made over a day ago (the limits look back one hour): with them go the
 * hashes of the addresses that asked for them.
 */
export async function purgeOldSignInCodes(
  deps: { db: Kysely<Database> },
  now: Date,
  batch = 500,
): Promise<number> {
  return deleteCodesMadeBefore(deps.db, new Date(now.getTime() - 24 * 3600 * 1000), batch);
}

export function sessionCleanupLoop(deps: { db: Kysely<Database>; clock: Clock }): WorkerLoop {
  return {
    name: 'session-cleanup',
    intervalMs: 10 * 60 * 1000,
    async run() {
      await purgeStaleSessions(deps, deps.clock.now());
      await purgeOldSignInCodes(deps, deps.clock.now());
    },
  };
}
