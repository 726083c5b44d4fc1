#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { pino, type Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { doctorReport, findings } from './doctor.ts';
import { openDatabase, type Db } from './db/database.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { DatabaseNewerError, migrateToLatest, migrationsPending } from './db/migrate.ts';
import { createStorefrontKey } from './keys/keys.service.ts';
import { seedBench } from './seed/bench.ts';
import { seedDemo } from './seed/demo.ts';
import { startBanner, startServer } from './server.ts';
import { startTelemetry, withTraceIds } from './telemetry/telemetry.ts';
import { openStaffSession } from './staff/staff.service.ts';
import { findStoreWithSlug } from './stores/stores.service.ts';
import { createStore } from './onboarding/onboarding.service.ts';
import { backgroundLoops } from './loops.ts';
import { createMailTransport } from './mail/transport.ts';
import { loadKeyring } from './secrets/keyring.loader.ts';
import { reportUnreadableSecrets, rotateSecrets } from './secrets/rotate.ts';
import { createRuntime, databaseOptions } from './runtime.ts';
import { startMetricsServer } from './observability/metrics.http.ts';
import { platformDkimRecords, zoneFileLines } from './email/email.dkim.ts';
import { startWorkers } from './workers/runner.ts';
import { systemClock } from './lib/clock.ts';
import { AppError } from './lib/errors.ts';
import { progressReporter } from './lib/progress.ts';
import { LocalMediaStorage } from './media/media.storage.ts';
import { runExport, runImport } from './archive/archive.cli.ts';

const HELP = `storefront: multi-tenant online-store service

Usage: storefront <command> [options]

Commands:
  serve                                   Start the HTTP service (and the worker loops)
  worker                                  Run only the background worker loops
  migrate                                 Apply pending database migrations
  stores create --name N --slug S --currency C --owner-email E
                                          Create a store and its owner
  staff token --store SLUG --email E      Open a staff session; prints the st_ token last
  keys create --store SLUG --label L [--origin O]...
                                          Create a publishable key; prints the pk_ key last
  seed demo                               Create the demo store (slug "demo") if missing
  seed bench --products N [--store SLUG] [--words]
                                          Add N products to a benchmark store (default slug "bench"),
                                          titled from a made-up vocabulary with --words; prints its
                                          publishable key last
  dkim records                            Print the DKIM TXT records the zone of PLATFORM_MAIL_DOMAIN
                                          must publish (zone-file syntax, one per sending-domain token)
  secrets check                           Report stored secrets the configured SECRET_KEY (and
                                          SECRET_KEY_PREVIOUS) cannot decrypt; exit 1 if any
  secrets rotate                          Re-encrypt every stored secret under SECRET_KEY, so the
                                          keys in SECRET_KEY_PREVIOUS can be retired
  export --out FILE [--store SLUG] [--key-file KEY]
                                          Write the database (or one store) to a versioned archive
                                          (gzip-compressed tar; it holds personal data), its secrets
                                          sealed and its manifest signed with SECRET_KEY, or with the
                                          key in KEY (required without SECRET_KEY)
  import [--key-file KEY] [--trust-unsigned] [--max-line-mib N] [--max-archive-gib N] FILE
                                          Load an archive into an empty database (embedded or
                                          DATABASE_URL), re-sealing its secrets under SECRET_KEY;
                                          refuses an archive whose signature does not verify (or an
                                          unsigned one of an earlier version) unless --trust-unsigned
  doctor                                  List what in this configuration is unsafe to expose
                                          (development conveniences, missing secrets); exit 1 if any

Configuration comes from environment variables (see README.md). Without DATABASE_URL the
embedded database in DATA_DIR (./data) is used; only one process may open it at a time.
`;

class UsageError extends Error {}

