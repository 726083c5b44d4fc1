import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, sql, type Dialect } from 'kysely';
import pg from 'pg';
import { listenDirectly } from './direct-listen.ts';
import { boundAcquisition, boundStatements, DEADLINE_MARGIN_MS, pingPool, pingWithin } from './bounds.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import { INT8_OID, NUMERIC_OID, parseInt8 } from './int8.ts';
import {
  answeredLocally,
  forgetTransactionEdges,
  sendTransactionEdges,
  transactionOpen,
} from './pg-transactions.ts';
import type { Database } from './tables.ts';
import type { Log } from '../lib/log.ts';
import type { ReplicaStats } from './replica.ts';
import { openReplica } from './replica-routing.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/**
 * The channel the read cache's triggers notify at commit (migration 0015, decision `read-cache-invalidation`). Every
 * connection of the pool LISTENs on it: a session receives its own notifications before its COMMIT
 * returns, so the process that made a change has dropped the stale bodies before it answers, and
 * the other processes hear of it a moment later.
 */
export const READ_CHANNEL = 'storefront_read';

/** An open database: the Kysely handle plus what is needed to close it. */
export interface Db {
  readonly kind: DatabaseKind;
  readonly kysely: Kysely<Database>;
  /**
   * The storefront's catalog and content reads (decision `replica-reads`): the replica while it is
   * in use, else the primary; the very same handle as `kysely` when no replica is configured.
   */
  readonly catalogReads: Kysely<Database>;
  /** The replica's state and reads (metrics); null without DATABASE_REPLICA_URL. */
  readonly replicaStats: () => ReplicaStats | null;
  /** Calls `handler` with the payload of every `storefront_read` notification; returns the unsubscribe. */
  readonly onReadChange: (handler: (payload: string) => void) => () => void;
  /** The PostgreSQL pool's connections and waiting queries (metrics, decision `metrics-off-until-readable`); null on PGlite. */
  readonly poolStats: () => PoolStats | null;
  /**
   * Readiness: resolves when the database answers a trivial query within `timeoutMs` (on
   * PostgreSQL the wait for a pooled connection included), else fails with an outage error.
   */
  readonly ping: (timeoutMs: number) => Promise<void>;
  close(): Promise<void>;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
  /** Statements this process has sent (each a round trip), since it started. */
  statements: number;
  /** Transactions this process has run: BEGINs, and statements sent outside a transaction. */
  transactions: number;
}

/** Round trips of a process, counted as its connections send them (PostgreSQL). */
interface RoundTrips {
  statements: number;
  transactions: number;
}

/**
 * Counts what `client` sends: every statement is a round trip, and a transaction is a BEGIN or a
 * statement sent outside one (its own transaction). A BEGIN travels with the next statement
 * (src/d./pg-transactions.ts), so it is a transaction but no round trip of its own; nor is a COMMIT or
 * ROLLBACK that ends a transaction before any statement (nothing is sent). The purchase benchmark
 * reads these (through /metrics) to give statements and transactions per purchase for each process.
 */
function countRoundTrips(client: pg.ClientBase, counts: RoundTrips): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((text: unknown, ...rest: unknown[]) => {
    const sql = typeof text === 'string' ? text : (text as { text?: string } | null)?.text;
    const kept = sql === undefined ? null : answeredLocally(client, sql);
    if (kept === 'begin') counts.transactions += 1;
    else if (kept === null) {
      counts.statements += 1;
      if (!transactionOpen(client)) counts.transactions += 1;
    }
    return query(text, ...rest);
  }) as typeof client.query;
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

export interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  poolSize?: number;
  /**
   * Run parameterised statements as named prepared statements (default true): on PostgreSQL per
   * connection, on PGlite through `withPreparedStatements`.
   */
  preparedStatements?: boolean;
  /**
   * PostgreSQL: send a transaction's BEGIN with its first statement and its COMMIT with a statement
   * marked last (default true; decisions `begin-with-first-statement`, `commit-with-last-statement`).
   * False: every transaction is a plain BEGIN … COMMIT, each its own round trip, and the mark is a
   * comment. No effect on the embedded database.
   */
  pipelining?: boolean;
  /**
   * The command that opens the database (`storefront serve`): written into the embedded data-dir
   * lock, shown to a second process that is refused, and PostgreSQL's `application_name`.
   */
  command?: string;
  /**
   * PostgreSQL: the server cancels a statement after this many milliseconds (`statement_timeout`),
   * and the client gives a connection that has not answered up {@link DEADLINE_MARGIN_MS} later
   * (decision `database-faults`). Null (the default): no bound, for the CLI's long work
   * (migrations, `seed bench`, export and import). The embedded database has no such bound.
   */
  statementTimeoutMs?: number | null;
  /** An already-open PGlite (tests pass an in-memory clone). */
  pglite?: PGlite;
  /**
   * The embedded database's shared_buffers in MiB (decision `embedded-memory`); PGlite's 128 when
   * absent.
   */
  pgliteSharedBuffersMb?: number;
  /** Wraps the Kysely dialect (tracing's SQL spans, when on: src/telemetry); none by default. */
  instrument?: ((dialect: Dialect) => Dialect) | undefined;
  /**
   * PostgreSQL: every connection LISTENs on `storefront_read` (default true), for a process that
   * keeps what those notifications invalidate (the API's read and settings caches). A process with
   * nothing to invalidate (a worker, a CLI command) passes false: each listening connection is
   * woken, and runs a transaction, for every notification committed in the database.
   */
  listen?: boolean;
  /**
   * PostgreSQL: a streaming replica for the catalog's reads (DATABASE_REPLICA_URL, decision
   * `replica-reads`), used while it lags less than `maxLagMs`, with `poolSize` connections (default
   * half the primary's, at least 2); `log` says when it goes out of use.
   */
  replica?: { url: string; maxLagMs: number; poolSize?: number; log: Log } | null;
  /**
   * PostgreSQL: `transaction` when the URL is a pooler that lends a server connection per
   * transaction (PgBouncer's transaction mode, decision `behind-pgbouncer`): a session setting or a
   * LISTEN would land on whichever server connection ran it. No `statement_timeout` goes with the
   * start-up then (PgBouncer refuses the parameter; the client's deadline stays), and the pooled
   * connections do not LISTEN: with `listen`, one connection to `directUrl` does, else nothing
   * does (the caches then rely on their re-reads).
   */
  pooler?: 'none' | 'transaction';
  /** PostgreSQL past the pooler (DATABASE_DIRECT_URL), for the LISTEN behind a transaction pooler. */
  directUrl?: string | null;
}

