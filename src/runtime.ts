import type { Config } from './config.ts';
import type { Db, OpenOptions } from './db/database.ts';
import type { ServiceDeps } from './db/service-deps.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { CursorCodec } from './lib/cursors.ts';
import type { Keyring } from './lib/keyring.ts';
import type { Log } from './lib/log.ts';
import { LocalMediaStorage, type MediaStorage } from './media/media.storage.ts';
import type { OrdersDeps } from './orders/orders.deps.ts';
import { applyProviderEvent } from './orders/provider-events.service.ts';
import { createPayments, type Payments } from './payments/payments.setup.ts';
import { directDelivery } from './payments/webhook-receiver.ts';
import type { Metrics } from './observability/metrics.ts';
import { loadKeyring } from './secrets/keyring.loader.ts';
import { WorkerSignals } from './workers/runner.ts';

/**
 * What the parts of one running service share, built once at the top (server.ts, the worker
 * command, the test harness) and handed to the HTTP app and the worker loops, which build each
 * feature's deps from it. Nothing below the composition sees this type: features get their own.
 */
export interface Runtime {
  config: Readonly<Config>;
  db: Db;
  clock: Clock;
  /** The root secrets (decision `keyring`): seals stored secrets, derives keys. */
  keyring: Keyring;
  /** Signs pagination cursors. */
  cursors: CursorCodec;
  /** What every feature's services work with (db, clock, cursors): built here, once. */
  services: ServiceDeps;
  /**
   * The same for the storefront's catalog and content reads (decision `replica-reads`): their `db`
   * reads from the replica while it is in use; `services` itself without a replica.
   */
  catalogReads: ServiceDeps;
  /** Wakes this process's worker loops after a commit (mail queued, events recorded). */
  signals: WorkerSignals;
  /** The payment provider (built here, never inside the app). */
  payments: Payments;
  /** Where uploaded images are kept (MEDIA_STORAGE, decision `media-uploads`). */
  media: MediaStorage;
  /**
   * This process's metrics (decision `metrics-off-until-readable`), when anything can read them (METRICS_PORT or METRICS_TOKEN);
   * null otherwise, and then nothing is counted.
   */
  metrics: Metrics | null;
}

export async function createRuntime(
  config: Readonly<Config>,
  db: Db,
  options: { log: Log; clock?: Clock; signals?: WorkerSignals },
): Promise<Runtime> {
  const keyring = await loadKeyring(db.kysely, config);
  const clock = options.clock ?? systemClock;
  const cursors = new CursorCodec(keyring.key('cursor'));
  const services = { db: db.kysely, clock, cursors };
  const runtime: Runtime = {
    config,
    db,
    clock,
    keyring,
    cursors,
    services,
    catalogReads: db.catalogReads === db.kysely ? services : { ...services, db: db.catalogReads },
    signals: options.signals ?? new WorkerSignals(),
    payments: await createPayments(config.payments, { db: db.kysely, keyring, log: options.log, clock }),
    media: new LocalMediaStorage(config.media.dir),
    metrics: await processMetrics(config, db, clock, options.log),
  };
  // The sandbox's webhooks go straight to the receiver in a process without the HTTP app (a
  // `storefront worker` running the sandbox's loop); app.ts sends them through the webhook route.
  runtime.payments.sandbox?.setDelivery(
    directDelivery(
      runtime.payments.provider,
      (event, log) => applyProviderEvent({ ...ordersDeps(runtime, log), log }, event),
      options.log,
    ),
  );
  return runtime;
}

/** prom-client is loaded only when something can read the metrics (decision `optional-packages-on-demand`). */
async function processMetrics(
  config: Readonly<Config>,
  db: Db,
  clock: Clock,
  log: Log,
): Promise<Metrics | null> {
  if (config.metrics.port === null && config.metrics.token === null) return null;
  const { Metrics } = await import('./observability/metrics.ts');
  const metrics = new Metrics();
  // The embedded database has no pool: one session inside the process.
  if (db.kind === 'postgres') metrics.observePool(db.poolStats);
  if (db.replicaStats() !== null) metrics.observeReplica(db.replicaStats);
  metrics.observeBacklog(db.kysely, log, () => clock.now());
  return metrics;
}

/** Orders' deps: checkout, the money path and the order loops. */
export function ordersDeps(runtime: Runtime, log: Log): OrdersDeps {
  const { orderTtlMs, paymentHoldMs, idempotencyTtlMs, pendingOrdersPerClient } = runtime.config.payments;
  return {
    ...runtime.services,
    log,
    keyring: runtime.keyring,
    provider: runtime.payments.provider,
    signals: runtime.signals,
    settings: { orderTtlMs, paymentHoldMs, idempotencyTtlMs, pendingOrdersPerClient },
  };
}

/** The commands that serve requests or run the loops: their statements are bounded. */
const BOUNDED_COMMANDS = new Set(['storefront serve', 'storefront worker']);

/**
 * How the configuration opens the database, for a command named in `pg_stat_activity`. `serve` and
 * `worker` bound every statement (DATABASE_STATEMENT_TIMEOUT, decision `database-faults`); the other
 * commands (migrations, `seed bench`, export and import, …) may run as long as their work takes.
 */
export function databaseOptions(config: Readonly<Config>, command: string): OpenOptions {
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
    preparedStatements: config.databasePreparedStatements,
    pipelining: config.databasePipelining,
    command,
    // Only the API keeps what read-change notifications invalidate (its caches).
    listen: command === 'storefront serve',
    pooler: config.databasePooler,
    directUrl: config.databaseDirectUrl,
    statementTimeoutMs: BOUNDED_COMMANDS.has(command) ? config.databaseStatementTimeoutMs : null,
  };
}
