/**
 * The catalog's reads between the replica and the primary (decision `replica-reads`): a Kysely
 * dialect whose connections come from the replica's pool while the monitor (./replica.ts) has it in
 * use, else from the primary's. A statement that fails on the replica because the replica cannot
 * serve it (its connection refused or cut, the standby stopped, a conflict with recovery, a write
 * that cannot run there) is sent once more to the primary, so a standby going away costs no request
 * an error. A transaction always runs on the primary: the storefront's reads need none, and whatever
 * opens one wants its own writes.
 */
import {
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { noteReplicaRead } from './bounds.ts';
import { isDatabaseUnavailable } from './errors.ts';
import type { Database } from './tables.ts';
import type { Log } from '../lib/log.ts';
import { ReplicaMonitor } from './replica.ts';

/**
 * Failures that say the replica could not serve a read the primary can: it is unavailable (class
 * 08, 57P, a socket error, its deadline), a conflict with recovery cancelled it (40001), or the
 * statement writes (25006, read-only transaction).
 */
function replicaCannotServe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isDatabaseUnavailable(error) || code === '40001' || code === '25006';
}

/** A connection of one server, as the routing driver hands it to Kysely. */
class RoutedConnection implements DatabaseConnection {
  inner: DatabaseConnection;
  onReplica: boolean;
  readonly driver: RoutingDriver;

  constructor(inner: DatabaseConnection, onReplica: boolean, driver: RoutingDriver) {
    this.inner = inner;
    this.onReplica = onReplica;
    this.driver = driver;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class RoutingDriver implements Driver {
  readonly #primary: PostgresDriver;
  readonly #replica: PostgresDriver;
  readonly #monitor: ReplicaMonitor;

  constructor(primary: pg.Pool, replica: pg.Pool, monitor: ReplicaMonitor) {
    this.#primary = new PostgresDriver({ pool: primary });
    this.#replica = new PostgresDriver({ pool: replica });
    this.#monitor = monitor;
  }

  async init(): Promise<void> {
    await this.#primary.init();
    await this.#replica.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#monitor.inUse) {
      try {
        return new RoutedConnection(await this.#replica.acquireConnection(), true, this);
      } catch (error) {
        if (!replicaCannotServe(error)) throw error;
        this.#monitor.readFailed(error);
      }
    }
    return new RoutedConnection(await this.#primary.acquireConnection(), false, this);
  }

  async execute<R>(connection: RoutedConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    const { stats } = this.#monitor;
    if (!connection.onReplica) {
      stats.reads.primary += 1;
      return connection.inner.executeQuery<R>(query);
    }
    // The read cache keeps a body read here only if the replica had replayed enough (read-cache.ts).
    noteReplicaRead(this.#monitor.replayed);
    try {
      const result = await connection.inner.executeQuery<R>(query);
      stats.reads.replica += 1;
      return result;
    } catch (error) {
      if (!replicaCannotServe(error)) throw error;
      this.#monitor.readFailed(error);
      const primary = await this.#primary.acquireConnection();
      try {
        stats.reads.primary += 1;
        return await primary.executeQuery<R>(query);
      } finally {
        await this.#primary.releaseConnection(primary as never);
      }
    }
  }

  /** A transaction moves to the primary before its BEGIN (see the file's comment). */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const routed = connection as RoutedConnection;
    if (routed.onReplica) {
      await this.#replica.releaseConnection(routed.inner as never);
      routed.inner = await this.#primary.acquireConnection();
      routed.onReplica = false;
    }
    await this.#primary.beginTransaction(routed.inner, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#primary.commitTransaction((connection as RoutedConnection).inner);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#primary.rollbackTransaction((connection as RoutedConnection).inner as never);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#primary.savepoint((connection as RoutedConnection).inner, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#primary.rollbackToSavepoint((connection as RoutedConnection).inner, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#primary.releaseSavepoint((connection as RoutedConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    return (routed.onReplica ? this.#replica : this.#primary).releaseConnection(routed.inner as never);
  }

  /** The pools are the databases' to close (database.ts), not this driver's. */
  async destroy(): Promise<void> {}
}

/** A dialect whose reads go to the replica while `monitor` has it in use. */
export function routingDialect(primary: pg.Pool, replica: pg.Pool, monitor: ReplicaMonitor): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new RoutingDriver(primary, replica, monitor),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  };
}

/** Replica connections come fast or not at all: the primary takes over. */
const REPLICA_CONNECT_TIMEOUT_MS = 1000;

/**
 * The replica's pool (made by `makePool`, with the primary's bounds), its monitor, probing from now
 * on, and the catalog's handle that routes between the two.
 */
export function openReplica(
  primary: pg.Pool,
  makePool: (url: string, overrides: { max: number; listen: false; connectTimeoutMs: number }) => pg.Pool,
  { url, maxLagMs, poolSize, log }: { url: string; maxLagMs: number; poolSize?: number; log: Log },
  instrument: ((dialect: Dialect) => Dialect) | undefined,
): { kysely: Kysely<Database>; monitor: ReplicaMonitor; close(): Promise<void> } {
  const pool = makePool(url, {
    max: poolSize ?? Math.max(2, Math.ceil((primary.options.max ?? 10) / 2)),
    listen: false,
    connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
  });
  const monitor = new ReplicaMonitor({ primary, replica: pool, maxLagMs, log });
  void monitor.start();
  const dialect = routingDialect(primary, pool, monitor);
  const kysely = new Kysely<Database>({ dialect: instrument?.(dialect) ?? dialect });
  return {
    kysely,
    monitor,
    async close() {
      monitor.stop();
      await kysely.destroy();
      await pool.end();
    },
  };
}
