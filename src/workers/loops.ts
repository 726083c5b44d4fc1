import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../http/context.ts';
import { sessionCleanupLoop } from '../staff/session-cleanup.loop.ts';
import type { WorkerLoop } from './runner.ts';

/** Every background loop of the service. `serve` runs them in-process; `storefront worker` runs them alone. */
export function backgroundLoops(db: Kysely<Database>, clock: Clock): WorkerLoop[] {
  return [sessionCleanupLoop(db, clock)];
}
