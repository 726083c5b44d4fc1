/**
 * `npm run bench:relay-profile`: the webhook relay alone, in this process, with every SQL statement
 * it sends counted. A companion of bench/webhooks.ts (which measures the whole server over HTTP):
 * this one answers "how many statements, transactions and how much relay CPU does one delivery
 * cost", without the Admin API's writes in the way.
 *
 * It opens a fresh database (PostgreSQL: a database sf_relay_profile_<timestamp> on DATABASE_URL's
 * server, dropped afterwards; otherwise an in-memory PGlite), migrates it, creates a store and one
 * endpoint for every event, and runs a WebhookRelay against a receiver in a worker thread (answering
 * 204 at once), so that the main thread's CPU (process.threadCpuUsage) is the relay's plus the event
 * writer's. Two scenarios:
 *
 *   1. latency: `--rate` events per second for `--duration` seconds, each recorded in its own
 *      transaction; commit (the COMMIT's return) to arrival at the receiver;
 *   2. backlog: `--events` events recorded while the relay is stopped, then the relay started:
 *      deliveries/s from its start to the last arrival.
 *
 * For each: statements and transactions per delivery, the most frequent statements, and the relay
 * thread's CPU per delivery (for the latency scenario, less the writer's own cost measured alone).
 *
 *   npm run bench:relay-profile -- [--events 3000] [--rate 20] [--duration 10] [--resources 200]
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { pgliteOptions } from '../src/db/pglite.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { Database } from '../src/db/tables.ts';
import { recordEvent } from '../src/events/events.ts';
import { systemClock } from '../src/lib/clock.ts';
import { Keyring } from '../src/lib/keyring.ts';
import { createStore } from '../src/onboarding/onboarding.service.ts';
import { loadWebhookConfig } from '../src/webhooks/webhooks.config.ts';
import { WebhookRelay } from '../src/webhooks/webhooks.relay.ts';
import { createEndpoint } from '../src/webhooks/webhooks.service.ts';
import { databaseUrlFromEnv } from './lib/databases.ts';
import { parseCommandLine, UsageError } from './lib/options.ts';
import { onCleanup, runBenchmark } from './lib/processes.ts';
import { percentile } from './lib/results.ts';

const HELP = `Usage: npm run bench:relay-profile -- [options]

  --events N       events in the backlog scenario (default 3000)
  --rate R         events per second in the latency scenario (default 20)
  --duration S     seconds of the latency scenario (default 10)
  --resources K    resources the events are spread over, round-robin (default 200)
  --concurrency C  WEBHOOK_CONCURRENCY of the relay (default 32)
  --top T          statements to list per scenario (default 8)

PostgreSQL when DATABASE_URL is set (a database of its own is created and dropped), else an
in-memory PGlite.
`;

interface Options {
  events: number;
  rate: number;
  duration: number;
  resources: number;
  concurrency: number;
  top: number;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseCommandLine(argv, {
    events: { default: 3000, min: 1, max: 1_000_000 },
    rate: { default: 20, min: 1, max: 10_000 },
    duration: { default: 10, min: 1, max: 3600 },
    resources: { default: 200, min: 1, max: 1_000_000 },
    concurrency: { default: 32, min: 1, max: 1000 },
    top: { default: 8, min: 0, max: 100 },
  });
  if (parsed === null) return null;
  return { ...parsed.integers, databaseUrl: databaseUrlFromEnv() };
}

// ---------------------------------------------------------------------------------------------
// Counting statements

/** Statements by normalised text; transactions counted by their BEGIN. */
class StatementCounter {
  readonly counts = new Map<string, number>();
  total = 0;
  transactions = 0;
  enabled = true;

  log = (event: LogEvent): void => {
    if (!this.enabled) return;
    // One line per statement shape: parameters numbered alike, a VALUES list of any length as one.
    const text = event.query.sql
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/\$\d+/g, '$')
      .replace(/(\([^()]*\))(, \1)+/g, '$1, …');
    this.total += 1;
    if (/^begin\b/i.test(text)) this.transactions += 1;
    this.counts.set(text, (this.counts.get(text) ?? 0) + 1);
  };

  reset(): void {
    this.counts.clear();
    this.total = 0;
    this.transactions = 0;
  }

  top(n: number): [string, number][] {
    return [...this.counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  }
}

