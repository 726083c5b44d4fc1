/**
 * `npm run bench:webhooks`: webhook delivery benchmark of the outbox relay.
 *
 * Creates a store and a staff session in a fresh temporary data directory (or, with DATABASE_URL,
 * in a fresh PostgreSQL database that it creates next to that one and drops afterwards), starts
 * `storefront serve` (which runs the relay in-process) as a child process, registers a local
 * receiver (node:http on 127.0.0.1, answering 204 at once, verifying every signature) as a webhook
 * endpoint for all events, and measures:
 *
 *   1. latency: product updates at a steady low rate; commit-to-delivery p50 / p99 / max;
 *   2. burst: N product updates from C concurrent connections; writes/s and deliveries/s;
 *   3. backlog: a replay of the burst's events (no writes at the same time); deliveries/s.
 *
 * It puts a section with the machine, the date and the numbers on top of bench/RESULTS.md.
 * See bench/README.md.
 *
 *   npm run bench:webhooks -- [--events 3000] [--rate 20] [--duration 10] [--connections 16]
 *                             [--products 200] [--output bench/RESULTS.md] [--no-write]
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, databaseUrlFromEnv } from './lib/databases.ts';
import { cpuSecondsOf, machine, type Machine } from './lib/machine.ts';
import { parseResultsCommandLine, type ResultsTarget } from './lib/options.ts';
import {
  alive,
  cli,
  freePort,
  isRecord,
  onCleanup,
  requireNode24,
  runBenchmark,
  type RunningServer,
  serve,
  temporaryDirectory,
} from './lib/processes.ts';
import { percentile, publish, serverProblemsNote } from './lib/results.ts';
import { inParallel } from './lib/tasks.ts';

const STORE = 'webhook-bench';
/** Seconds of idle server CPU measured before the first scenario. */
const IDLE_SECONDS = 3;
const OWNER = 'bench@example.com';

const HELP = `Usage: npm run bench:webhooks -- [options]

  --events N        product updates in the burst (default 3000)
  --rate R          product updates per second in the latency scenario (default 20)
  --duration S      seconds of the latency scenario (default 10)
  --connections C   concurrent connections writing the burst (default 16)
  --products P      products the updates are spread over, round-robin (default 200)
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file

Without DATABASE_URL the embedded database runs in a fresh temporary DATA_DIR. With it, the
benchmark connects to that PostgreSQL server, creates a database storefront_bench_<timestamp> for
the run and drops it afterwards (WITH (FORCE)); the database named in the URL is left alone.
`;

// ---------------------------------------------------------------------------------------------
// Options

interface Options extends ResultsTarget {
  events: number;
  rate: number;
  duration: number;
  connections: number;
  products: number;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(argv, {
    events: { default: 3000, min: 1, max: 1_000_000 },
    rate: { default: 20, min: 1, max: 10_000 },
    duration: { default: 10, min: 1, max: 3600 },
    connections: { default: 16, min: 1, max: 1000 },
    products: { default: 200, min: 1, max: 100_000 },
  });
  if (parsed === null) return null;
  return { ...parsed.integers, ...parsed.results, databaseUrl: databaseUrlFromEnv() };
}

// ---------------------------------------------------------------------------------------------
// The benchmark database and cleanup

let receiverServer: http.Server | null = null;
onCleanup(async () => {
  if (receiverServer) {
    receiverServer.closeAllConnections();
    await new Promise<void>((resolve) => receiverServer?.close(() => resolve()));
    receiverServer = null;
  }
});

// ---------------------------------------------------------------------------------------------
// Machine and /proc readings

// ---------------------------------------------------------------------------------------------
// The receiver

/** Wall-clock time in ms since the epoch with sub-millisecond resolution. */
function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

interface Arrival {
  /** Envelope id (the event id). */
  id: string;
  event: string;
  /** Envelope createdAt, ms since the epoch. */
  createdAt: number;
  productId: string | null;
  attempt: number;
  at: number;
  signatureOk: boolean;
  /** x-webhook-id differs from the envelope id. */
  idMismatch: boolean;
}