export async function openDatabase(options: OpenOptions): Promise<Db> {
  if (options.databaseUrl)
    return openPostgres(options.databaseUrl, {
      max: options.poolSize ?? 10,
      preparedStatements: options.preparedStatements ?? true,
      pipelining: options.pipelining ?? true,
      command: options.command,
      instrument: options.instrument,
      listen: options.listen ?? true,
      statementTimeoutMs: options.statementTimeoutMs ?? null,
      replica: options.replica ?? null,
      pooled: options.pooler === 'transaction',
      directUrl: options.directUrl ?? null,
    });
  const prepared = options.preparedStatements ?? true;
  if (options.pglite) return wrapPglite(options.pglite, null, options.instrument, prepared);
  const lock = acquireDataDirLock(options.dataDir, options.command ?? 'storefront');
  try {
    // Loaded only here: a process on PostgreSQL never loads PGlite (optional-packages-on-demand).
    const { createPglite } = await import('./pglite.ts');
    const pglite = await createPglite(options.dataDir, options.pgliteSharedBuffersMb);
    return await wrapPglite(pglite, lock, options.instrument, prepared);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function wrapPglite(
  pglite: PGlite,
  lock: DataDirLock | null,
  instrument: OpenOptions['instrument'],
  preparedStatements: boolean,
): Promise<Db> {
  const { withPreparedStatements } = await import('./pglite.ts');
  const dialect = new PGliteDialect({
    pglite: preparedStatements ? withPreparedStatements(pglite) : pglite,
  });
  const kysely = new Kysely<Database>({ dialect: instrument?.(dialect) ?? dialect });
  const hub = readChangeHub();
  // PGlite calls listeners while it reads the result of the COMMIT, before the query resolves.
  const unlisten = await pglite.listen(READ_CHANNEL, hub.emit);
  let closed = false;
  return {
    kind: 'pglite',
    kysely,
    catalogReads: kysely,
    replicaStats: () => null,
    onReadChange: hub.subscribe,
    poolStats: () => null,
    // In the process's own thread: while a statement runs, nothing else (this included) does.
    ping: (timeoutMs) => pingWithin(sql`SELECT 1`.execute(kysely), timeoutMs),
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

/** Statements longer than this (bulk inserts) are not kept prepared. */
const MAX_PREPARED_TEXT = 8 * 1024;
/** Distinct prepared statements per connection; later ones run unprepared. */
const MAX_PREPARED_PER_CONNECTION = 500;
/** "cached plan must not change result type": a table changed under a prepared `SELECT *`. */
const CACHED_PLAN_CHANGED = '0A000';

/**
 * Runs every parameterised statement of this connection as a named prepared statement (decision
 * `prepared-statements`): PostgreSQL parses and plans it once per connection instead of on every
 * execution, which more than halved the database's CPU per statement on the purchase path. Kysely
 * sends the same SQL text for the same query shape, so a connection prepares a few hundred
 * statements at most (bounded); statements without parameters (BEGIN, COMMIT, DDL) and very long
 * ones run as before. When a migration changes a table under a prepared statement, PostgreSQL
 * refuses to run it ("cached plan must not change result type"): the statement is prepared again
 * under a new name, at once when no transaction was open (nothing ran), else by the next execution
 * (the transaction fails once, as on any error).
 */
export function prepareStatements(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const names = new Map<string, string>();
  let serial = 0;
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED_PER_CONNECTION) {
      name = `sf_${(serial += 1)}`;
      names.set(text, name);
    }
    return name;
  };
  const prepared = async (text: string, values: unknown[]): Promise<unknown> => {
    const name = nameOf(text);
    if (name === undefined) return query(text, values);
    const outsideTransaction = !transactionOpen(client);
    try {
      return await query({ name, text, values });
    } catch (error) {
      if ((error as { code?: string }).code !== CACHED_PLAN_CHANGED) throw error;
      names.delete(text);
      if (!outsideTransaction) throw error;
      const renamed = nameOf(text);
      return renamed === undefined ? query(text, values) : query({ name: renamed, text, values });
    }
  };
  client.query = ((text: unknown, values?: unknown, callback?: unknown) =>
    typeof text === 'string' &&
    Array.isArray(values) &&
    values.length > 0 &&
    callback === undefined &&
    text.length <= MAX_PREPARED_TEXT
      ? prepared(text, values)
      : query(text, values, callback)) as typeof client.query;
}

/** How long a new PostgreSQL connection may take before the caller's statement fails. */
const CONNECT_TIMEOUT_MS = 5000;

/** How a PostgreSQL pool is made: the primary's, and the replica's (./replica.ts) with the same bounds. */
export interface PoolOptions {
  max: number;
  preparedStatements: boolean;
  pipelining: boolean;
  command: string | undefined;
  listen: boolean;
  statementTimeoutMs: number | null;
  /** How long a new connection may take (default 5 s). */
  connectTimeoutMs?: number;
  /** Through a transaction pooler (OpenOptions.pooler): no start-up `statement_timeout`, no LISTEN. */
  pooled: boolean;
}

/** A pool with the bounds, prepared statements, pipelining and counts of decision `database-faults`. */
export interface BoundedPool {
  pool: pg.Pool;
  roundTrips: RoundTrips;
  hub: ReturnType<typeof readChangeHub>;
}

export function boundedPool(
  connectionString: string,
  {
    max,
    preparedStatements,
    pipelining,
    command,
    listen,
    statementTimeoutMs,
    connectTimeoutMs,
    pooled,
  }: PoolOptions,
): BoundedPool {
  const pool = new pg.Pool({
    connectionString,
    max,
    // Sent with the connection's start-up (no round trip): the server cancels a longer statement.
    // Not through a transaction pooler, which refuses it (and keeps no session to set it on).
    ...(statementTimeoutMs === null || pooled ? {} : { statement_timeout: statementTimeoutMs }),
    // Names the process's sessions in pg_stat_activity (`storefront serve`); the URL's own
    // `application_name` parameter, when given, wins.
    ...(command ? { application_name: command } : {}),
    // A database that does not answer a new connection (stopped, partitioned) fails the request in
    // flight after this long instead of holding it forever.
    connectionTimeoutMillis: connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    // TCP keep-alive probes after 10 s of silence (the kernel's default waits two hours), so a
    // connection whose server vanished without a word (a partition, a host that died) is found
    // dead in minutes and its statement fails instead of hanging.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types: { getTypeParser: postgresTypeParser as typeof pg.types.getTypeParser },
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const hub = readChangeHub();
  pool.on('connect', (client) => {
    // The pool listens for errors on idle clients only. A connection that drops while a caller
    // holds it (between two statements of a transaction, or during one) emits 'error' on its
    // client, and an 'error' event without a listener ends the process. Listened to here, the
    // statement in flight (or the next one) fails instead (a retryable error, see
    // isDatabaseUnavailable), and the pool discards the broken client when it is released.
    client.on('error', () => undefined);
    client.on('notification', (message) => {
      if (message.channel === READ_CHANNEL) hub.emit(message.payload ?? '');
    });
    // Queued before any query of the pool's caller; a failure surfaces on that query.
    if (listen && !pooled) client.query(`LISTEN ${READ_CHANNEL}`).catch(() => undefined);
  });
  // Innermost first: BEGIN and COMMIT with the statements (unless DATABASE_PIPELINING is off), then
  // names, then the counts, then the bounds (./bounds.ts), which see each statement as its caller
  // sent it.
  if (pipelining) {
    pool.on('connect', sendTransactionEdges);
    pool.on('release', (_error: unknown, client: pg.ClientBase) => forgetTransactionEdges(client));
  }
  if (preparedStatements) pool.on('connect', prepareStatements);
  const roundTrips: RoundTrips = { statements: 0, transactions: 0 };
  pool.on('connect', (client) => countRoundTrips(client, roundTrips));
  const deadlineMs = statementTimeoutMs === null ? null : statementTimeoutMs + DEADLINE_MARGIN_MS;
  pool.on('connect', (client) => boundStatements(client, deadlineMs));
  boundAcquisition(pool, deadlineMs);
  return { pool, roundTrips, hub };
}

function openPostgres(
  connectionString: string,
  options: PoolOptions & {
    instrument: OpenOptions['instrument'];
    replica: OpenOptions['replica'];
    directUrl: string | null;
  },
): Db {
  const { instrument } = options;
  const { pool, roundTrips, hub } = boundedPool(connectionString, options);
  // Behind a transaction pooler, one connection past it listens for the process (or none does).
  const direct =
    options.listen && options.pooled && options.directUrl !== null
      ? listenDirectly(options.directUrl, options.command, hub.emit, {
          channel: READ_CHANNEL,
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
        })
      : null;
  const dialect = new PostgresDialect({ pool });
  const kysely = new Kysely<Database>({ dialect: instrument?.(dialect) ?? dialect });
  // The replica's pool has the primary's bounds, fewer connections and none listening.
  const replica = options.replica
    ? openReplica(
        pool,
        (url, overrides) => boundedPool(url, { ...options, ...overrides }).pool,
        options.replica,
        instrument,
      )
    : null;
  let closed = false;
  return {
    kind: 'postgres',
    kysely,
    catalogReads: replica?.kysely ?? kysely,
    replicaStats: () => replica?.monitor.stats ?? null,
    onReadChange: hub.subscribe,
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max,
      statements: roundTrips.statements,
      transactions: roundTrips.transactions,
    }),
    ping: (timeoutMs) => pingPool(pool, timeoutMs),
    async close() {
      if (closed) return;
      closed = true;
      await direct?.close();
      await replica?.close();
      await kysely.destroy();
    },
  };
}