// ---------------------------------------------------------------------------------------------
// The receiver, in a worker thread: arrival times go into shared memory, indexed by data.i

const RECEIVER = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const times = new Float64Array(workerData.times);
const count = new Int32Array(workerData.count);
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    res.writeHead(204).end();
    try {
      const i = JSON.parse(Buffer.concat(chunks).toString('utf8')).data.i;
      if (Number.isInteger(i) && i >= 0 && i < times.length && times[i] === 0) {
        times[i] = at;
        Atomics.add(count, 0, 1);
      } else Atomics.add(count, 1, 1);
    } catch { Atomics.add(count, 1, 1); }
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

interface Receiver {
  url: string;
  times: Float64Array;
  /** [0] first arrivals, [1] repeats and malformed requests. */
  count: Int32Array;
  stop(): Promise<void>;
}

async function startReceiver(capacity: number): Promise<Receiver> {
  const times = new SharedArrayBuffer(capacity * 8);
  const count = new SharedArrayBuffer(8);
  const worker = new Worker(RECEIVER, { eval: true, workerData: { times, count } });
  let stopped: Promise<void> | null = null;
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    times: new Float64Array(times),
    count: new Int32Array(count),
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      });
      return stopped;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The database

interface Opened {
  /** For the event writer and set-up: not counted. */
  plain: Kysely<Database>;
  /** For the relay: every statement counted. */
  counted: Kysely<Database>;
  label: string;
  databaseUrl: string | null;
  close(): Promise<void>;
}

const INT8_OID = 20;
/** Events delivered before the scenarios (the writer's cost is measured on them). */
const WARM_UP = 200;
/** How long the idle relay is measured before the latency scenario. */
const IDLE_MS = 4000;

