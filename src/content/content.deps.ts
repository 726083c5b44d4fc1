import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import type { CursorCodec } from '../lib/cursors.ts';

/** What the content services (menus, pages, regions) need; app.ts builds it. */
export interface ContentDeps {
  db: Kysely<Database>;
  clock: Clock;
  cursors: CursorCodec;
}
