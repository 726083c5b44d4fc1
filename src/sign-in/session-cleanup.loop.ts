import type { Kysely } from 'kysely';
import { revokeCredentials } from '../credentials/credentials.service.ts';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import { deleteCodesMadeBefore, deleteSession, staleSessions } from './sign-in.repository.ts';
import type { SignInKind } from './sign-in.service.ts';

const DAY_MS = 24 * 3600 * 1000;

/** Deletes a kind's sessions (and their credentials) that expired or were revoked over a day ago. */
export async function purgeStaleSessions(
  deps: { db: Kysely<Database> },
  kind: SignInKind,
  now: Date,
  batch = 500,
): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    const stale = await staleSessions(trx, kind.tables, now, new Date(now.getTime() - DAY_MS), batch);
    for (const session of stale) {
      await revokeCredentials({ db: trx }, session.store_id, session.id, kind.credential);
      await deleteSession(trx, kind.tables, session.store_id, session.id);
    }
    return stale.length;
  });
}

/**
 * Deletes a kind's sign-in codes made over a day ago (the limits look back one hour): with them
 * go the hashes of the addresses that asked for them.
 */
export function purgeOldCodes(
  deps: { db: Kysely<Database> },
  kind: SignInKind,
  now: Date,
  batch = 500,
): Promise<number> {
  return deleteCodesMadeBefore(deps.db, kind.tables, new Date(now.getTime() - DAY_MS), batch);
}

/** One loop over every kind: stale sessions with their credentials, then old codes. */
export function sessionCleanupLoop(
  deps: { db: Kysely<Database>; clock: Clock },
  kinds: readonly SignInKind[],
): WorkerLoop {
  return {
    name: 'session-cleanup',
    intervalMs: 10 * 60 * 1000,
    async run() {
      for (const kind of kinds) {
        await purgeStaleSessions(deps, kind, deps.clock.now());
        await purgeOldCodes(deps, kind, deps.clock.now());
      }
    },
  };
}
