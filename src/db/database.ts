import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import type { Database } from './tables.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/**
 * The channel the read cache's triggers notify at commit (migration 0015, DESIGN D35). Every
 * connection of the pool LISTENs on it: a session receives its own notifications before its COMMIT
 * returns, so the process that made a change has dropped the stale bodies before it answers, and
 * the other processes hear of it a moment later.
 */
export const READ_CHANNEL = 'storefront_read';

/** An open database: the Kysely handle plus what is needed to close it. */
export interface Db {
  readonly kind: DatabaseKind;
  readonly kysely: Kysely<Database>;
  /** Calls `handler` with the payload of every `storefront_read` notification; returns the unsubscribe. */
  readonly onReadChange: (handler: (payload: string) => void) => () => void;
  close(): Promise<void>;
}

/** A small fan-out of notification payloads to the subscribed handlers. */
function readChangeHub(): { emit: (payload: string) => void; subscribe: Db['onReadChange'] } {
  const handlers = new Set<(payload: string) => void>();
  return {
    emit(payload) {
      for (const handler of handlers) handler(payload);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
}

/** Resolves when the database answers a trivial query (readiness). */
export async function ping(db: Kysely<Database>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** bigint columns hold minor units and counters far below 2^53: read them as JS numbers. */
function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} exceeds the safe integer range`);
  return n;
}

export interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  poolSize?: number;
  /** Name written into the embedded data-dir lock, shown to a second process that is refused. */
  command?: string;
  /** An already-open PGlite (tests pass an in-memory clone). */
  pglite?: PGlite;
  /** The embedded database's shared_buffers in MiB (decision 80); PGlite's 128 when absent. */
  pgliteSharedBuffersMb?: number;
}

export async function openDatabase(options: OpenOptions): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  if (options.pglite) return wrapPglite(options.pglite, null);
  const lock = acquireDataDirLock(options.dataDir, options.command ?? 'storefront');
  try {
    const buffers = options.pgliteSharedBuffersMb;
    const pglite = await PGlite.create({
      dataDir: options.dataDir,
      parsers: pgliteParsers,
      ...(buffers === undefined
        ? {}
        : { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${buffers}MB`] }),
    });
    return await wrapPglite(pglite, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

export const pgliteParsers = { [INT8_OID]: parseInt8 };

async function wrapPglite(pglite: PGlite, lock: DataDirLock | null): Promise<Db> {
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  const hub = readChangeHub();
  // PGlite calls listeners while it reads the result of the COMMIT, before the query resolves.
  const unlisten = await pglite.listen(READ_CHANNEL, hub.emit);
  let closed = false;
  return {
    kind: 'pglite',
    kysely,
    onReadChange: hub.subscribe,
    async close() {
      if (closed) return;
      closed = true;
      if (!pglite.closed) await unlisten().catch(() => undefined);
      await kysely.destroy();
      if (!pglite.closed) await pglite.close();
      lock?.release();
    },
  };
}

function postgresTypeParser(oid: number): (value: string) => unknown {
  if (oid === INT8_OID) return parseInt8;
  if (oid === NUMERIC_OID) return (value: string) => value;
  return pg.types.getTypeParser(oid, 'text') as (value: string) => unknown;
}

function openPostgres(connectionString: string, max: number): Db {
  const pool = new pg.Pool({
    connectionString,
    max,
    types: { getTypeParser: postgresTypeParser as typeof pg.types.getTypeParser },
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const hub = readChangeHub();
  pool.on('connect', (client) => {
    client.on('notification', (message) => {
      if (message.channel === READ_CHANNEL) hub.emit(message.payload ?? '');
    });
    // Queued before any query of the pool's caller; a failure surfaces on that query.
    client.query(`LISTEN ${READ_CHANNEL}`).catch(() => undefined);
  });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    kind: 'postgres',
    kysely,
    onReadChange: hub.subscribe,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy();
    },
  };
}
