import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import type { Clock } from '../lib/clock.ts';

/** Deletes staff sessions (and their credentials) that expired or were revoked over a day ago. */
export async function purgeStaleSessions(db: Kysely<Database>, now: Date, batch = 500): Promise<number> {
  const cutoff = new Date(now.getTime() - 24 * 3600 * 1000);
  return db.transaction().execute(async (trx) => {
    const stale = await trx
      .selectFrom('staff_sessions')
      .select(['store_id', 'id'])
      .where((eb) => eb.or([eb('expires_at', '<', now), eb('revoked_at', '<', cutoff)]))
      .limit(batch)
      .execute();
    for (const session of stale) {
      await trx
        .deleteFrom('credentials')
        .where('store_id', '=', session.store_id)
        .where('subject_id', '=', session.id)
        .where('kind', '=', 'staff_session')
        .execute();
      await trx
        .deleteFrom('staff_sessions')
        .where('store_id', '=', session.store_id)
        .where('id', '=', session.id)
        .execute();
    }
    return stale.length;
  });
}

export function sessionCleanupLoop(db: Kysely<Database>, clock: Clock): WorkerLoop {
  return {
    name: 'session-cleanup',
    intervalMs: 10 * 60 * 1000,
    async run() {
      await purgeStaleSessions(db, clock.now());
    },
  };
}
