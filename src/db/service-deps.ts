import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.ts';
import type { CursorCodec } from '../lib/cursors.ts';
import type { Database } from './tables.ts';

/**
 * What every feature's services work with: the database, the one clock, and the codec that signs
 * list cursors. Built once, at the composition (runtime.ts), and handed to each feature; a feature
 * that needs more extends it (`KeysDeps`, `WebhookDeps`, `OrdersDeps`), one that needs less picks
 * from it. A transaction may stand in for `db`.
 */
export interface ServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  cursors: CursorCodec;
}