async function openDatabases(options: Options, counter: StatementCounter): Promise<Opened> {
  if (options.databaseUrl === null) {
    const pglite = await PGlite.create({ ...pgliteOptions });
    const plain = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
    const counted = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }), log: counter.log });
    return {
      plain,
      counted,
      label: 'PGlite (in memory)',
      databaseUrl: null,
      async close() {
        // Either Kysely closes the shared PGlite when destroyed; the other finds it closed.
        await counted.destroy();
        await plain.destroy();
      },
    };
  }
  const admin = new pg.Client({ connectionString: options.databaseUrl });
  await admin.connect();
  const name = `sf_relay_profile_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const version =
    (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?';
  await admin.end();
  const url = new URL(options.databaseUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    dropped = true;
    const client = new pg.Client({ connectionString: options.databaseUrl! });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  };
  onCleanup(drop);
  // As the service reads them (src/db/database.ts): bigint columns as numbers.
  const parser = (oid: number): ((value: string) => unknown) =>
    oid === INT8_OID ? Number : (pg.types.getTypeParser(oid, 'text') as (value: string) => unknown);
  const types = { getTypeParser: parser as typeof pg.types.getTypeParser };
  const plainPool = new pg.Pool({ connectionString: url.href, max: 10, types });
  const countedPool = new pg.Pool({ connectionString: url.href, max: 10, types });
  // The database is dropped WITH (FORCE) at the end; its idle connections' errors are expected.
  plainPool.on('error', () => undefined);
  countedPool.on('error', () => undefined);
  const plain = new Kysely<Database>({ dialect: new PostgresDialect({ pool: plainPool }) });
  const counted = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: countedPool }),
    log: counter.log,
  });
  return {
    plain,
    counted,
    label: `PostgreSQL ${version} (${url.host}/${name}, dropped after the run)`,
    databaseUrl: url.href,
    async close() {
      await counted.destroy();
      await plain.destroy();
      await drop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Scenarios

function threadCpuMs(): number {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
}

interface Result {
  name: string;
  deliveries: number;
  seconds: number;
  statements: number;
  transactions: number;
  top: [string, number][];
  relayCpuMs: number;
  latencies: Float64Array | null;
}

async function waitForArrivals(receiver: Receiver, expected: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Atomics.load(receiver.count, 0) < expected) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

/** Waits until no delivery is pending (the last answers recorded), so a stop interrupts nothing. */
async function waitForRecorded(db: Kysely<Database>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const pending = await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .limit(1)
      .executeTakeFirst();
    if (!pending) return;
    await sleep(5);
  }
}

function format(result: Result, options: Options): string {
  const per = (n: number): string => (n / Math.max(1, result.deliveries)).toFixed(2);
  const lines = [
    `${result.name}: ${result.deliveries} deliveries in ${result.seconds.toFixed(2)} s ` +
      `(${Math.round(result.deliveries / result.seconds)}/s)`,
    `  statements ${result.statements} (${per(result.statements)} per delivery), ` +
      `transactions ${result.transactions} (${per(result.transactions)} per delivery)`,
    `  relay CPU ${Math.round((result.relayCpuMs * 1000) / Math.max(1, result.deliveries))} µs per delivery`,
  ];
  if (result.latencies) {
    const l = result.latencies;
    lines.push(
      `  commit → arrival p50 ${percentile(l, 50).toFixed(2)} ms, p90 ${percentile(l, 90).toFixed(2)} ms, ` +
        `p99 ${percentile(l, 99).toFixed(2)} ms, max ${percentile(l, 100).toFixed(2)} ms`,
    );
  }
  for (const [text, count] of result.top.slice(0, options.top)) {
    lines.push(`  ${per(count).padStart(6)} × ${text.slice(0, 150)}`);
  }
  return lines.join('\n');
}

async function main(options: Options): Promise<void> {
  if (typeof process.threadCpuUsage !== 'function') {
    throw new UsageError(`run it with Node 24 (npm run bench:relay-profile), not ${process.version}`);
  }
  const counter = new StatementCounter();
  counter.enabled = false;
  const db = await openDatabases(options, counter);
  const latencyCount = options.rate * options.duration;
  const receiver = await startReceiver(WARM_UP + latencyCount + options.events);
  onCleanup(() => receiver.stop());
  try {
    await migrateToLatest(db.plain);
    const clock = systemClock;
    const keyring = new Keyring([{ name: 'bench', secret: Buffer.from(randomUUID()) }]);
    const { store } = await createStore(
      { db: db.plain, clock },
      { name: 'Relay profile', slug: 'relay-profile', currency: 'EUR', ownerEmail: 'bench@example.com' },
    );
    await createEndpoint({ db: db.plain, clock, keyring, allowHttp: true }, store.id, {
      url: receiver.url,
      events: ['*'],
    });
    const webhooks = {
      ...loadWebhookConfig({ ALLOW_HTTP_WEBHOOKS: '1', WEBHOOK_CONCURRENCY: String(options.concurrency) }),
    };
    const log = pino({ level: 'warn' });
    let index = 0;
    const emit = async (): Promise<void> => {
      const i = index;
      index += 1;
      await db.plain.transaction().execute((trx) =>
        recordEvent(trx, {
          storeId: store.id,
          type: 'product.updated',
          resource: `product:${i % options.resources}`,
          data: { i },
        }),
      );
    };

    // The writer's own CPU per event, measured alone (the relay is not running yet).
    const warm = WARM_UP;
    let cpu = threadCpuMs();
    for (let n = 0; n < warm; n += 1) await emit();
    const writerCpuMs = (threadCpuMs() - cpu) / warm;
    process.stderr.write(`profile: ${db.label}; writer ${Math.round(writerCpuMs * 1000)} µs CPU per event\n`);

    const runRelay = (): { stop(): Promise<void> } => {
      const controller = new AbortController();
      const relay = new WebhookRelay({
        db: db.counted,
        keyring,
        clock,
        log,
        webhooks,
        databaseUrl: db.databaseUrl,
      });
      const running = relay.run(controller.signal);
      return {
        async stop() {
          controller.abort();
          await running;
        },
      };
    };

    // Scenario 1: latency at a steady rate.
    let relay = runRelay();
    if (!(await waitForArrivals(receiver, warm, 60_000)))
      throw new Error('the warm-up events did not arrive');
    await waitForRecorded(db.plain, 10_000);
    // The idle relay's own cost (its polls) and this script's timers, per second.
    await sleep(500);
    cpu = threadCpuMs();
    const idleStart = performance.now();
    while (performance.now() - idleStart < IDLE_MS) await sleep(5);
    const idleCpuMsPerSecond = ((threadCpuMs() - cpu) * 1000) / (performance.now() - idleStart);
    process.stderr.write(`profile: idle relay ${idleCpuMsPerSecond.toFixed(1)} ms CPU per second\n`);
    counter.reset();
    counter.enabled = true;
    cpu = threadCpuMs();
    const first = index;
    const committed = new Float64Array(latencyCount);
    const started = performance.now();
    const writes: Promise<void>[] = [];
    for (let n = 0; n < latencyCount; n += 1) {
      const wait = started + (n * 1000) / options.rate - performance.now();
      if (wait > 0) await sleep(wait);
      writes.push(
        emit().then(() => {
          committed[n] = performance.timeOrigin + performance.now();
        }),
      );
    }
    await Promise.all(writes);
    const arrivedAll = await waitForArrivals(receiver, first + latencyCount, 60_000);
    await waitForRecorded(db.plain, 10_000);
    const latencySeconds = (performance.now() - started) / 1000;
    const latencies = Float64Array.from({ length: latencyCount }, (_, n) => {
      const at = receiver.times[first + n] ?? 0;
      return at === 0 ? Number.NaN : at - committed[n]!;
    })
      .filter((v) => !Number.isNaN(v))
      .sort();
    const latency: Result = {
      name: `latency (${options.rate} events/s for ${options.duration} s)`,
      deliveries: latencies.length,
      seconds: latencySeconds,
      statements: counter.total,
      transactions: counter.transactions,
      top: counter.top(options.top),
      // Less the writer's cost and the idle rate (kept apart: the idle polls are not per event).
      relayCpuMs: threadCpuMs() - cpu - writerCpuMs * latencyCount - idleCpuMsPerSecond * latencySeconds,
      latencies,
    };
    counter.enabled = false;
    if (!arrivedAll) process.stderr.write(`profile: latency: only ${latencies.length} arrived\n`);
    process.stdout.write(`${format(latency, options)}\n\n`);
    await relay.stop();

    // Scenario 2: a backlog drained by a relay that starts after it was written.
    const backlogFirst = index;
    for (let n = 0; n < options.events; n += 1) await emit();
    counter.reset();
    counter.enabled = true;
    cpu = threadCpuMs();
    const drainStart = performance.now();
    relay = runRelay();
    const drained = await waitForArrivals(receiver, backlogFirst + options.events, 120_000);
    const drainSeconds = (performance.now() - drainStart) / 1000;
    await waitForRecorded(db.plain, 10_000);
    const backlog: Result = {
      name: `backlog (${options.events} events, relay started after)`,
      deliveries: Atomics.load(receiver.count, 0) - backlogFirst,
      seconds: drainSeconds,
      statements: counter.total,
      transactions: counter.transactions,
      top: counter.top(options.top),
      relayCpuMs: threadCpuMs() - cpu,
      latencies: null,
    };
    counter.enabled = false;
    await relay.stop();
    if (!drained) {
      const pending = await db.plain
        .selectFrom('webhook_deliveries')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      const undispatched = await db.plain
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('dispatched_at', 'is', null)
        .executeTakeFirst();
      process.stderr.write(
        `profile: backlog: not all delivered: ${JSON.stringify(pending)}, undispatched ${undispatched?.n}\n`,
      );
    }
    process.stdout.write(`${format(backlog, options)}\n`);
    const repeats = Atomics.load(receiver.count, 1);
    if (repeats > 0) process.stdout.write(`\nrepeated or malformed requests: ${repeats}\n`);
  } finally {
    await receiver.stop();
    await db.close();
  }
}

await runBenchmark(HELP, parseOptions, main);
