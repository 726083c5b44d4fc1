import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/tables.ts';
import type { DatabaseKind } from '../db/database.ts';
import type { KeyResolver } from '../keys/key-resolver.ts';
import type { CursorCodec } from './pagination.ts';

/** Clock is injectable so tests can move time (expiry, TTLs) deterministically. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Everything a route plugin needs, passed explicitly (no globals). */
export interface AppContext {
  config: Readonly<Config>;
  db: Kysely<Database>;
  dbKind: DatabaseKind;
  clock: Clock;
  cursors: CursorCodec;
  keys: KeyResolver;
}