interface Receiver {
  url: string;
  arrivals: Arrival[];
  /** Requests that were not a parseable envelope. */
  malformed: number;
  /** Set once the endpoint is registered; requests before that count as bad signatures. */
  secret: string | null;
}

function verifySignature(secret: string | null, raw: Buffer, header: string | string[] | undefined): boolean {
  if (secret === null) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return String(header ?? '')
    .split(',')
    .some((value) => {
      const given = Buffer.from(value.trim(), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', arrivals: [], malformed: 0, secret: null };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = wallNow();
      // Answer at once; the bookkeeping below does not delay the relay.
      res.writeHead(204).end();
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        body = null;
      }
      if (
        !isRecord(body) ||
        typeof body.id !== 'string' ||
        typeof body.event !== 'string' ||
        typeof body.createdAt !== 'string'
      ) {
        receiver.malformed += 1;
        return;
      }
      const data = isRecord(body.data) ? body.data : {};
      receiver.arrivals.push({
        id: body.id,
        event: body.event,
        createdAt: Date.parse(body.createdAt),
        productId: typeof data.productId === 'string' ? data.productId : null,
        attempt: Number(req.headers['x-webhook-attempt'] ?? 0),
        at,
        signatureOk: verifySignature(receiver.secret, raw, req.headers['x-webhook-signature']),
        idMismatch: req.headers['x-webhook-id'] !== body.id,
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  receiverServer = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** Waits until `done()` holds or `timeoutMs` passes; true when it holds. */
async function waitUntil(done: () => boolean, timeoutMs: number, server: RunningServer): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    if (!alive(server.child)) throw new Error(`the server died:\n${server.tail.text()}`);
    await sleep(20);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The Admin API

interface Fetched {
  status: number;
  body: unknown;
}

class Admin {
  readonly #base: string;
  readonly #token: string;

  constructor(base: string, token: string) {
    this.#base = `${base}/admin/v1`;
    this.#token = token;
  }

  async request(method: string, route: string, body?: unknown): Promise<Fetched> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.#base}${route}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let parsed: unknown = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, body: parsed };
  }

  async expect(
    method: string,
    route: string,
    status: number,
    body?: unknown,
  ): Promise<Record<string, unknown>> {
    const fetched = await this.request(method, route, body);
    if (fetched.status !== status || !isRecord(fetched.body)) {
      throw new Error(
        `${method} ${route}: expected ${status}, got ${fetched.status}: ${JSON.stringify(fetched.body)}`,
      );
    }
    return fetched.body;
  }
}

function stringField(record: Record<string, unknown>, field: string, what: string): string {
  const value = record[field];
  if (typeof value !== 'string') throw new Error(`${what}: no ${field} in the answer`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** Deliveries of the store that are still pending or failed for good (when something is missing). */
async function unfinishedDeliveries(admin: Admin): Promise<string> {
  const parts: string[] = [];
  for (const status of ['pending', 'failed']) {
    const items: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page += 1) {
      const query: string = `status=${status}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const body = await admin.expect('GET', `/webhooks/deliveries?${query}`, 200);
      if (Array.isArray(body.items)) items.push(...body.items.filter(isRecord));
      cursor = typeof body.nextCursor === 'string' ? body.nextCursor : null;
      if (cursor === null) break;
    }
    const sample = items.slice(0, 3).map((d) =>
      JSON.stringify({
        event: d.event,
        kind: d.kind,
        attempts: d.attempts,
        lastError: d.lastError,
        lastAttemptAt: d.lastAttemptAt,
        nextAttemptAt: d.nextAttemptAt,
        createdAt: d.createdAt,
      }),
    );
    parts.push(`${items.length} ${status}${sample.length > 0 ? ` (e.g. ${sample.join(', ')})` : ''}`);
  }
  return parts.join('; ');
}

interface Write {
  productId: string;
  sent: number;
  answered: number;
  ok: boolean;
}

interface Phase {
  name: string;
  /** The replay scenario: no updates, no commit-to-delivery latency. */
  replay: boolean;
  load: string;
  writes: Write[];
  /** Writes answered with something else than 200. */
  failedWrites: number;
  firstWriteSent: number;
  lastWriteAnswered: number;
  /** Arrivals of this phase's events (first arrival of each event id). */
  deliveries: Arrival[];
  /** Arrivals of an event id already delivered in this phase. */
  duplicates: number;
  /** Deliveries expected but not arrived when the wait ended. */
  missing: number;
  /** Commit (envelope createdAt) to arrival, sorted; empty for the replay. */
  latencies: Float64Array;
  serverCpuSeconds: number;
  /** From the phase's trigger (first write, or the replay request) to the last delivery. */
  totalSeconds: number;
}

function sortedOf(values: number[]): Float64Array {
  return Float64Array.from(values).sort();
}

function writesPerSecond(phase: Phase): number {
  const ok = phase.writes.length - phase.failedWrites;
  const seconds = (phase.lastWriteAnswered - phase.firstWriteSent) / 1000;
  return seconds > 0 ? ok / seconds : Number.NaN;
}

/** Deliveries between the first and the last arrival, per second. */
function deliveriesPerSecond(phase: Phase): number {
  const first = phase.deliveries[0]?.at;
  const last = phase.deliveries.at(-1)?.at;
  if (first === undefined || last === undefined || last <= first) return Number.NaN;
  return (phase.deliveries.length - 1) / ((last - first) / 1000);
}

/** The arrivals since `from` (an index into receiver.arrivals) of `event`, split into firsts and repeats. */
function collect(receiver: Receiver, from: number, event: string): { firsts: Arrival[]; duplicates: number } {
  const seen = new Set<string>();
  const firsts: Arrival[] = [];
  let duplicates = 0;
  for (const arrival of receiver.arrivals.slice(from)) {
    if (arrival.event !== event) continue;
    if (seen.has(arrival.id)) duplicates += 1;
    else {
      seen.add(arrival.id);
      firsts.push(arrival);
    }
  }
  return { firsts, duplicates };
}

function waitTimeoutMs(expected: number): number {
  // Generous: at least 60 s, and 20 deliveries/s for a large phase.
  return Math.max(60_000, expected * 50);
}

interface Context {
  admin: Admin;
  receiver: Receiver;
  server: RunningServer;
  productIds: string[];
  log: (line: string) => void;
}

let titleCounter = 0;

async function updateProduct(ctx: Context, productId: string): Promise<Write> {
  titleCounter += 1;
  const sent = wallNow();
  const fetched = await ctx.admin.request('PATCH', `/products/${productId}`, {
    title: `Webhook bench update ${titleCounter}`,
  });
  return { productId, sent, answered: wallNow(), ok: fetched.status === 200 };
}

async function finishWritePhase(
  ctx: Context,
  name: string,
  load: string,
  from: number,
  writes: Write[],
  cpuBefore: number,
): Promise<Phase> {
  const failedWrites = writes.filter((w) => !w.ok).length;
  const expected = writes.length - failedWrites;
  const done = (): boolean => collect(ctx.receiver, from, 'product.updated').firsts.length >= expected;
  const complete = await waitUntil(done, waitTimeoutMs(expected), ctx.server);
  // Late duplicates would arrive within moments: give them a chance to be counted.
  await sleep(500);
  const { firsts, duplicates } = collect(ctx.receiver, from, 'product.updated');
  if (!complete) {
    ctx.log(`bench: ${name}: only ${firsts.length} of ${expected} deliveries arrived`);
    ctx.log(`bench: deliveries not delivered: ${await unfinishedDeliveries(ctx.admin)}`);
  }
  const firstWriteSent = writes.reduce((a, w) => Math.min(a, w.sent), Infinity);
  const lastWriteAnswered = writes.reduce((a, w) => Math.max(a, w.answered), -Infinity);
  const lastArrival = firsts.at(-1)?.at ?? Number.NaN;
  return {
    name,
    replay: false,
    load,
    writes,
    failedWrites,
    firstWriteSent,
    lastWriteAnswered,
    deliveries: firsts,
    duplicates,
    missing: Math.max(0, expected - firsts.length),
    latencies: sortedOf(firsts.map((a) => a.at - a.createdAt)),
    serverCpuSeconds: cpuSecondsOf(ctx.server.pid) - cpuBefore,
    totalSeconds: (lastArrival - firstWriteSent) / 1000,
  };
}

/** Scenario 1: `rate` updates per second for `duration` seconds, open loop (sent on schedule). */
async function latencyPhase(ctx: Context, options: Options, next: { product: number }): Promise<Phase> {
  const count = options.rate * options.duration;
  const from = ctx.receiver.arrivals.length;
  const cpuBefore = cpuSecondsOf(ctx.server.pid);
  const started = performance.now();
  const pending: Promise<Write>[] = [];
  for (let i = 0; i < count; i += 1) {
    const due = started + (i * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const productId = ctx.productIds[next.product % ctx.productIds.length] ?? '';
    next.product += 1;
    pending.push(updateProduct(ctx, productId));
  }
  const writes = await Promise.all(pending);
  return finishWritePhase(
    ctx,
    'Latency',
    `${options.rate} updates/s for ${options.duration} s, sent on schedule`,
    from,
    writes,
    cpuBefore,
  );
}

/** Scenario 2: `events` updates as fast as `connections` concurrent connections get answers. */
async function burstPhase(ctx: Context, options: Options, next: { product: number }): Promise<Phase> {
  const from = ctx.receiver.arrivals.length;
  const cpuBefore = cpuSecondsOf(ctx.server.pid);
  const writes: Write[] = [];
  await inParallel(options.events, options.connections, async () => {
    const productId = ctx.productIds[next.product % ctx.productIds.length] ?? '';
    next.product += 1;
    writes.push(await updateProduct(ctx, productId));
  });
  return finishWritePhase(
    ctx,
    'Burst',
    `${options.events.toLocaleString('en-US')} updates from ${options.connections} connections`,
    from,
    writes,
    cpuBefore,
  );
}

/** Scenario 3: the burst's events replayed at once: a backlog the relay drains with no writes running. */
async function replayPhase(ctx: Context, endpointId: string, burst: Phase): Promise<Phase> {
  const since = new Date(burst.deliveries.reduce((a, d) => Math.min(a, d.createdAt), Infinity));
  const until = new Date(burst.deliveries.reduce((a, d) => Math.max(a, d.createdAt), -Infinity) + 1);
  const from = ctx.receiver.arrivals.length;
  const cpuBefore = cpuSecondsOf(ctx.server.pid);
  const sent = wallNow();
  const answer = await ctx.admin.expect('POST', `/webhooks/endpoints/${endpointId}/replay`, 202, {
    since: since.toISOString(),
    until: until.toISOString(),
  });
  const answered = wallNow();
  const replayed = Number(answer.replayed);
  // Everything in the window: the burst's updates (and nothing else was written meanwhile).
  const done = (): boolean => ctx.receiver.arrivals.length - from >= replayed;
  const complete = await waitUntil(done, waitTimeoutMs(replayed), ctx.server);
  await sleep(500);
  const seen = new Set<string>();
  const firsts: Arrival[] = [];
  let duplicates = 0;
  for (const arrival of ctx.receiver.arrivals.slice(from)) {
    if (seen.has(arrival.id)) duplicates += 1;
    else {
      seen.add(arrival.id);
      firsts.push(arrival);
    }
  }
  if (!complete) ctx.log(`bench: replay: only ${firsts.length} of ${replayed} deliveries arrived`);
  return {
    name: 'Backlog (replay)',
    replay: true,
    load: `replay of the burst's ${replayed.toLocaleString('en-US')} events, no writes`,
    writes: [{ productId: '', sent, answered, ok: true }],
    failedWrites: 0,
    firstWriteSent: sent,
    lastWriteAnswered: answered,
    deliveries: firsts,
    duplicates,
    missing: Math.max(0, replayed - firsts.length),
    latencies: new Float64Array(0),
    serverCpuSeconds: cpuSecondsOf(ctx.server.pid) - cpuBefore,
    totalSeconds: ((firsts.at(-1)?.at ?? Number.NaN) - sent) / 1000,
  };
}

/**
 * Cross-check of the latency phase without the database clock: from the moment each update was
 * sent to the arrival of its delivery (matched per product, in order: the relay keeps per-product
 * order). Includes the HTTP request and the transaction, so it is an upper bound.
 */
function sentToDelivered(phase: Phase): Float64Array {
  const queues = new Map<string, number[]>();
  for (const write of [...phase.writes].sort((a, b) => a.sent - b.sent)) {
    if (!write.ok) continue;
    const queue = queues.get(write.productId) ?? [];
    queue.push(write.sent);
    queues.set(write.productId, queue);
  }
  const values: number[] = [];
  for (const arrival of phase.deliveries) {
    const sent = arrival.productId === null ? undefined : queues.get(arrival.productId)?.shift();
    if (sent !== undefined) values.push(arrival.at - sent);
  }
  return sortedOf(values);
}

// ---------------------------------------------------------------------------------------------
// Report

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');

interface Report {
  options: Options;
  machine: Machine;
  database: string;
  concurrency: string;
  startupSeconds: number;
  setup: { products: number; seconds: number };
  idleCpuMsPerSecond: number;
  phases: Phase[];
  crossCheck: Float64Array;
  writeLatency: Float64Array;
  received: number;
  badSignatures: number;
  idMismatches: number;
  retries: number;
  malformed: number;
  serverProblems: number;
  firstServerProblem: string | null;
}

function section(report: Report): string {
  const { options, machine: m, phases } = report;
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const kind = options.databaseUrl ? 'PostgreSQL' : 'PGlite';
  const rows = phases.map((phase) => {
    const isReplay = phase.replay;
    const cpu =
      phase.deliveries.length > 0 ? (phase.serverCpuSeconds * 1e6) / phase.deliveries.length : Number.NaN;
    return `| ${phase.name} | ${phase.load} | ${isReplay ? '–' : int(phase.writes.length - phase.failedWrites)} | ${
      isReplay ? '–' : int(writesPerSecond(phase))
    } | ${int(phase.deliveries.length)} | ${int(deliveriesPerSecond(phase))} | ${ms(
      percentile(phase.latencies, 50),
    )} | ${ms(percentile(phase.latencies, 99))} | ${ms(percentile(phase.latencies, 100))} | ${
      Number.isFinite(phase.totalSeconds) ? phase.totalSeconds.toFixed(2) : '–'
    } | ${int(phase.duplicates)} | ${int(phase.missing)} | ${int(cpu)} |`;
  });
  const latency = phases[0];
  const burst = phases[1];
  const notes: string[] = [];
  if (latency) {
    notes.push(
      `- Latency cross-check without the database clock (update sent → delivery arrived, includes the ` +
        `HTTP request and the transaction): p50 ${ms(percentile(report.crossCheck, 50))} ms, ` +
        `p99 ${ms(percentile(report.crossCheck, 99))} ms; the update's own response time p50 ` +
        `${ms(percentile(report.writeLatency, 50))} ms, p99 ${ms(percentile(report.writeLatency, 99))} ms.`,
    );
  }
  if (burst) {
    const drain = ((burst.deliveries.at(-1)?.at ?? Number.NaN) - burst.lastWriteAnswered) / 1000;
    const answers = sortedOf(burst.writes.map((w) => w.answered - w.sent));
    notes.push(
      `- Burst: update response time p50 ${ms(percentile(answers, 50))} ms, p99 ${ms(percentile(answers, 99))} ms ` +
        `(\`createdAt\` is the transaction's start, so commit→delivery includes most of it); the last delivery ` +
        `arrived ${Number.isFinite(drain) ? drain.toFixed(2) : '–'} s after the last update was answered; ` +
        `${int(burst.failedWrites)} updates failed.`,
    );
  }
  notes.push(
    `- Server CPU while idle (${IDLE_SECONDS} s before the first scenario): ` +
      `${ms(report.idleCpuMsPerSecond)} ms per second.`,
  );
  notes.push(
    `- Checks over all ${int(report.received)} requests the receiver got: bad signatures ${int(report.badSignatures)}, ` +
      `x-webhook-id ≠ envelope id ` +
      `${int(report.idMismatches)}, attempts > 1 ${int(report.retries)}, malformed bodies ${int(report.malformed)}.`,
  );
  if (report.serverProblems > 0) {
    notes.push(serverProblemsNote(report.serverProblems, report.firstServerProblem));
  }

  return [
    `## ${stamp}: webhook delivery, ${kind}`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memory} memory, ${m.os}; load average at start ${m.load}`,
    `- Node ${m.node}, commit ${m.commit}`,
    `- Database: ${report.database}`,
    `- Parameters: \`--rate ${options.rate} --duration ${options.duration} --events ${options.events} ` +
      `--connections ${options.connections} --products ${options.products}\`; one relay (in-process in ` +
      `\`storefront serve\`, WEBHOOK_CONCURRENCY ${report.concurrency}); one endpoint for all events; ` +
      `the receiver (node:http on 127.0.0.1, same machine) answers 204 at once and verifies every ` +
      `signature. Updates are \`PATCH /admin/v1/products/:id\` (a new title → \`product.updated\`), ` +
      `round-robin over ${int(report.setup.products)} active products created (and their ` +
      `\`product.created\` delivered) in ${report.setup.seconds.toFixed(1)} s before; server ready in ` +
      `${report.startupSeconds.toFixed(1)} s`,
    '',
    '| Scenario | Load | Updates | Updates/s | Deliveries | Deliveries/s | Commit→delivery p50 ms | p99 ms | max ms | First update → last delivery, s | Duplicates | Missing | Server CPU µs/delivery |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    ...notes,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

async function createProducts(ctx: Context, count: number): Promise<number> {
  const started = performance.now();
  const from = ctx.receiver.arrivals.length;
  await inParallel(count, 8, async (index) => {
    const product = await ctx.admin.expect('POST', '/products', 201, {
      title: `Webhook bench product ${index}`,
      status: 'active',
      variants: [{ label: 'Default', priceAmount: 1000, onHand: 1000 }],
    });
    ctx.productIds.push(stringField(product, 'id', 'POST /products'));
  });
  const done = (): boolean => collect(ctx.receiver, from, 'product.created').firsts.length >= count;
  if (!(await waitUntil(done, waitTimeoutMs(count), ctx.server))) {
    throw new Error(`the product.created deliveries of the ${count} new products did not all arrive`);
  }
  return (performance.now() - started) / 1000;
}

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:webhooks');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const host = machine();

  const tempDir = temporaryDirectory('storefront-bench-webhooks-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    DATA_DIR: tempDir,
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
    RUN_WORKERS: '1',
    ALLOW_HTTP_WEBHOOKS: '1',
    EMAIL_TRANSPORT: `file:${path.join(tempDir, 'mail')}`,
  };
  delete env.DATABASE_URL;
  let database = 'PGlite (embedded, fresh temporary DATA_DIR)';
  if (options.databaseUrl !== null) {
    const created = await createDatabase(options.databaseUrl, `storefront_bench_${Date.now()}`);
    env.DATABASE_URL = created.url;
    const shown = new URL(created.url);
    shown.password = '';
    database = `PostgreSQL ${created.version} (${shown.host}${shown.pathname}, created for the run and dropped after it)`;
  }
  const concurrency = env.WEBHOOK_CONCURRENCY?.trim() ? env.WEBHOOK_CONCURRENCY.trim() : '32';
  log(`bench: ${database}; creating store "${STORE}" and a staff session…`);

  // On the embedded database the CLI needs the data directory to itself: before `serve`.
  await cli(
    [
      'stores',
      'create',
      '--name',
      'Webhook bench',
      '--slug',
      STORE,
      '--currency',
      'EUR',
      '--owner-email',
      OWNER,
    ],
    env,
  );
  const token =
    (await cli(['staff', 'token', '--store', STORE, '--email', OWNER], env)).lines.at(-1)?.trim() ?? '';
  if (!token.startsWith('st_')) throw new Error('staff token printed no st_ token');

  const receiver = await startReceiver();
  const server = await serve(env, await freePort());
  log(`bench: server pid ${server.pid} ready at ${server.url} in ${server.startupSeconds.toFixed(1)} s`);
  const admin = new Admin(server.url, token);
  const endpoint = await admin.expect('POST', '/webhooks/endpoints', 201, {
    url: receiver.url,
    events: ['*'],
    description: 'bench/webhooks.ts receiver',
  });
  receiver.secret = stringField(endpoint, 'secret', 'POST /webhooks/endpoints');
  const endpointId = stringField(endpoint, 'id', 'POST /webhooks/endpoints');
  if (server.tail.problems > 0) log(`bench: the server logged at start-up:\n${server.tail.text(10)}`);

  const ctx: Context = { admin, receiver, server, productIds: [], log };
  log(`bench: creating ${int(options.products)} active products (and waiting for their product.created)…`);
  const setupSeconds = await createProducts(ctx, options.products);
  const next = { product: 0 };
  const idleBefore = cpuSecondsOf(server.pid);
  await sleep(IDLE_SECONDS * 1000);
  const idleCpuMsPerSecond = ((cpuSecondsOf(server.pid) - idleBefore) * 1000) / IDLE_SECONDS;

  const report = (phase: Phase): void => {
    const latencies = phase.replay
      ? ''
      : `commit→delivery p50 ${ms(percentile(phase.latencies, 50))} ms, p99 ${ms(
          percentile(phase.latencies, 99),
        )} ms, max ${ms(percentile(phase.latencies, 100))} ms; updates ${int(writesPerSecond(phase))}/s; `;
    log(
      `       ${int(phase.deliveries.length)} deliveries, ${int(deliveriesPerSecond(phase))}/s; ${latencies}` +
        `duplicates ${phase.duplicates}, missing ${phase.missing}`,
    );
  };
  log(`bench: latency: ${options.rate} updates/s for ${options.duration} s…`);
  const latency = await latencyPhase(ctx, options, next);
  report(latency);
  log(`bench: burst: ${int(options.events)} updates from ${options.connections} connections…`);
  const burst = await burstPhase(ctx, options, next);
  report(burst);
  log('bench: backlog: replaying the burst…');
  const replay = await replayPhase(ctx, endpointId, burst);
  report(replay);

  const all = receiver.arrivals;
  const text = section({
    options,
    machine: host,
    database,
    concurrency,
    startupSeconds: server.startupSeconds,
    setup: { products: options.products, seconds: setupSeconds },
    idleCpuMsPerSecond,
    phases: [latency, burst, replay],
    crossCheck: sentToDelivered(latency),
    writeLatency: sortedOf(latency.writes.map((w) => w.answered - w.sent)),
    received: all.length + receiver.malformed,
    badSignatures: all.filter((a) => !a.signatureOk).length,
    idMismatches: all.filter((a) => a.idMismatch).length,
    retries: all.filter((a) => a.attempt > 1).length,
    malformed: receiver.malformed,
    serverProblems: server.tail.problems,
    firstServerProblem: server.tail.firstProblem,
  });
  await publish(text, options, log);
}

await runBenchmark(HELP, parseOptions, main);