function fail(message: string, code = 1): never {
  process.stderr.write(`storefront: ${message}\n`);
  process.exit(code);
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function withDatabase<T>(
  config: Readonly<Config>,
  command: string,
  fn: (db: Db) => Promise<T>,
  { migrate = true }: { migrate?: boolean } = {},
): Promise<T> {
  const db = await openDatabase(databaseOptions(config, command));
  try {
    if (migrate) await migrateToLatest(db.kysely);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/**
 * Applies pending migrations at the start of `serve` or `worker`. Their pool bounds every
 * statement (DATABASE_STATEMENT_TIMEOUT) and a migration may take longer, so on PostgreSQL pending
 * migrations run on a pool of their own without the bound, as `storefront migrate` runs them; the
 * usual start, with nothing pending, costs one read.
 */
async function migrateAtStart(config: Readonly<Config>, db: Db): Promise<string[]> {
  if (db.kind === 'pglite') return migrateToLatest(db.kysely);
  if (!(await migrationsPending(db.kysely))) return [];
  return withDatabase(config, 'storefront migrate', (unbounded) => migrateToLatest(unbounded.kysely), {
    migrate: false,
  });
}

async function storeIdOf(db: Db, slug: string): Promise<string> {
  const store = await findStoreWithSlug({ db: db.kysely }, slug);
  if (!store) throw new UsageError(`no store with slug "${slug}"`);
  return store.id;
}

function logger(config: Readonly<Config>): Logger {
  return pino(withTraceIds(config.telemetry, { level: config.logLevel, base: { pid: process.pid } }));
}

async function serve(config: Readonly<Config>): Promise<void> {
  const log = logger(config);
  const started = performance.now();
  // Before the database opens: its statements get spans (OTEL_* variables; null when off).
  const telemetry = await startTelemetry(config.telemetry, log);
  const db = await openDatabase({
    ...databaseOptions(config, 'storefront serve'),
    instrument: telemetry?.instrumentDialect,
    // Only the API reads the catalog for shoppers (decision `replica-reads`).
    replica:
      config.databaseReplicaUrl === null
        ? null
        : {
            url: config.databaseReplicaUrl,
            maxLagMs: config.replicaMaxLagMs,
            poolSize: config.databaseReplicaPoolSize,
            log,
          },
  });
  const applied = await migrateAtStart(config, db);
  if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
  const server = await startServer(config, db, log);
  const lines = startBanner(config, server, db.kind);
  // What `storefront doctor` finds unsafe, printed and logged at every start (decision `production-mode`).
  const warnings = findings(config).filter((finding) => finding.severity === 'unsafe');
  if (warnings.length > 0)
    lines.push(
      '',
      ...warnings.map((warning) => `  Warning: ${warning.message}`),
      '  (`npx storefront doctor` lists these with the variables that change them.)',
    );
  process.stdout.write(`${lines.join('\n')}\n\n`);
  for (const warning of warnings) log.warn({ variable: warning.variable }, warning.message);
  log.info({ url: server.url, startupMs: Math.round(performance.now() - started) }, 'listening');

  onShutdownSignal(log, config, 'shutting down', () =>
    server
      .close()
      .then(() => db.close())
      .finally(() => telemetry?.shutdown(config.shutdownTimeoutMs)),
  );
}

/**
 * On SIGTERM or SIGINT runs `close` once and exits 0, or exits 1 when closing fails or takes longer
 * than SHUTDOWN_TIMEOUT.
 */
function onShutdownSignal(
  log: Logger,
  config: Readonly<Config>,
  message: string,
  close: () => Promise<unknown>,
): void {
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, message);
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function worker(config: Readonly<Config>): Promise<void> {
  const log = logger(config);
  const telemetry = await startTelemetry(config.telemetry, log);
  const db = await openDatabase({
    ...databaseOptions(config, 'storefront worker'),
    instrument: telemetry?.instrumentDialect,
  });
  await migrateAtStart(config, db);
  const mailTransport = createMailTransport(config.emailTransport, config.mailConcurrency);
  const runtime = await createRuntime(config, db, { log });
  await reportUnreadableSecrets(db.kysely, runtime.keyring, log);
  const workers = startWorkers(backgroundLoops(runtime, { log, mailTransport }), log);
  // A worker has no HTTP API: its metrics (webhook and mail outcomes, the backlog) are on METRICS_PORT.
  const metricsServer =
    runtime.metrics && config.metrics.port !== null
      ? await startMetricsServer(runtime.metrics, { ...config.metrics, port: config.metrics.port }, log)
      : null;
  // Listened for before the start is announced: a SIGTERM right after "worker started" shuts down
  // cleanly instead of ending the process with the signal's default.
  onShutdownSignal(log, config, 'worker shutting down', () =>
    workers
      .stop()
      .then(() => metricsServer?.close())
      .then(() => mailTransport.close())
      .then(() => db.close())
      .finally(() => telemetry?.shutdown(config.shutdownTimeoutMs)),
  );
  log.info(metricsServer ? { metricsPort: metricsServer.port } : {}, 'worker started');
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      name: { type: 'string' },
      slug: { type: 'string' },
      currency: { type: 'string' },
      'owner-email': { type: 'string' },
      store: { type: 'string' },
      email: { type: 'string' },
      label: { type: 'string' },
      origin: { type: 'string', multiple: true },
      products: { type: 'string' },
      words: { type: 'boolean' },
      out: { type: 'string' },
      'key-file': { type: 'string' },
      'trust-unsigned': { type: 'boolean' },
      'max-line-mib': { type: 'string' },
      'max-archive-gib': { type: 'string' },
    },
  });
  // `import FILE` is the one command with an operand.
  const command = positionals[0] === 'import' ? 'import' : positionals.join(' ');
  if (values.help || command === '' || command === 'help') {
    process.stdout.write(HELP);
    return;
  }

  const config = loadConfig();
  if (command === 'doctor') {
    // Reads only the configuration and the built front ends: it opens no database, so it runs
    // beside a running `serve` on the embedded database too.
    const found = findings(config);
    process.stdout.write(doctorReport(config, found));
    if (found.some((finding) => finding.severity === 'unsafe')) process.exitCode = 1;
    return;
  }
  /** What the one-shot commands' service calls need. */
  const deps = (db: Db) => ({
    db: db.kysely,
    clock: systemClock,
    sessions: { ttlMs: config.staffSessionTtlMs, maxAgeMs: config.staffSessionMaxAgeMs },
  });
  switch (command) {
    case 'serve':
      return serve(config);
    case 'worker':
      return worker(config);
    case 'migrate': {
      const applied = await withDatabase(config, 'storefront migrate', (db) => migrateToLatest(db.kysely), {
        migrate: false,
      });
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
      return;
    }
    case 'stores create': {
      const input = {
        name: required(values, 'name'),
        slug: required(values, 'slug'),
        currency: required(values, 'currency'),
        ownerEmail: required(values, 'owner-email'),
      };
      const created = await withDatabase(config, 'storefront stores create', (db) =>
        createStore(deps(db), input),
      );
      process.stdout.write(
        `Created store ${created.store.slug} (${created.store.id}) owned by ${created.owner.email}\n`,
      );
      return;
    }
    case 'staff token': {
      const slug = required(values, 'store');
      const email = required(values, 'email');
      const session = await withDatabase(config, 'storefront staff token', async (db) =>
        openStaffSession(deps(db), await storeIdOf(db, slug), email),
      );
      process.stdout.write(
        `Staff session for ${session.staff.email} (${session.staff.role}), expires ${session.expiresAt.toISOString()}\n${session.token}\n`,
      );
      return;
    }
    case 'keys create': {
      const slug = required(values, 'store');
      const label = required(values, 'label');
      const key = await withDatabase(config, 'storefront keys create', async (db) =>
        createStorefrontKey(deps(db), await storeIdOf(db, slug), {
          label,
          allowedOrigins: values.origin ?? [],
        }),
      );
      process.stdout.write(`Publishable key ${key.keyPrefix}… (${key.id}) for store ${slug}\n${key.key}\n`);
      return;
    }
    case 'seed demo': {
      const demo = await withDatabase(config, 'storefront seed demo', async (db) =>
        seedDemo({
          ...deps(db),
          baseUrl: config.publicBaseUrl,
          keyring: await loadKeyring(db.kysely, config),
          media: new LocalMediaStorage(config.media.dir),
        }),
      );
      process.stdout.write(
        demo
          ? `Demo store created.\nStaff token: ${demo.staffToken}\nPublishable key:\n${demo.publishableKey}\n`
          : 'The demo store exists already.\n',
      );
      return;
    }
    case 'seed bench': {
      const count = Number(values.products ?? '');
      if (!Number.isSafeInteger(count) || count < 1 || count > 10_000_000) {
        throw new UsageError('--products must be an integer from 1 to 10000000');
      }
      const slug = values.store ?? 'bench';
      const progress = progressReporter({
        write: (text) => process.stderr.write(text),
        tty: process.stderr.isTTY === true,
        unit: 'products',
      });
      const seeded = await withDatabase(config, 'storefront seed bench', (db) =>
        seedBench(deps(db), { products: count, slug, words: values.words === true, onProgress: progress }),
      );
      process.stdout.write(
        `Added ${seeded.products} products to store ${slug} (${seeded.storeId}).\nStaff token: ${seeded.staffToken}\nPublishable key:\n${seeded.publishableKey}\n`,
      );
      return;
    }
    case 'dkim records': {
      const records = await withDatabase(config, 'storefront dkim records', (db) =>
        platformDkimRecords({ db: db.kysely, config }),
      );
      process.stdout.write(`${zoneFileLines(records, config.platformMailDomain).join('\n')}\n`);
      return;
    }
    case 'secrets check':
    case 'secrets rotate': {
      const dryRun = command === 'secrets check';
      const result = await withDatabase(config, `storefront ${command}`, async (db) =>
        rotateSecrets(db.kysely, await loadKeyring(db.kysely, config), config, dryRun),
      );
      for (const report of result.reports) {
        const changed = dryRun ? `${report.resealed} to re-encrypt` : `${report.resealed} re-encrypted`;
        process.stdout.write(
          `${report.what}: ${changed}, ${report.current} current, ${report.unreadable} unreadable\n`,
        );
        for (const problem of report.problems) process.stdout.write(`  ${problem}\n`);
      }
      if (result.droppedGeneratedRoot) {
        process.stdout.write(
          'The root secret generated before SECRET_KEY was set is no longer needed: deleted.\n',
        );
      }
      const unreadable = result.reports.reduce((sum, report) => sum + report.unreadable, 0);
      if (unreadable > 0) {
        fail(
          `${unreadable} stored secrets cannot be decrypted: set SECRET_KEY_PREVIOUS to the SECRET_KEY they were made with (comma-separated if several), then run this again.`,
          1,
        );
      }
      return;
    }
    case 'export':
      return runExport(
        config,
        {
          out: required(values, 'out'),
          store: values.store === undefined ? null : required(values, 'store'),
          keyFile: values['key-file'] === undefined ? null : required(values, 'key-file'),
        },
        fail,
      );
    case 'import': {
      const [, file, ...extra] = positionals;
      if (!file || extra.length > 0) throw new UsageError('import takes one archive: storefront import FILE');
      return runImport(
        config,
        file,
        {
          keyFile: values['key-file'] === undefined ? null : required(values, 'key-file'),
          trustUnsigned: values['trust-unsigned'] === true,
          maxLineMib: values['max-line-mib'],
          maxArchiveGib: values['max-archive-gib'],
        },
        fail,
      );
    }
    default:
      throw new UsageError(`unknown command "${command}" (see storefront --help)`);
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) fail(error.message, 2);
  if (error instanceof UsageError) fail(error.message, 2);
  if (error instanceof DataDirLockedError) fail(error.message, 1);
  if (error instanceof DatabaseNewerError) fail(error.message, 1);
  if (error instanceof AppError) {
    const fields = error.errors?.map((e) => `  ${e.pointer}: ${e.detail}`).join('\n');
    fail(`${error.detail}${fields ? `\n${fields}` : ''}`, 1);
  }
  if (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS')
  ) {
    fail(`${error.message} (see storefront --help)`, 2);
  }
  process.stderr.write(
    `storefront: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
