import type { Kysely } from 'kysely';
import { revokeCredentials } from '../credentials/credentials.service.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import { deleteCodesMadeBefore, deleteSession, staleSessions } from './customers.repository.ts';

const DAY_MS = 24 * 3600 * 1000;

/** Deletes customer sessions (and their credentials) that expired, or were revoked over a day ago. */
export async function purgeStaleCustomerSessions(
  deps: { db: Kysely<Database> },
  now: Date,
  batch = 500,
): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const stale = await staleSessions(trx, now, new Date(now.getTime() - DAY_MS), batch);
    for (const session of stale) {
      await revokeCredentials({ db: trx }, session.store_id, session.id, 'customer_session');
      await deleteSession(trx, session.store_id, session.id);
    }
    return stale.length;
  });
}

/** Customer sessions and sign-in codes past use (the limits look back one hour; codes go after a day). */
export function customerSessionCleanupLoop(deps: { db: Kysely<Database>; clock: Clock }): WorkerLoop {
  return {
    name: 'customer-session-cleanup',
    intervalMs: 10 * 60 * 1000,
    async run() {
      const now = deps.clock.now();
      await purgeStaleCustomerSessions(deps, now);
      await deleteCodesMadeBefore(deps.db, new Date(now.getTime() - DAY_MS), 500);
    },
  };
}
