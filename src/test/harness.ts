/**
 * Test harness: a real app on a real database. Embedded by default (an in-memory PGlite loaded from
 * the migrated template); with DATABASE_URL, a fresh PostgreSQL database cloned from the migrated
 * one with CREATE DATABASE … TEMPLATE, dropped when the test file ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser, type ParsedMail } from 'mailparser';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import pg from 'pg';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { boolean } from '../lib/env.ts';
import { openDatabase, type Db, type OpenOptions } from '../db/database.ts';
import { createStorefrontKey } from '../keys/keys.service.ts';
import { openStaffSession } from '../staff/staff.service.ts';
import { createStore } from '../onboarding/onboarding.service.ts';
import type { Store } from '../stores/stores.service.ts';
import type { SessionLifetime } from '../staff/staff.service.ts';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { createMailTransport } from '../mail/transport.ts';
import { backgroundLoops } from '../loops.ts';
import { createRuntime, type Runtime } from '../runtime.ts';
import { startWorkers, type RunningWorkers } from '../workers/runner.ts';
import { pgliteFromTemplate } from './template.ts';
import type { Clock } from '../lib/clock.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

/** The configuration tests run with: the process environment (DATABASE_URL, REDIS_URL) plus overrides. */
export function testConfig(overrides: Partial<Config> = {}): Readonly<Config> {
  const base = loadConfig({ ...process.env, SEED_DEMO: '0', LOG_LEVEL: 'silent', PORT: '0' });
  return {
    ...base,
    // Every injected request comes from 127.0.0.1, and with Redis the sign-in and admin counters
    // are shared by all test files: tests of those limits set their own (src/staff/sessions.test.ts,
    // src/ratelimit/admin-ratelimit.test.ts).
    rateLimits: {
      ...base.rateLimits,
      signIn: 1_000_000,
      customerSignIn: 1_000_000,
      adminIp: 1_000_000,
      adminRead: 1_000_000,
      adminWrite: 1_000_000,
    },
    // Likewise every test checkout comes from one address, mostly with one email: tests of the
    // pending-order limit (decision `pending-orders-per-client`) set their own.
    payments: { ...base.payments, pendingOrdersPerClient: 1_000_000 },
    secretKey: 'test-secret-key-test-secret-key-0123456789',
    emailTransport: { kind: 'file', dir: fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-mail-')) },
    mailRetryScheduleMs: [50, 50, 50],
    // Uploaded images go to a directory of the test's own, never to ./data (made on the first upload).
    media: { ...base.media, dir: path.join(os.tmpdir(), `storefront-media-${randomUUID()}`) },
    ...overrides,
  };
}

/** A clock tests can move. */
export class TestClock implements Clock {
  private offsetMs = 0;
  private frozenAtMs: number | null = null;
  now(): Date {
    return new Date(this.frozenAtMs ?? Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    if (this.frozenAtMs !== null) this.frozenAtMs += ms;
    else this.offsetMs += ms;
  }
  /** Stops the clock at `at` (epoch ms): time moves only by {@link advance} from then on. */
  freezeAt(at: number): void {
    this.frozenAtMs = at;
  }
}

/** A database for one test file; on PostgreSQL with the URL of its own clone (for child processes). */
export interface TestDb extends Db {
  readonly url: string | null;
}

/** A database for one test file (`instrument`: a dialect wrapper, as tracing's SQL spans). */
export async function openTestDatabase(options: Pick<OpenOptions, 'instrument'> = {}): Promise<TestDb> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const pglite = await pgliteFromTemplate();
    const db = await openDatabase({ databaseUrl: null, dataDir: '', pglite, ...options });
    return testDb(db, null, () => db.close());
  }

  const template = new URL(databaseUrl).pathname.slice(1);
  const name = `${template}_t${process.pid}_${randomUUID().slice(0, 8)}`.slice(0, 63);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  await withAdmin(admin.href, (client) => createFromTemplate(client, name, template));
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({
    databaseUrl: url.href,
    dataDir: '',
    poolSize: 8,
    pipelining: boolean(process.env, 'DATABASE_PIPELINING', true),
    ...options,
  });
  return testDb(db, url.href, async () => {
    await db.close();
    await withAdmin(admin.href, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  });
}

/** A test file's database: what `db` offers, with its URL and a close that also does the test's clean-up. */
function testDb(db: Db, url: string | null, close: () => Promise<void>): TestDb {
  return {
    kind: db.kind,
    kysely: db.kysely,
    catalogReads: db.catalogReads,
    replicaStats: db.replicaStats,
    onReadChange: db.onReadChange,
    poolStats: db.poolStats,
    ping: db.ping,
    url,
    close,
  };
}

/** An empty (unmigrated) database, for migration tests. Returns null on the embedded database. */
export async function openBlankPostgres(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) return null;
  const name = `sf_blank_${process.pid}_${randomUUID().slice(0, 8)}`;
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  await withAdmin(admin.href, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await withAdmin(admin.href, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

async function createFromTemplate(client: pg.Client, name: string, template: string): Promise<void> {
  // Concurrent clones of one template can collide ("source database is being accessed"): retry.
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      return;
    } catch (error) {
      if (attempt >= 50 || (error as { code?: string }).code !== '55006') throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
}

async function withAdmin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestApp {
  app: App;
  db: Db;
  /** What service functions called directly by tests need: the runtime's ServiceDeps (with its test clock) and session lifetimes. */
  deps: ServiceDeps & { clock: TestClock; sessions: SessionLifetime };
  /** The runtime the app and its workers were built on (keyring, payment provider, signals, …). */
  runtime: Runtime;
  config: Readonly<Config>;
  clock: TestClock;
  /** Every log line the app wrote, parsed. */
  logs: Record<string, unknown>[];
  /**
   * Declares error-level log lines this test provokes on purpose (matched against `msg: err.message`). Any
   * other error-level line makes `close()` fail, so an unexpected error never passes silently.
   */
  expectErrorLogs(pattern: RegExp): void;
  /** The Admin API as the store's owner, or as the staff session `token` given instead. */
  admin(shop: TestStore | string): ApiCaller;
  /** The Storefront API with the store's publishable key, or with the key given instead. */
  storefront(shop: TestStore | string): ApiCaller;
  /**
   * With `workers`: resolves once the named loop has finished a pass that started after this call
   * (failed or not, its log lines written). Wait on it instead of a fixed sleep to know a loop ran.
   * Not for the webhook relay, whose one pass lasts until the workers stop.
   */
  nextPass(loop: string): Promise<void>;
  close(): Promise<void>;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Headers = Record<string, string>;

/** In-process calls to one API with one credential; every path is relative to the API's prefix. */
export interface ApiCaller {
  get(url: string, headers?: Headers): Promise<LightMyRequestResponse>;
  post(url: string, payload?: unknown, headers?: Headers): Promise<LightMyRequestResponse>;
  put(url: string, payload?: unknown, headers?: Headers): Promise<LightMyRequestResponse>;
  patch(url: string, payload?: unknown, headers?: Headers): Promise<LightMyRequestResponse>;
  delete(url: string, payload?: unknown, headers?: Headers): Promise<LightMyRequestResponse>;
  request(
    method: HttpMethod,
    url: string,
    payload?: unknown,
    headers?: Headers,
  ): Promise<LightMyRequestResponse>;
}

function apiCaller(app: App, prefix: string, credential: Headers): ApiCaller {
  const request = (method: HttpMethod, url: string, payload?: unknown, headers: Headers = {}) =>
    app.inject({
      method,
      url: `${prefix}${url}`,
      headers: { ...credential, ...headers },
      ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
    });
  return {
    get: (url, headers) => request('GET', url, undefined, headers),
    post: (url, payload, headers) => request('POST', url, payload, headers),
    put: (url, payload, headers) => request('PUT', url, payload, headers),
    patch: (url, payload, headers) => request('PATCH', url, payload, headers),
    delete: (url, payload, headers) => request('DELETE', url, payload, headers),
    request,
  };
}

/** Pino's `error` level; `fatal` is 60. */
const ERROR_LEVEL = 50;

/** Error-level lines not matched by an expected pattern, as short descriptions. */
export function unexpectedErrorLogs(
  logs: readonly Record<string, unknown>[],
  expected: readonly RegExp[],
): string[] {
  return logs
    .filter((line) => typeof line.level === 'number' && line.level >= ERROR_LEVEL)
    .map((line) => {
      const message = (line.err as { message?: unknown } | undefined)?.message;
      return `${String(line.msg)}${typeof message === 'string' ? `: ${message}` : ''}`;
    })
    .filter((text) => !expected.some((pattern) => pattern.test(text)));
}

export interface TestAppOptions {
  config?: Partial<Config>;
  /** Use this database instead of opening a new one (it is not closed with the app). */
  db?: Db;
  /** Registers extra routes before the app is ready (e.g. one that fails on purpose). */
  routes?: (app: App) => void;
  /** Run the background worker loops (mail, …) in this process, as `serve` does. */
  workers?: boolean;
  /** The console's build directory (default: packages/console/dist). */
  consoleDir?: string;
  /** The publishable key the reference shop at /shop uses, read on each page load. */
  shopKey?: () => string | null;
  /**
   * Compile every route schema while building the app instead of on first use (decision
   * `lazy-schema-compilation`).
   */
  eagerSchemas?: boolean;
}

interface QueryWatch {
  onQuery?: () => void;
  onResult?: (result: QueryResult<UnknownRow>) => void;
  nextTurn?: boolean;
}

/**
 * A Kysely plugin that lets a test watch the app's statements: `onQuery` sees each statement as it
 * is sent, `onResult` each result. With `nextTurn`, every result arrives a turn of the event loop
 * later, as from a database across a network: on the embedded database a request otherwise runs
 * all its statements before a concurrent one starts, and concurrent requests never interleave.
 */
export class QueryObserver implements KyselyPlugin {
  readonly #watch: QueryWatch;
  constructor(watch: QueryWatch) {
    this.#watch = watch;
  }
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.#watch.onQuery?.();
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.#watch.onResult?.(args.result);
    if (this.#watch.nextTurn) await new Promise((resolve) => setImmediate(resolve));
    return args.result;
  }
}

/** `db` seen through a plugin, for `startTestApp({ db })` (closing it leaves `db` open). */
export function observedDb(db: TestDb, plugin: KyselyPlugin): Db {
  return {
    kind: db.kind,
    kysely: db.kysely.withPlugin(plugin),
    catalogReads: db.catalogReads.withPlugin(plugin),
    replicaStats: db.replicaStats,
    onReadChange: db.onReadChange,
    poolStats: db.poolStats,
    ping: db.ping,
    close: () => Promise.resolve(),
  };
}

/**
 * Distinct client addresses (inject's `remoteAddress`), so the per-client limits of one test do not
 * touch another's (nor a run a minute ago: with Redis the counters outlive the process).
 */
export function clientAddresses(): () => string {
  const run = 1 + Math.floor(Math.random() * 250);
  let next = 10;
  return () => `10.${run}.${Math.floor(Math.random() * 250)}.${next++}`;
}

/** Builds the app on a fresh test database. Close it in `after()`. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await openTestDatabase());
  const config = testConfig(options.config);
  const overridesMail = options.config?.emailTransport !== undefined;
  const clock = new TestClock();
  const logs: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      }
      callback();
    },
  });
  const expectedErrors: RegExp[] = [];
  const runtime = await createRuntime(config, db, { log: pino({ level: 'info' }, stream), clock });
  const app = await buildApp(runtime, {
    logger: { level: 'info', stream },
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
    ...(options.shopKey ? { shopKey: options.shopKey } : {}),
    ...(options.eagerSchemas ? { eagerSchemas: true } : {}),
  });
  try {
    options.routes?.(app);
    await app.ready();
  } catch (error) {
    // A route that fails to build must fail its test, not leave the test file hanging on open handles.
    await app.close().catch(() => undefined);
    if (!options.db) await db.close();
    throw error;
  }
  let workers: RunningWorkers | null = null;
  const mailTransport = createMailTransport(config.emailTransport, config.mailConcurrency);
  const passes = new Map<string, { started: number; waiters: { after: number; done: () => void }[] }>();
  if (options.workers) {
    const log = pino({ level: 'info' }, stream);
    const loops = backgroundLoops(runtime, { log, mailTransport }).map((loop) => {
      const entry = { started: 0, waiters: [] as { after: number; done: () => void }[] };
      passes.set(loop.name, entry);
      return {
        ...loop,
        async run(signal: AbortSignal) {
          const pass = ++entry.started;
          try {
            await loop.run(signal);
          } finally {
            // After the runner has logged this pass's failure, if any.
            setImmediate(() => {
              const due = entry.waiters.filter((waiter) => waiter.after < pass);
              entry.waiters = entry.waiters.filter((waiter) => waiter.after >= pass);
              for (const waiter of due) waiter.done();
            });
          }
        },
      };
    });
    workers = startWorkers(loops, log);
    runtime.signals.attach(workers);
  }
  return {
    app,
    db,
    deps: {
      ...runtime.services,
      clock,
      sessions: { ttlMs: config.staffSessionTtlMs, maxAgeMs: config.staffSessionMaxAgeMs },
    },
    runtime,
    config,
    clock,
    logs,
    expectErrorLogs(pattern) {
      expectedErrors.push(pattern);
    },
    admin: (shop) =>
      apiCaller(app, '/admin/v1', {
        authorization: `Bearer ${typeof shop === 'string' ? shop : shop.staffToken}`,
      }),
    storefront: (shop) =>
      apiCaller(app, '/storefront/v1', {
        'x-publishable-key': typeof shop === 'string' ? shop : shop.publishableKey,
      }),
    nextPass(loop) {
      const entry = passes.get(loop);
      if (!entry) return Promise.reject(new Error(`no worker loop ${loop} runs in this test app`));
      return new Promise((done) => entry.waiters.push({ after: entry.started, done }));
    },
    async close() {
      await app.close();
      await workers?.stop();
      mailTransport.close();
      if (!options.db) await db.close();
      if (config.emailTransport.kind === 'file' && !overridesMail) {
        fs.rmSync(config.emailTransport.dir, { recursive: true, force: true });
      }
      if (options.config?.media === undefined) fs.rmSync(config.media.dir, { recursive: true, force: true });
      const unexpected = unexpectedErrorLogs(logs, expectedErrors);
      if (unexpected.length > 0) {
        throw new Error(
          `The app logged ${unexpected.length} unexpected error(s):\n  ${unexpected.join('\n  ')}`,
        );
      }
    },
  };
}

export interface TestStore {
  store: Store;
  ownerEmail: string;
  publishableKey: string;
  keyId: string;
  staffToken: string;
}

/** A fresh store with an owner, a publishable key (allowing https://shop.example) and a staff token. */
export async function createTestStore(
  t: Pick<TestApp, 'deps'>,
  input: { currency?: string; allowedOrigins?: string[] } = {},
): Promise<TestStore> {
  const suffix = randomUUID().slice(0, 8);
  const ownerEmail = `owner-${suffix}@example.com`;
  const { store } = await createStore(t.deps, {
    name: `Test Store ${suffix}`,
    slug: `test-${suffix}`,
    currency: input.currency ?? 'USD',
    ownerEmail,
  });
  const key = await createStorefrontKey(t.deps, store.id, {
    label: 'test',
    allowedOrigins: input.allowedOrigins ?? ['https://shop.example'],
  });
  const session = await openStaffSession(t.deps, store.id, ownerEmail);
  return { store, ownerEmail, publishableKey: key.key, keyId: key.id, staffToken: session.token };
}

export interface TestAppWithDbOptions extends Omit<TestAppOptions, 'db'> {
  /** A plugin on the app's connection to the database (observedDb), e.g. a QueryObserver. */
  plugin?: KyselyPlugin;
}

/**
 * A fresh test database and an app on it, for tests that use the database besides the app (read
 * it directly, or hand it to a `storefront serve` process). Closing the app closes the database.
 */
export async function startTestAppWithDb(
  options: TestAppWithDbOptions = {},
): Promise<{ db: TestDb; t: TestApp }> {
  const { plugin, ...appOptions } = options;
  const db = await openTestDatabase();
  let app: TestApp;
  try {
    app = await startTestApp({ ...appOptions, db: plugin ? observedDb(db, plugin) : db });
  } catch (error) {
    await db.close();
    throw error;
  }
  const t: TestApp = {
    ...app,
    async close() {
      try {
        await app.close();
      } finally {
        await db.close();
      }
    },
  };
  return { db, t };
}

/** A test app and one store on it: the set-up of many test files. */
export async function startTestAppWithStore(
  options: TestAppOptions = {},
): Promise<{ t: TestApp; shop: TestStore }> {
  const t = await startTestApp(options);
  try {
    return { t, shop: await createTestStore(t) };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Asserts that nothing happens for `ms`: `probe` is looked at every 20 ms and must keep returning
 * a falsy value; anything else describes what happened and fails at once. Use it instead of a
 * fixed sleep followed by one look: it states what must not happen and fails at its first sign.
 */
export async function assertQuiet(ms: number, probe: () => unknown, what = 'nothing happens'): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const happened = await probe();
    if (happened) {
      const detail = typeof happened === 'string' ? happened : JSON.stringify(happened);
      throw new Error(`Expected ${what} for ${ms} ms, but: ${detail}`);
    }
    const left = deadline - Date.now();
    if (left <= 0) return;
    await sleep(Math.min(20, left));
  }
}

/** Every .eml file the file transport wrote to `dir`, parsed, oldest first. */
export async function readMailDir(dir: string): Promise<ParsedMail[]> {
  if (!fs.existsSync(dir)) return [];
  const files = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.eml'))
    .sort();
  return Promise.all(files.map((name) => simpleParser(fs.readFileSync(path.join(dir, name)))));
}

/** Waits for a mail to `to` in the test app's mail directory and returns the newest one. */
export async function waitForMail(t: Pick<TestApp, 'config'>, to: string, count = 1): Promise<ParsedMail> {
  const { emailTransport } = t.config;
  if (emailTransport.kind !== 'file') throw new Error('waitForMail reads the file transport');
  return waitFor(
    async () => {
      const mails = (await readMailDir(emailTransport.dir)).filter((mail) => addressesOf(mail).includes(to));
      return mails.length >= count ? mails.at(-1) : undefined;
    },
    5000,
    `mail to ${to}`,
  );
}

export function addressesOf(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((entry) => entry.value.map((address) => address.address ?? ''));
}

const MAIN = path.resolve(import.meta.dirname, '..', 'main.ts');

/** A service process started by a test: the child, its URL (`serve` only) and everything it printed. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output(): string;
}

/**
 * `storefront serve` (or `worker`) as a child process on a PostgreSQL test database (`db.url`), with
 * the test app's secret key so both read each other's sealed data; resolves once it listens (a
 * worker: once its loops started). `env` adds to or overrides the defaults (no demo seed, errors
 * only in the log, port 0); an undefined value removes a variable inherited from the test's
 * environment.
 */
export function serveProcess(
  db: TestDb,
  secretKey: string,
  env: Record<string, string | undefined> = {},
  command: 'serve' | 'worker' = 'serve',
): Promise<ServiceProcess> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url!,
    PORT: '0',
    SEED_DEMO: '0',
    // A worker says it started at info level.
    LOG_LEVEL: command === 'worker' ? 'info' : 'error',
    SECRET_KEY: secretKey,
    PENDING_ORDERS_PER_CLIENT: '1000000',
    // As testConfig's: every request comes from 127.0.0.1 and, with Redis, the counters are shared
    // with every other test file running at the same time.
    RATE_LIMIT_SIGN_IN: '1000000',
    RATE_LIMIT_CUSTOMER_SIGN_IN: '1000000',
    RATE_LIMIT_ADMIN_IP: '1000000',
    RATE_LIMIT_ADMIN_READ: '1000000',
    RATE_LIMIT_ADMIN_WRITE: '1000000',
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const ready = command === 'serve' ? /running at (http:\/\/\S+)/ : /"msg":"worker started"/;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, command], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let started = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = started ? null : ready.exec(output);
      if (match) {
        started = true;
        resolve({ child, url: match[1] ?? '', output: () => output });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) =>
      reject(new Error(`${command} exited (${code}) before it started:\n${output}`)),
    );
  });
}

/**
 * The `skip` option of a test that needs PostgreSQL (several sessions, child processes on one
 * database): false there, the reason on the embedded database. `.ci/run` runs them on PostgreSQL.
 */
export const skipUnlessPostgres: false | string = process.env.DATABASE_URL
  ? false
  : 'needs PostgreSQL (DATABASE_URL); runs under .ci/run';
