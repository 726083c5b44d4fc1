/**
 * `npm run bench:purchase`: complete purchases, the way a shop makes them, against `storefront serve`.
 *
 * Seeds a benchmark store with the CLI (`seed bench`) into a fresh temporary data directory or, with
 * DATABASE_URL, into a PostgreSQL database it creates for the run (and drops afterwards), starts
 * `storefront serve` as a child process, and measures:
 *
 *   1. steady purchases: `--buyers` buyers, each in a loop: create a cart with one random variant →
 *      check out with an Idempotency-Key → confirm the payment at the sandbox provider
 *      (`pm_card_visa`) → read the order back every `--poll-interval` ms until it is `paid`;
 *   2. a hot-variant race: `--race-buyers` buyers each put the one variant of a product with
 *      `--race-units` units in a cart, then all check out at once; the winners pay; the stock must end
 *      at exactly 0 with no order oversold.
 *
 * With `--readers N`, N shoppers browse while the buyers run (each round's warm-up and recorded
 * seconds, nothing else): each in a loop, a request picked at random among the first product page,
 * a product detail, a search (`q`, a word of a seeded title) and the same search with a filter (a
 * price range or `available=true`), each reader its own client address. It reports their reads/s
 * per round and their failures: a soak "of purchases and reads" is `--rounds` with `--readers`.
 *
 * On PostgreSQL the worker loops (webhook relay, mail worker, …) run by default in a `storefront worker`
 * process beside the server (`--workers separate`; the server gets RUN_WORKERS=false), and each
 * process serves its /metrics on a loopback METRICS_PORT of its own. Per paid purchase it reports, for
 * the server (API) and for the worker: its CPU (/proc/<pid>/stat), the CPU of the PostgreSQL backends
 * it connects (pg_stat_activity by application_name: `storefront serve`, `storefront worker`), the
 * statements and transactions it sends (its storefront_db_statements_total and
 * storefront_db_transactions_total, scraped before and after each recorded round), and its RSS
 * (VmRSS) idle and after the last round; plus the database's own transactions (pg_stat_database).
 * While each recorded round runs it also samples, every 50 ms on a connection of its own (itself
 * excluded), where the database's client backends are (pg_stat_activity: `active, on CPU`,
 * `active, waiting: Lock/transactionid`, `LWLock/WALWrite`, …, `idle in transaction`, `idle`), by
 * process (application_name), and reports the mean number of backends in each state per sample: the
 * backends waiting on a lock another transaction holds (Lock/*) are what serialises purchases
 * (`--no-waits`: no sampling).
 * The database's floor (`--floor`, pgbench running the least SQL of one purchase) runs before the
 * first round and after the last: its tps, its database CPU per purchase, and each server's
 * purchases/s and database CPU per purchase as a multiple of them. PGlite: one process, CPU and RSS.
 *
 * With `--compare DIR` a second server (and its worker) runs from another checkout (e.g. a worktree
 * of main) with its own database, and the rounds alternate between the two: a before/after in one
 * run. It puts a section with the machine, the date and the numbers on top of bench/RESULTS.md. See
 * bench/README.md.
 *
 *   npm run bench:purchase -- [--buyers 50] [--readers 0] [--duration 10] [--warmup 2] [--rounds 1]
 *                             [--products 200] [--poll-interval 25] [--race-buyers 1000] [--race-units 100]
 *                             [--no-race] [--shipping] [--workers separate|inline]
 *                             [--floor PATH | --no-floor] [--no-waits] [--compare DIR] [--compare-env N=V]
 *                             [--db-prefix storefront_bench_purchase_] [--output bench/RESULTS.md] [--no-write]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { createDatabase, databaseUrlFromEnv, withClient } from './lib/databases.ts';
import { commitOf, cpuSecondsOf, machine, type Machine, root, rssMiBOf } from './lib/machine.ts';
import { compareCheckout, parseResultsCommandLine, type ResultsTarget, UsageError } from './lib/options.ts';
import {
  alive,
  benchEnv,
  type Checkout,
  cli,
  freePort,
  isRecord,
  onCleanup,
  type OutputTail,
  requireNode24,
  runBenchmark,
  type RunningServer,
  serve,
  startWorker,
} from './lib/processes.ts';
import { median, percentile, publish, quotedProblem } from './lib/results.ts';
import { inParallel } from './lib/tasks.ts';

/** A purchase whose order is not `paid` this long after the confirmation counts as failed. */
const PAID_TIMEOUT_MS = 30_000;
/** PostgreSQL flushes an idle backend's statistics at most this long after its last transaction. */
const STATS_FLUSH_MS = 11_000;
/** The database's floor for a purchase (pgbench, the least SQL of one purchase), when it exists. */
const DEFAULT_FLOOR = path.resolve(root, '..', 'shared', 'tools', 'purchase-floor', 'run.sh');

const HELP = `Usage: npm run bench:purchase -- [options]

  --buyers N          concurrent buyers in the steady scenario (default 50)
  --readers N         concurrent shoppers browsing while the buyers run (warm-up and recorded
                      seconds), each in a loop: the first product page, a product detail, a search
                      or a search with a filter, picked at random; reads/s and read failures per
                      round (default 0: none)
  --duration S        recorded seconds of the steady scenario per round (default 10)
  --warmup S          unrecorded seconds of purchases before each round (default 2; 0 disables)
  --rounds R          repeat the steady scenario R times; median purchases/s (default 1)
  --products N        products to seed (2 variants each; buyers pick a variant at random) (default 200)
  --poll-interval MS  wait between two reads of an order that is not paid yet (default 25)
  --race-buyers N     buyers in the hot-variant race (default 1000)
  --race-units N      units of the raced variant (default 100)
  --no-race           skip the race
  --shipping          each buyer also sets a US shipping address on the cart, reads its shipping
                      options and chooses the first (what a shop with shipping does, decision \`cart-shipping-and-totals\`); the
                      store gets a United States zone with a flat and a weight-based method
  --workers MODE      PostgreSQL: \`separate\` (default) runs the worker loops (webhook relay, mail
                      worker, …) in a \`storefront worker\` process beside each server (the server
                      gets RUN_WORKERS=false); \`inline\` runs them in the server. PGlite: always inline
  --floor PATH        the database's floor (PostgreSQL): a script run as \`bash PATH <buyers>
                      <max(10, duration)>\` that prints pgbench's \`tps = N\`, once before the first
                      round and once after the last (default ${DEFAULT_FLOOR},
                      when it exists)
  --no-floor          do not run the floor
  --no-waits          PostgreSQL: do not sample where the database's backends wait during the
                      recorded rounds (default: pg_stat_activity every 50 ms on a connection of
                      its own)
  --compare DIR       also run a server from the checkout in DIR (its own database), alternating
                      with this one round by round
  --compare-env N=V   an environment variable of the compared server only (repeatable), e.g.
                      --compare . --compare-env DATABASE_POOL_SIZE=20
  --db-prefix P       name prefix of the PostgreSQL databases made for the run
                      (default storefront_bench_purchase_)
  --output FILE       results file (default bench/RESULTS.md)
  --no-write          print the section, do not write the results file

Without DATABASE_URL the embedded database runs in a fresh temporary DATA_DIR. With it, the
benchmark connects to that PostgreSQL server, creates a database per server for the run and drops
it afterwards (WITH (FORCE)); the database named in the URL is left alone.

Reported per paid purchase, for each server: purchases/s (and × the floor's tps), the steps' times,
the CPU of the server (API) process, of the worker process and of the PostgreSQL backends of each
(by application_name), the statements and transactions each process sends (its
storefront_db_*_total counters, scraped from its own METRICS_PORT) and the database's transactions
(pg_stat_database); the RSS of each process idle and after the last round; the floor's tps and its
database CPU per purchase. PostgreSQL also: where the database's client backends were during the
recorded rounds (pg_stat_activity every 50 ms, by application_name): the mean number per sample
on CPU, waiting (Lock/transactionid, Lock/tuple, LWLock/WALWrite, IO/WALSync, …: a backend
waiting on a Lock/* is held up by another transaction, a serialisation point), idle in
transaction (its process has not sent the next statement yet) and idle; the 10 largest.
PGlite: one process, no database split, no counters, no floor, no waits.
With --readers: reads/s (median over the rounds) and read failures; the CPU, statements and
transactions per purchase then include what the reads cost.
`;

// ---------------------------------------------------------------------------------------------
// Options

interface Options extends ResultsTarget {
  buyers: number;
  /** Shoppers browsing (product page, detail, search) while the buyers run; 0: none. */
  readers: number;
  duration: number;
  warmup: number;
  rounds: number;
  products: number;
  pollMs: number;
  raceBuyers: number;
  raceUnits: number;
  race: boolean;
  /** Each purchase takes the cart's shipping steps (address, options, method) before checkout. */
  shipping: boolean;
  /** Where the worker loops run: in the server, or in a `storefront worker` beside it (PostgreSQL). */
  workers: 'inline' | 'separate';
  /** The floor script (PostgreSQL), or null: no floor. */
  floor: string | null;
  /** PostgreSQL: sample where the database's backends wait during each recorded round (not --no-waits). */
  waits: boolean;
  compare: string | null;
  /** Extra environment of the compared server (e.g. another DATABASE_POOL_SIZE). */
  compareEnv: Record<string, string>;
  dbPrefix: string;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    {
      buyers: { default: 50, min: 1, max: 5000 },
      readers: { default: 0, min: 0, max: 5000 },
      duration: { default: 10, min: 1, max: 3600 },
      warmup: { default: 2, min: 0, max: 600 },
      rounds: { default: 1, min: 1, max: 100 },
      products: { default: 200, min: 1, max: 1_000_000 },
      'poll-interval': { default: 25, min: 1, max: 60_000 },
      'race-buyers': { default: 1000, min: 1, max: 10_000 },
      'race-units': { default: 100, min: 1, max: 1_000_000 },
    },
    {
      'no-race': { type: 'boolean', default: false },
      shipping: { type: 'boolean', default: false },
      workers: { type: 'string' },
      floor: { type: 'string' },
      'no-floor': { type: 'boolean', default: false },
      'no-waits': { type: 'boolean', default: false },
      compare: { type: 'string' },
      'compare-env': { type: 'string', multiple: true, default: [] },
      'db-prefix': { type: 'string', default: 'storefront_bench_purchase_' },
    },
  );
  if (parsed === null) return null;
  const { integers, values } = parsed;
  const compare = compareCheckout(values.compare);
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(values['db-prefix'])) {
    throw new UsageError('--db-prefix must be lower-case letters, digits and underscores (at most 41)');
  }
  const databaseUrl = databaseUrlFromEnv();
  const compareEnv: Record<string, string> = {};
  for (const pair of values['compare-env']) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new UsageError(`--compare-env must be NAME=VALUE, got "${pair}"`);
    compareEnv[match[1]!] = match[2]!;
  }
  if (Object.keys(compareEnv).length > 0 && compare === null) {
    throw new UsageError(
      '--compare-env needs --compare (use --compare . to compare this checkout with itself)',
    );
  }
  const workers = values.workers ?? (databaseUrl === null ? 'inline' : 'separate');
  if (workers !== 'inline' && workers !== 'separate')
    throw new UsageError(`--workers must be inline or separate, got "${workers}"`);
  if (workers === 'separate' && databaseUrl === null)
    throw new UsageError(
      '--workers separate needs DATABASE_URL (PGlite is one process: the loops run in the server)',
    );
  let floor: string | null = null;
  if (values['no-floor']) {
    if (values.floor !== undefined) throw new UsageError('--floor and --no-floor contradict each other');
  } else if (values.floor !== undefined) {
    floor = path.resolve(values.floor);
    if (!existsSync(floor)) throw new UsageError(`--floor: no file ${floor}`);
    if (databaseUrl === null)
      throw new UsageError('--floor needs DATABASE_URL (the floor runs on PostgreSQL)');
  } else if (databaseUrl !== null && existsSync(DEFAULT_FLOOR)) {
    floor = DEFAULT_FLOOR;
  }
  const { 'poll-interval': pollMs, 'race-buyers': raceBuyers, 'race-units': raceUnits, ...counts } = integers;
  const options: Options = {
    ...counts,
    pollMs,
    raceBuyers,
    raceUnits,
    race: !values['no-race'],
    shipping: values.shipping,
    workers,
    floor,
    waits: !values['no-waits'],
    compare,
    compareEnv,
    dbPrefix: values['db-prefix'],
    ...parsed.results,
    databaseUrl,
  };
  return options;
}

// ---------------------------------------------------------------------------------------------
// HTTP

const pools = new Set<Pool>();
onCleanup(async () => {
  await Promise.all([...pools].map((pool) => pool.destroy().catch(() => undefined)));
  pools.clear();
});

function newPool(url: string, connections: number): Pool {
  const pool = new Pool(url, {
    connections,
    pipelining: 1,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
    keepAliveTimeout: 60_000,
  });
  pools.add(pool);
  return pool;
}

async function closePool(pool: Pool): Promise<void> {
  pools.delete(pool);
  await pool.close().catch(() => undefined);
}

interface Answer {
  /** HTTP status, or 0 for a connection error or timeout. */
  status: number;
  body: unknown;
  ms: number;
}

async function call(
  pool: Pool,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  route: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await pool.request({
      path: route,
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    let parsed: unknown = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        parsed = text;
      }
    }
    return { status: response.statusCode, body: parsed, ms: performance.now() - started };
  } catch (error) {
    return {
      status: 0,
      body: error instanceof Error ? error.message : String(error),
      ms: performance.now() - started,
    };
  }
}

function field(value: unknown, ...names: string[]): unknown {
  let current = value;
  for (const name of names) current = isRecord(current) ? current[name] : undefined;
  return current;
}

function stringAt(value: unknown, ...names: string[]): string {
  const found = field(value, ...names);
  if (typeof found !== 'string') throw new Error(`no ${names.join('.')} in ${JSON.stringify(value)}`);
  return found;
}

async function expectAnswer(answer: Promise<Answer>, status: number, what: string): Promise<unknown> {
  const got = await answer;
  if (got.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${got.status}: ${JSON.stringify(got.body)}`);
  }
  return got.body;
}

// ---------------------------------------------------------------------------------------------
// One server under test

interface Target {
  /** "this checkout" or "compared". */
  label: string;
  checkout: Checkout;
  commit: string;
  server: RunningServer;
  key: Record<string, string>;
  admin: Record<string, string>;
  variantIds: string[];
  /** The seeded products (from the listing at set-up): what --readers browse and search for. */
  products: CatalogProduct[];
  /** The run's own database (PostgreSQL), else null. */
  databaseUrl: string | null;
  database: string;
  /** Whether purchases take the cart's shipping steps (--shipping). */
  shipping: boolean;
  /** The `storefront worker` beside the server (--workers separate), else null. */
  worker: Worker | null;
  /** The METRICS_PORT of the server and of the worker (PostgreSQL), for the round-trip counters. */
  metricsPorts: { api: number | null; worker: number | null };
  /** What a scrape of /metrics sends (METRICS_TOKEN, when the environment sets one). */
  metricsHeaders: Record<string, string>;
  /** RSS (MiB) after start-up and seeding, before any purchase. */
  rssIdle: Rss;
  /** RSS (MiB) right after the target's last steady round. */
  rssAfter: Rss | null;
}

/** A product of the store, as a shopper sees it: its id, the words of its title, its variants' prices. */
interface CatalogProduct {
  id: string;
  /** Lower-case words of the title (search terms that find it: each begins a word of its title). */
  words: string[];
  prices: number[];
}

interface Worker {
  child: ChildProcess;
  pid: number;
  tail: OutputTail;
  startupSeconds: number;
}

/** Resident memory in MiB of the server and of the worker (NaN: no worker). */
interface Rss {
  api: number;
  worker: number;
}

function rssOf(target: Pick<Target, 'server' | 'worker'>): Rss {
  return {
    api: rssMiBOf(target.server.pid),
    worker: target.worker ? rssMiBOf(target.worker.pid) : Number.NaN,
  };
}

/** Waits (up to 120 s) until the worker's METRICS_PORT answers: its loops have started. */
async function waitForWorker(
  child: ChildProcess,
  tail: OutputTail,
  port: number,
  headers: Record<string, string>,
): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (!alive(child)) throw new Error(`the worker exited during start-up:\n${tail.text()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers,
        signal: AbortSignal.timeout(1000),
      });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`the worker's /metrics did not answer within 120 s:\n${tail.text()}`);
}

async function setUpTarget(
  label: string,
  checkout: Checkout,
  options: Options,
  log: (line: string) => void,
  extraEnv: Record<string, string> = {},
): Promise<Target> {
  const env: NodeJS.ProcessEnv = {
    ...benchEnv('storefront-bench-purchase-'),
    PAYMENT_PROVIDER: 'sandbox',
    // Each buyer is its own client address (X-Forwarded-For from loopback, clientOf), as a shop's
    // buyers are: decision `pending-orders-per-client`'s pending-order limit stays at its default and its per-client lock uncontended.
    TRUST_PROXY: 'loopback',
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  let database = 'PGlite (embedded, fresh temporary DATA_DIR)';
  let databaseUrl: string | null = null;
  if (options.databaseUrl !== null) {
    const suffix = label === 'this checkout' ? 'a' : 'b';
    const created = await createDatabase(
      options.databaseUrl,
      `${options.dbPrefix}${Date.now().toString(36)}_${suffix}`,
    );
    env.DATABASE_URL = created.url;
    databaseUrl = created.url;
    const shown = new URL(created.url);
    shown.password = '';
    database = `PostgreSQL ${created.version} (${shown.host}${shown.pathname}, created for the run and dropped after it)`;
  }
  const store = `purchase-${Date.now().toString(36)}`;
  log(`bench: ${label}: ${database}; seeding ${options.products} products into store "${store}"…`);
  const seeded = await cli(
    ['seed', 'bench', '--products', String(options.products), '--store', store],
    env,
    undefined,
    checkout.root,
  );
  const key = seeded.lines.at(-1)?.trim() ?? '';
  const token = /Staff token: (st_\S+)/.exec(seeded.lines.join('\n'))?.[1] ?? '';
  if (!key.startsWith('pk_') || token === '')
    throw new Error(`seed bench printed no key or token:\n${seeded.text()}`);

  // PostgreSQL: each process serves its own /metrics (the storefront_db_*_total round-trip counters)
  // on a loopback port; with --workers separate the loops run in a `storefront worker` beside it.
  const separate = options.workers === 'separate';
  const metricsEnv = (port: number | null): NodeJS.ProcessEnv =>
    port === null ? {} : { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' };
  const metricsHeaders: Record<string, string> = env.METRICS_TOKEN?.trim()
    ? { authorization: `Bearer ${env.METRICS_TOKEN.trim()}` }
    : {};
  const apiMetricsPort = databaseUrl !== null ? await freePort() : null;
  const server = await serve(
    { ...env, ...metricsEnv(apiMetricsPort), ...(separate ? { RUN_WORKERS: 'false' } : {}) },
    await freePort(),
    { checkout: checkout.root },
  );
  log(
    `bench: ${label}: server pid ${server.pid} ready at ${server.url} in ${server.startupSeconds.toFixed(1)} s` +
      (separate ? ' (RUN_WORKERS=false)' : ''),
  );
  let worker: Worker | null = null;
  let workerMetricsPort: number | null = null;
  if (separate) {
    workerMetricsPort = await freePort();
    const started = performance.now();
    const { child, tail } = startWorker(
      { ...env, RUN_WORKERS: 'false', ...metricsEnv(workerMetricsPort) },
      checkout.root,
    );
    await waitForWorker(child, tail, workerMetricsPort, metricsHeaders);
    if (child.pid === undefined) throw new Error('the worker has no pid');
    worker = { child, pid: child.pid, tail, startupSeconds: (performance.now() - started) / 1000 };
    log(`bench: ${label}: worker pid ${worker.pid} ready in ${worker.startupSeconds.toFixed(1)} s`);
  }
  const target: Target = {
    label,
    checkout,
    commit: commitOf(checkout.root),
    server,
    key: { 'x-publishable-key': key },
    admin: { authorization: `Bearer ${token}` },
    variantIds: [],
    products: [],
    databaseUrl,
    database,
    shipping: options.shipping,
    worker,
    metricsPorts: { api: apiMetricsPort, worker: workerMetricsPort },
    metricsHeaders,
    rssIdle: { api: Number.NaN, worker: Number.NaN },
    rssAfter: null,
  };
  const catalog = await listCatalog(target);
  target.variantIds = catalog.variantIds;
  target.products = catalog.products;
  if (options.readers > 0) await checkSearches(target);
  if (options.shipping) await addShippingZone(target);
  for (const [who, tail] of [
    ['server', server.tail],
    ['worker', worker?.tail],
  ] as const) {
    if (tail === undefined) continue;
    if (tail.problems > 0) log(`bench: ${label}: the ${who} logged at start-up:\n${tail.text(10)}`);
    tail.problems = 0;
    tail.firstProblem = null;
  }
  target.rssIdle = rssOf(target);
  return target;
}

/** A United States zone with a flat and a weight-based method, for --shipping. */
async function addShippingZone(target: Target): Promise<void> {
  const post = async (url: string, body: object): Promise<string> => {
    const response = await fetch(`${target.server.url}${url}`, {
      method: 'POST',
      headers: { ...target.admin, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer: unknown = await response.json();
    if (response.status !== 201) throw new Error(`${url}: ${response.status} ${JSON.stringify(answer)}`);
    return stringAt(answer, 'id');
  };
  const zone = await post('/admin/v1/shipping/zones', { name: 'United States', areas: [{ country: 'US' }] });
  await post(`/admin/v1/shipping/zones/${zone}/methods`, { name: 'Ground', kind: 'flat', amount: 800 });
  await post(`/admin/v1/shipping/zones/${zone}/methods`, {
    name: 'Economy',
    kind: 'weight',
    weightTiers: [{ upToGrams: 100_000, amount: 500 }],
  });
}

/** Every product and variant of the store (the product list, then each product's detail). */
async function listCatalog(target: Target): Promise<{ products: CatalogProduct[]; variantIds: string[] }> {
  const pool = newPool(target.server.url, 8);
  try {
    const productIds: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await expectAnswer(
        call(pool, 'GET', `/storefront/v1/products?${query}`, target.key),
        200,
        'GET /products',
      );
      const items = field(page, 'items');
      if (Array.isArray(items)) for (const item of items) productIds.push(stringAt(item, 'id'));
      const next = field(page, 'nextCursor');
      cursor = typeof next === 'string' ? next : null;
    } while (cursor !== null);
    const variantIds: string[] = [];
    const products: CatalogProduct[] = [];
    await inParallel(productIds.length, 8, async (index) => {
      const id = productIds[index] ?? '';
      const product = await expectAnswer(
        call(pool, 'GET', `/storefront/v1/products/${id}`, target.key),
        200,
        'GET /products/:id',
      );
      const variants = field(product, 'variants');
      const prices: number[] = [];
      if (Array.isArray(variants)) {
        for (const variant of variants) {
          variantIds.push(stringAt(variant, 'id'));
          const price = field(variant, 'priceAmount');
          if (typeof price === 'number') prices.push(price);
        }
      }
      const words = stringAt(product, 'title')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word !== '');
      products.push({ id, words, prices });
    });
    if (variantIds.length === 0) throw new Error('the benchmark store has no variants');
    return { products, variantIds };
  } finally {
    await closePool(pool);
  }
}

// ---------------------------------------------------------------------------------------------
// A purchase

type Step = 'cart' | 'shipping' | 'checkout' | 'confirm' | 'paid';
/** The steps a purchase is timed in; `shipping` (address, options, method) with --shipping only. */
const stepsOf = (shipping: boolean): Step[] =>
  shipping ? ['cart', 'shipping', 'checkout', 'confirm', 'paid'] : ['cart', 'checkout', 'confirm', 'paid'];

interface Purchase {
  ok: boolean;
  /** Milliseconds per step: `paid` runs from the confirmation's answer to the first read that is paid. */
  steps: Partial<Record<Step, number>>;
  total: number;
  /** Order reads, including the one that saw `paid`. */
  polls: number;
  /** `<step> <status>` of a failed purchase (status 0: connection error or timeout). */
  failure: string | null;
  end: number;
}

interface Paid {
  ok: boolean;
  ms: number;
  polls: number;
  failure: string | null;
}

/** Confirms the payment like the shop's hosted fields, then reads the order until it is paid. */
async function payAndWait(
  pool: Pool,
  key: Record<string, string>,
  checkoutBody: unknown,
  pollMs: number,
  steps: Partial<Record<Step, number>>,
): Promise<Paid> {
  const orderId = stringAt(checkoutBody, 'order', 'id');
  const ref = stringAt(checkoutBody, 'payment', 'ref');
  const clientSecret = stringAt(checkoutBody, 'payment', 'clientSecret');
  const confirmed = await call(
    pool,
    'POST',
    `/sandbox/v1/payments/${ref}/confirm`,
    {},
    {
      clientSecret,
      paymentMethod: 'pm_card_visa',
    },
  );
  steps.confirm = confirmed.ms;
  if (confirmed.status !== 200) return { ok: false, ms: 0, polls: 0, failure: `confirm ${confirmed.status}` };
  const started = performance.now();
  let polls = 0;
  for (;;) {
    const read = await call(pool, 'GET', `/storefront/v1/orders/${orderId}`, key);
    polls += 1;
    if (read.status !== 200) return { ok: false, ms: 0, polls, failure: `paid ${read.status}` };
    if (field(read.body, 'status') === 'paid')
      return { ok: true, ms: performance.now() - started, polls, failure: null };
    if (performance.now() - started > PAID_TIMEOUT_MS)
      return { ok: false, ms: 0, polls, failure: 'paid timeout' };
    await sleep(pollMs);
  }
}

let buyerSerial = 0;

/** The headers of buyer `n`: the store's key, and the buyer's own address (TRUST_PROXY=loopback). */
function clientOf(target: Target, n: number): Record<string, string> {
  return { ...target.key, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
}

const BENCH_ADDRESS = {
  name: 'Bench Buyer',
  line1: '1 Main St',
  city: 'Boston',
  region: 'US-MA',
  postalCode: '02108',
  country: 'US',
};

/** The cart's shipping steps a shop makes (decision `cart-shipping-and-totals`): its address, its options, the first option. Milliseconds, or the failure. */
async function shippingSteps(
  pool: Pool,
  key: Record<string, string>,
  cartId: string,
): Promise<number | string> {
  const address = await call(
    pool,
    'PUT',
    `/storefront/v1/carts/${cartId}/shipping-address`,
    key,
    BENCH_ADDRESS,
  );
  if (address.status !== 200) return `shipping-address ${address.status}`;
  const options = await call(pool, 'GET', `/storefront/v1/carts/${cartId}/shipping-options`, key);
  const items = isRecord(options.body) && Array.isArray(options.body.items) ? options.body.items : [];
  if (options.status !== 200 || items.length === 0) return `shipping-options ${options.status}`;
  const method = await call(pool, 'PUT', `/storefront/v1/carts/${cartId}/shipping-method`, key, {
    id: stringAt(items[0], 'id'),
  });
  if (method.status !== 200) return `shipping-method ${method.status}`;
  return address.ms + options.ms + method.ms;
}

async function purchase(pool: Pool, target: Target, pollMs: number, buyer: number): Promise<Purchase> {
  const key = clientOf(target, buyer);
  const started = performance.now();
  const steps: Partial<Record<Step, number>> = {};
  const failed = (failure: string, polls = 0): Purchase => ({
    ok: false,
    steps,
    total: performance.now() - started,
    polls,
    failure,
    end: performance.now(),
  });
  const variantId = target.variantIds[Math.floor(Math.random() * target.variantIds.length)] ?? '';
  const cart = await call(pool, 'POST', '/storefront/v1/carts', key, {
    items: [{ variantId, quantity: 1 }],
  });
  steps.cart = cart.ms;
  if (cart.status !== 201) return failed(`cart ${cart.status}`);
  if (target.shipping) {
    const shipped = await shippingSteps(pool, key, stringAt(cart.body, 'id'));
    if (typeof shipped === 'string') return failed(shipped);
    steps.shipping = shipped;
  }
  buyerSerial += 1;
  const checkout = await call(
    pool,
    'POST',
    '/storefront/v1/checkout',
    { ...key, 'idempotency-key': randomUUID() },
    { cartId: stringAt(cart.body, 'id'), email: `buyer-${buyerSerial}@example.com` },
  );
  steps.checkout = checkout.ms;
  if (checkout.status !== 201) return failed(`checkout ${checkout.status}`);
  const paid = await payAndWait(pool, key, checkout.body, pollMs, steps);
  if (!paid.ok) return failed(paid.failure ?? 'paid ?', paid.polls);
  steps.paid = paid.ms;
  return {
    ok: true,
    steps,
    total: performance.now() - started,
    polls: paid.polls,
    failure: null,
    end: performance.now(),
  };
}

// ---------------------------------------------------------------------------------------------
// Readers: shoppers browsing while the buyers buy (--readers)

type ReadKind = 'page' | 'detail' | 'search' | 'filtered';
const READ_KINDS: readonly ReadKind[] = ['page', 'detail', 'search', 'filtered'];
type SearchFilter = 'none' | 'price' | 'available';

/** The reads of one span of buying (a warm-up or a recorded round). */
interface Reads {
  /** Reads answered 2xx or 304. */
  ok: number;
  /** Failed reads by kind and status (`search 500`; status 0: a connection error or timeout). */
  failures: Record<string, number>;
  /** From the readers' start to the last read's answer. */
  seconds: number;
}

const failedReads = (reads: Reads): number => Object.values(reads.failures).reduce((a, n) => a + n, 0);

function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}

/** The headers of reader `n`: the store's key and its own address, apart from the buyers' (10.0.x.y). */
function readerOf(target: Target, n: number): Record<string, string> {
  return { ...target.key, 'x-forwarded-for': `10.200.${(n >> 8) & 255}.${n & 255}` };
}

/**
 * A search (decision `storefront-search`, docs/search.md) that finds `product`: a word of its title (each word of `q` must
 * begin a word of the title, a SKU, …), with a filter it meets too: a price range around one of its
 * variants' prices, or `available=true` (`seed bench` puts 1,000,000 units on hand).
 */
function searchRoute(product: CatalogProduct, filter: SearchFilter, word: string): string {
  const query = new URLSearchParams({ q: word, limit: '20' });
  const price = pick(product.prices);
  if (filter === 'price' && price !== undefined) {
    query.set('minPrice', String(Math.max(0, price - 500)));
    query.set('maxPrice', String(price + 500));
  } else if (filter !== 'none') {
    query.set('available', 'true');
  }
  return `/storefront/v1/products?${query.toString()}`;
}

function readRoute(target: Target, kind: ReadKind): string {
  const product = pick(target.products);
  const word = product ? pick(product.words) : undefined;
  if (kind === 'page' || product === undefined) return '/storefront/v1/products?limit=20';
  if (kind === 'detail' || word === undefined) return `/storefront/v1/products/${product.id}`;
  return searchRoute(product, kind === 'search' ? 'none' : Math.random() < 0.5 ? 'price' : 'available', word);
}

/** Before any load: the readers' searches find something (or the bench would measure empty results). */
async function checkSearches(target: Target): Promise<void> {
  const product = target.products.find((p) => p.words.length > 0);
  if (product === undefined) throw new Error('--readers: no seeded product has a title word to search for');
  const pool = newPool(target.server.url, 1);
  try {
    for (const word of product.words) {
      for (const filter of ['none', 'price', 'available'] as const) {
        const route = searchRoute(product, filter, word);
        const found = field(
          await expectAnswer(call(pool, 'GET', route, target.key), 200, `GET ${route}`),
          'items',
        );
        if (!Array.isArray(found) || found.length === 0)
          throw new Error(
            `--readers: GET ${route} found no products; the readers' searches would find nothing`,
          );
      }
    }
  } finally {
    await closePool(pool);
  }
}

/** Reader `n`: a read picked at random, again and again, until `stopped()`. */
async function browse(
  pool: Pool,
  target: Target,
  n: number,
  reads: Reads,
  stopped: () => boolean,
): Promise<void> {
  const headers = readerOf(target, n);
  while (!stopped()) {
    const kind = pick(READ_KINDS) ?? 'page';
    const answer = await call(pool, 'GET', readRoute(target, kind), headers);
    if ((answer.status >= 200 && answer.status < 300) || answer.status === 304) {
      reads.ok += 1;
    } else {
      tally(reads.failures, `${kind} ${answer.status}`);
      await sleep(50);
    }
  }
}

/** Runs `work` (the buyers) with `readers` shoppers browsing exactly as long; their reads (null: none). */
async function withReaders<T>(
  pool: Pool | null,
  target: Target,
  readers: number,
  work: () => Promise<T>,
): Promise<{ result: T; reads: Reads | null }> {
  if (pool === null || readers === 0) return { result: await work(), reads: null };
  let stopped = false;
  const reads: Reads = { ok: 0, failures: {}, seconds: 0 };
  const started = performance.now();
  const loops = Promise.all(
    Array.from({ length: readers }, (_, n) => browse(pool, target, n, reads, () => stopped)),
  );
  let result: T;
  try {
    result = await work();
  } finally {
    stopped = true;
    await loops;
  }
  reads.seconds = (performance.now() - started) / 1000;
  return { result, reads };
}

// ---------------------------------------------------------------------------------------------
// Readings: CPU of the processes and of the database, round trips, transactions

/** Whose a PostgreSQL backend is: the server's (API), the worker's, or neither (autovacuum, …). */
type Role = 'api' | 'worker' | 'other';

/** Statements and transactions a process has sent (its storefront_db_*_total counters). */
interface Counts {
  statements: number;
  transactions: number;
}

const NO_COUNTS: Counts = { statements: Number.NaN, transactions: Number.NaN };

interface Readings {
  serverCpu: number;
  /** CPU seconds of the `storefront worker` (NaN: none). */
  workerCpu: number;
  /** CPU seconds of each PostgreSQL backend connected to the target's database, and whose it is. */
  backends: Map<number, { seconds: number; role: Role }>;
  /** Commits + rollbacks in the target's database (flushed statistics). */
  transactions: number;
  api: Counts;
  worker: Counts;
}

/**
 * The process a backend serves, by the `application_name` the service gives its sessions
 * (src/runtime.ts databaseOptions: `storefront serve`, `storefront worker`; the webhook relay's LISTEN
 * session is `storefront webhook listener`, in whichever process runs the relay).
 */
function roleOf(applicationName: string, separate: boolean): Role {
  if (applicationName === 'storefront serve') return 'api';
  if (applicationName === 'storefront worker') return 'worker';
  if (applicationName === 'storefront webhook listener') return separate ? 'worker' : 'api';
  return 'other';
}

async function backendsOf(databaseUrl: string): Promise<{ pid: number; name: string }[]> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ pid: number; name: string | null }>(
      'SELECT pid, application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return result.rows.map((row) => ({ pid: row.pid, name: row.name ?? '' }));
  });
}

async function transactionCount(databaseUrl: string): Promise<number> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ n: string }>(
      'SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(result.rows[0]?.n ?? Number.NaN);
  });
}

/** The value of a sample without labels in a Prometheus exposition, NaN when it is not there. */
function sampleOf(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{\\})? (\\S+)`, 'm').exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

const missingCounters = new Set<string>();

/** The round-trip counters of the process whose METRICS_PORT is `port` (NaN: none, or not exposed). */
async function scrape(target: Target, who: 'api' | 'worker'): Promise<Counts> {
  const port = target.metricsPorts[who];
  if (port === null) return NO_COUNTS;
  let counts = NO_COUNTS;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
      headers: target.metricsHeaders,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.ok) {
      counts = {
        statements: sampleOf(text, 'storefront_db_statements_total'),
        transactions: sampleOf(text, 'storefront_db_transactions_total'),
      };
    }
  } catch {
    // counted as missing below
  }
  const key = `${target.label} ${who}`;
  if (!Number.isFinite(counts.statements) && !missingCounters.has(key)) {
    missingCounters.add(key);
    process.stderr.write(
      `bench: ${target.label}: no storefront_db_statements_total on the ${who === 'api' ? 'server' : 'worker'}'s /metrics (port ${port})\n`,
    );
  }
  return counts;
}

async function read(target: Target, withTransactions: boolean): Promise<Readings> {
  const backends = new Map<number, { seconds: number; role: Role }>();
  let transactions = Number.NaN;
  const [api, worker] = await Promise.all([scrape(target, 'api'), scrape(target, 'worker')]);
  const serverCpu = cpuSecondsOf(target.server.pid);
  const workerCpu = target.worker ? cpuSecondsOf(target.worker.pid) : Number.NaN;
  if (target.databaseUrl !== null) {
    const separate = target.worker !== null;
    for (const { pid, name } of await backendsOf(target.databaseUrl))
      backends.set(pid, { seconds: cpuSecondsOf(pid), role: roleOf(name, separate) });
    if (withTransactions) transactions = await transactionCount(target.databaseUrl);
  }
  return { serverCpu, workerCpu, backends, transactions, api, worker };
}

/** Database CPU seconds, by whose backends they are, and in all. */
interface DatabaseCpu {
  api: number;
  worker: number;
  other: number;
  total: number;
}

/**
 * Database CPU between two readings: backends seen at the end, minus what they had used at the
 * start; NaN without backends (PGlite).
 */
function databaseCpu(before: Readings, after: Readings): DatabaseCpu {
  const cpu: DatabaseCpu = { api: 0, worker: 0, other: 0, total: 0 };
  for (const [pid, { seconds, role }] of after.backends) {
    if (!Number.isFinite(seconds)) continue;
    const used = seconds - (before.backends.get(pid)?.seconds ?? 0);
    cpu[role] += used;
    cpu.total += used;
  }
  if (after.backends.size === 0)
    return { api: Number.NaN, worker: Number.NaN, other: Number.NaN, total: Number.NaN };
  return cpu;
}

function countsBetween(before: Counts, after: Counts): Counts {
  return {
    statements: after.statements - before.statements,
    transactions: after.transactions - before.transactions,
  };
}

// ---------------------------------------------------------------------------------------------
// Where the database's backends wait (PostgreSQL, not --no-waits)

/** How often the wait sampling reads pg_stat_activity during a recorded round. */
const WAIT_SAMPLE_MS = 50;

/**
 * Where the client backends of the target's database were during a recorded round: pg_stat_activity
 * read every WAIT_SAMPLE_MS on a connection of its own (itself excluded), each backend counted in its
 * class: `active, on CPU`, `active, waiting: <wait_event_type>/<wait_event>`, `idle in transaction`
 * or `idle`, for the process it serves (by application_name, as roleOf tells them apart).
 */
interface Waits {
  /** Reads of pg_stat_activity. */
  samples: number;
  /** Per process and class: the backends seen in that class, summed over the samples. */
  seen: Record<Role, Record<string, number>>;
  /** Why the sampling stopped before the round's end, if it did. */
  failure: string | null;
}

const noWaits = (): Waits => ({ samples: 0, seen: { api: {}, worker: {}, other: {} }, failure: null });

interface ActivityRow {
  application_name: string | null;
  state: string | null;
  wait_event_type: string | null;
  wait_event: string | null;
  backend_type: string | null;
}

/** The start of the class of an active backend that waits (for a lock, I/O, …). */
const WAITING = 'active, waiting: ';

/** The class of a client backend in a sample of pg_stat_activity. */
function waitClassOf(row: ActivityRow): string {
  if (row.state === 'active')
    return row.wait_event_type === null
      ? 'active, on CPU'
      : `${WAITING}${row.wait_event_type}/${row.wait_event ?? '?'}`;
  // `idle in transaction (aborted)` too: the backend waits for its client between statements.
  if (row.state?.startsWith('idle in transaction')) return 'idle in transaction';
  return row.state ?? 'unknown';
}

/**
 * Starts sampling where the target's backends wait (null: PGlite or --no-waits); resolves once its
 * connection is open. `stop()` ends it (at once, not after the next 50 ms) and `counted` then gives
 * the samples, once the connection is closed; it never rejects (a failure is in `failure`).
 */
async function sampleWaits(
  target: Target,
  enabled: boolean,
): Promise<{ stop: () => void; counted: Promise<Waits> } | null> {
  if (!enabled || target.databaseUrl === null) return null;
  const separate = target.worker !== null;
  const waits = noWaits();
  let stopped = false;
  let stop = (): void => undefined;
  const stopping = new Promise<void>((resolve) => {
    stop = () => {
      stopped = true;
      resolve();
    };
  });
  let opened = (): void => undefined;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const counted = withClient(target.databaseUrl, async (client) => {
    opened();
    while (!stopped) {
      const next = performance.now() + WAIT_SAMPLE_MS;
      const result = await client.query<ActivityRow>(
        'SELECT application_name, state, wait_event_type, wait_event, backend_type FROM pg_stat_activity ' +
          'WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      waits.samples += 1;
      for (const row of result.rows) {
        if (row.backend_type !== 'client backend') continue;
        tally(waits.seen[roleOf(row.application_name ?? '', separate)], waitClassOf(row));
      }
      await Promise.race([sleep(Math.max(0, next - performance.now())), stopping]);
    }
  }).then(
    () => waits,
    (error: unknown) => {
      waits.failure = error instanceof Error ? error.message : String(error);
      opened();
      return waits;
    },
  );
  await open;
  return { stop, counted };
}

/** The waits of several rounds together (null: none was sampled). */
function sumWaits(all: (Waits | null)[]): Waits | null {
  const sampled = all.filter((w): w is Waits => w !== null);
  if (sampled.length === 0) return null;
  const sum = noWaits();
  for (const w of sampled) {
    sum.samples += w.samples;
    sum.failure ??= w.failure;
    for (const role of ['api', 'worker', 'other'] as const)
      for (const [what, n] of Object.entries(w.seen[role]))
        sum.seen[role][what] = (sum.seen[role][what] ?? 0) + n;
  }
  return sum;
}

/** Backends in the classes `which` picks, on average per sample, over every process. */
function backendsIn(waits: Waits, which: (what: string) => boolean): number {
  if (waits.samples === 0) return Number.NaN;
  let seen = 0;
  for (const role of ['api', 'worker', 'other'] as const)
    for (const [what, n] of Object.entries(waits.seen[role])) if (which(what)) seen += n;
  return seen / waits.samples;
}

const isLockWait = (what: string): boolean => what.startsWith(`${WAITING}Lock/`);

// ---------------------------------------------------------------------------------------------
// The database's floor

interface FloorRun {
  /** pgbench's `tps`: purchases per second the database alone does (NaN: the script failed). */
  tps: number;
  /** CPU µs of the floor database's backends per purchase (NaN: not measured). */
  databaseCpuMicros: number;
  /** Why it failed, when it did. */
  failure: string | null;
}

const floorChildren = new Set<ChildProcess>();
onCleanup(() => {
  // The script's process group: pgbench stops, the script's EXIT trap drops its database.
  for (const child of floorChildren) {
    if (alive(child) && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
  }
});

/**
 * Runs the floor script (`bash PATH <clients> <seconds>`; it makes the database `floor_<its pid>`
 * and runs pgbench there) and, while it runs, samples every 500 ms the CPU of that database's
 * backends (psql's excluded): from the first sample one second after they appeared to the last one
 * before the script ends. CPU per purchase = that CPU ÷ (tps × the seconds between the two).
 */
async function runFloor(
  script: string,
  clients: number,
  seconds: number,
  adminUrl: string,
): Promise<FloorRun> {
  const child = spawn('bash', [script, String(clients), String(seconds)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  floorChildren.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let done = false;
  const closed = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(-1));
    child.once('close', (code) => resolve(code));
  }).finally(() => {
    done = true;
    floorChildren.delete(child);
  });

  let firstSeen: number | null = null;
  let base = null as Map<number, number> | null;
  let baseAt = 0;
  const last = new Map<number, number>();
  let lastAt = 0;
  let sampling: string | null = null;
  try {
    await withClient(adminUrl, async (client) => {
      while (!done) {
        const result = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND application_name <> 'psql'",
          [`floor_${child.pid}`],
        );
        const now = performance.now();
        const cpu = new Map<number, number>();
        for (const { pid } of result.rows) {
          const used = cpuSecondsOf(pid);
          if (Number.isFinite(used)) cpu.set(pid, used);
        }
        if (cpu.size > 0) {
          firstSeen ??= now;
          if (base === null) {
            if (now - firstSeen >= 1000) {
              base = cpu;
              baseAt = now;
            }
          } else {
            for (const [pid, used] of cpu) last.set(pid, used);
            lastAt = now;
          }
        }
        await Promise.race([sleep(500), closed]);
      }
    });
  } catch (error) {
    sampling = error instanceof Error ? error.message : String(error);
  }
  const code = await closed;
  const tps = Number(/^tps = ([\d.]+)/m.exec(output)?.[1] ?? Number.NaN);
  if (code !== 0 || !Number.isFinite(tps)) {
    const tail = output.trim().split('\n').slice(-5).join(' / ');
    return { tps: Number.NaN, databaseCpuMicros: Number.NaN, failure: `exit ${String(code)}: ${tail}` };
  }
  let cpu = 0;
  for (const [pid, used] of last) cpu += used - (base?.get(pid) ?? 0);
  const window = (lastAt - baseAt) / 1000;
  const databaseCpuMicros =
    base !== null && last.size > 0 && window > 0 ? (cpu * 1e6) / (tps * window) : Number.NaN;
  return {
    tps,
    databaseCpuMicros,
    failure: sampling === null ? null : `the CPU sampling failed: ${sampling}`,
  };
}

// ---------------------------------------------------------------------------------------------
// Scenario 1: steady purchases

interface Round {
  target: string;
  purchases: Purchase[];
  seconds: number;
  serverCpuSeconds: number;
  workerCpuSeconds: number;
  databaseCpu: DatabaseCpu;
  /** Transactions in the database during the round and the statistics flush after it (PostgreSQL). */
  transactions: number;
  /** Round trips of the server and of the worker during the round (their own counters). */
  api: Counts;
  worker: Counts;
  /** The statistics flush after the round (PostgreSQL): what was still done (the worker catching up, idle loops). */
  flush: Flush | null;
  /** The processes' RSS right after the round (a soak: many rounds). */
  rss?: Rss;
  /** What the readers read while the buyers ran (--readers), else null. */
  reads: Reads | null;
  /** Where the database's backends were during the round (PostgreSQL, not --no-waits), else null. */
  waits: Waits | null;
}

/** CPU and round trips of the processes and the database in the 11 s after a round. */
interface Flush {
  serverCpuSeconds: number;
  workerCpuSeconds: number;
  databaseCpuSeconds: number;
  api: Counts;
  worker: Counts;
}

async function buyFor(
  pool: Pool,
  target: Target,
  buyers: number,
  seconds: number,
  pollMs: number,
): Promise<Purchase[]> {
  const deadline = performance.now() + seconds * 1000;
  const purchases: Purchase[] = [];
  await Promise.all(
    Array.from({ length: buyers }, async (_, buyer) => {
      while (performance.now() < deadline) {
        const made = await purchase(pool, target, pollMs, buyer);
        purchases.push(made);
        if (!made.ok) await sleep(50);
        if (!alive(target.server.child)) throw new Error(`the server died:\n${target.server.tail.text()}`);
        if (target.worker && !alive(target.worker.child))
          throw new Error(`the worker died:\n${target.worker.tail.text()}`);
      }
    }),
  );
  return purchases;
}

async function steadyRound(target: Target, options: Options): Promise<Round> {
  const pool = newPool(target.server.url, options.buyers);
  // The readers' own connections: their requests do not queue behind the buyers'.
  const readerPool = options.readers > 0 ? newPool(target.server.url, options.readers) : null;
  const buyingFor = (seconds: number) =>
    withReaders(readerPool, target, options.readers, () =>
      buyFor(pool, target, options.buyers, seconds, options.pollMs),
    );
  try {
    if (options.warmup > 0) await buyingFor(options.warmup);
    const withTransactions = target.databaseUrl !== null;
    if (withTransactions) await sleep(STATS_FLUSH_MS);
    const before = await read(target, withTransactions);
    // Its connection opens before the round starts and closes before the next reading (its backend's
    // CPU is not the round's).
    const sampling = await sampleWaits(target, options.waits);
    const started = performance.now();
    const { result: purchases, reads } = await buyingFor(options.duration).finally(() => sampling?.stop());
    const ended = performance.now();
    const waits = sampling === null ? null : await sampling.counted;
    const middle = await read(target, false);
    let transactions = Number.NaN;
    let flush: Flush | null = null;
    if (withTransactions) {
      await sleep(STATS_FLUSH_MS);
      const late = await read(target, true);
      transactions = late.transactions - before.transactions;
      flush = {
        serverCpuSeconds: late.serverCpu - middle.serverCpu,
        workerCpuSeconds: late.workerCpu - middle.workerCpu,
        databaseCpuSeconds: databaseCpu(middle, late).total,
        api: countsBetween(middle.api, late.api),
        worker: countsBetween(middle.worker, late.worker),
      };
    }
    return {
      target: target.label,
      purchases,
      seconds: (ended - started) / 1000,
      serverCpuSeconds: middle.serverCpu - before.serverCpu,
      workerCpuSeconds: middle.workerCpu - before.workerCpu,
      databaseCpu: databaseCpu(before, middle),
      transactions,
      api: countsBetween(before.api, middle.api),
      worker: countsBetween(before.worker, middle.worker),
      flush,
      reads,
      waits,
    };
  } finally {
    await closePool(pool);
    if (readerPool !== null) await closePool(readerPool);
  }
}

// ---------------------------------------------------------------------------------------------
// Scenario 2: the hot-variant race

interface Race {
  target: string;
  buyers: number;
  units: number;
  /** Cart creation, all buyers at once: response times. */
  cartMs: Float64Array;
  cartFailures: Record<string, number>;
  /** Every checkout's response time. */
  checkoutMs: Float64Array;
  orders: number;
  insufficient: number;
  otherFailures: Record<string, number>;
  /** Winners: checkout sent → order read back paid. */
  purchaseMs: Float64Array;
  paid: number;
  payFailures: Record<string, number>;
  onHand: number;
  reserved: number;
  oversoldOrders: number;
  serverCpuSeconds: number;
  /** NaN without a separate worker. */
  workerCpuSeconds: number;
  databaseCpuSeconds: number;
}

function tally(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

async function race(target: Target, options: Options): Promise<Race> {
  const admin = newPool(target.server.url, 8);
  const product = await expectAnswer(
    call(admin, 'POST', '/admin/v1/products', target.admin, {
      title: 'Race product',
      status: 'active',
      variants: [{ label: 'Last units', priceAmount: 2500, onHand: options.raceUnits }],
    }),
    201,
    'POST /admin/v1/products',
  );
  const productId = stringAt(product, 'id');
  const variants = field(product, 'variants');
  const variantId = Array.isArray(variants) ? stringAt(variants[0], 'id') : '';

  const buyers = options.raceBuyers;
  const pool = newPool(target.server.url, buyers);
  const before = await read(target, false);
  // Every buyer puts the variant in a cart at the same moment (this also opens the connections)…
  const cartIds: (string | null)[] = Array.from({ length: buyers }, () => null);
  const cartMs: number[] = [];
  const cartFailures: Record<string, number> = {};
  await Promise.all(
    cartIds.map(async (_, index) => {
      const cart = await call(pool, 'POST', '/storefront/v1/carts', clientOf(target, index), {
        items: [{ variantId, quantity: 1 }],
      });
      cartMs.push(cart.ms);
      if (cart.status === 201) cartIds[index] = stringAt(cart.body, 'id');
      else tally(cartFailures, `cart ${cart.status}`);
    }),
  );
  // …then everyone checks out at once; the winners pay and wait for `paid`.
  const checkoutMs: number[] = [];
  const purchaseMs: number[] = [];
  const otherFailures: Record<string, number> = {};
  const payFailures: Record<string, number> = {};
  const winners: string[] = [];
  let insufficient = 0;
  await Promise.all(
    cartIds.map(async (cartId, index) => {
      if (cartId === null) return;
      const started = performance.now();
      const checkout = await call(
        pool,
        'POST',
        '/storefront/v1/checkout',
        { ...clientOf(target, index), 'idempotency-key': randomUUID() },
        { cartId, email: `racer-${index}@example.com` },
      );
      checkoutMs.push(checkout.ms);
      if (checkout.status === 409 && field(checkout.body, 'title') === 'insufficient_stock') {
        insufficient += 1;
        return;
      }
      if (checkout.status !== 201) {
        tally(
          otherFailures,
          `checkout ${checkout.status}${checkout.status === 409 ? ` ${String(field(checkout.body, 'title'))}` : ''}`,
        );
        return;
      }
      winners.push(stringAt(checkout.body, 'order', 'id'));
      const paid = await payAndWait(pool, clientOf(target, index), checkout.body, options.pollMs, {});
      if (paid.ok) purchaseMs.push(performance.now() - started);
      else tally(payFailures, paid.failure ?? '?');
    }),
  );
  const after = await read(target, false);
  await closePool(pool);

  // The stock and the orders, as staff see them.
  const stock = await expectAnswer(
    call(admin, 'GET', `/admin/v1/products/${productId}`, target.admin),
    200,
    'GET /admin/v1/products/:id',
  );
  const variant = (field(stock, 'variants') as unknown[] | undefined)?.[0];
  let oversoldOrders = 0;
  await inParallel(winners.length, 8, async (index) => {
    const order = await expectAnswer(
      call(admin, 'GET', `/admin/v1/orders/${winners[index]}`, target.admin),
      200,
      'GET /admin/v1/orders/:id',
    );
    if (field(order, 'oversold') === true) oversoldOrders += 1;
  });
  await closePool(admin);
  return {
    target: target.label,
    buyers,
    units: options.raceUnits,
    cartMs: sortedOf(cartMs),
    cartFailures,
    checkoutMs: sortedOf(checkoutMs),
    orders: winners.length,
    insufficient,
    otherFailures,
    purchaseMs: sortedOf(purchaseMs),
    paid: purchaseMs.length,
    payFailures,
    onHand: Number(field(variant, 'onHand')),
    reserved: Number(field(variant, 'reserved')),
    oversoldOrders,
    serverCpuSeconds: after.serverCpu - before.serverCpu,
    workerCpuSeconds: after.workerCpu - before.workerCpu,
    databaseCpuSeconds: databaseCpu(before, after).total,
  };
}

function raceHolds(r: Race): boolean {
  const expectedOrders = Math.min(r.units, r.buyers);
  return (
    r.orders === expectedOrders &&
    r.insufficient === r.buyers - expectedOrders &&
    Object.keys(r.otherFailures).length === 0 &&
    Object.keys(r.cartFailures).length === 0 &&
    r.paid === r.orders &&
    r.onHand === r.units - r.paid &&
    r.reserved === 0 &&
    r.oversoldOrders === 0 &&
    percentile(r.checkoutMs, 99) < 2000
  );
}

// ---------------------------------------------------------------------------------------------
// Report

function sortedOf(values: number[]): Float64Array {
  return Float64Array.from(values).sort();
}

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
const one = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
const two = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–');
const pair = (sorted: Float64Array): string =>
  `${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 99))}`;
const counts = (record: Record<string, number>): string =>
  Object.entries(record)
    .map(([key, n]) => `${key}: ${int(n)}`)
    .join(', ') || '0';

interface Steady {
  target: Target;
  rounds: Round[];
  purchasesPerSecond: number;
  ok: Purchase[];
  failures: Record<string, number>;
  serverCpuMicros: number;
  /** NaN without a separate worker. */
  workerCpuMicros: number;
  /** All the database's backends (PostgreSQL). */
  databaseCpuMicros: number;
  /** The database CPU by whose backends it is. */
  databaseCpuMicrosOf: Record<Role, number>;
  /** Commits and rollbacks in the database (pg_stat_database). */
  transactionsPerPurchase: number;
  /** Statements and transactions per purchase as each process counts them. */
  api: Counts;
  worker: Counts;
  /** The statistics flushes after the rounds, per purchase of the rounds (PostgreSQL), else null. */
  flush: FlushPerPurchase | null;
  /** --readers: the median over the rounds of the reads/s (NaN without readers). */
  readsPerSecond: number;
  /** --readers: failed reads of all the rounds, by kind and status. */
  readFailures: Record<string, number>;
  /** Where the database's backends were, over all the rounds (PostgreSQL, not --no-waits), else null. */
  waits: Waits | null;
}

/** Flush, per purchase of the rounds: CPU in µs, round trips. */
interface FlushPerPurchase {
  serverCpuMicros: number;
  workerCpuMicros: number;
  databaseCpuMicros: number;
  api: Counts;
  worker: Counts;
}

const readsPerSecondOf = (reads: Reads): number =>
  reads.seconds > 0 ? reads.ok / reads.seconds : Number.NaN;

function combine(target: Target, rounds: Round[]): Steady {
  const all = rounds.flatMap((r) => r.purchases);
  const ok = all.filter((p) => p.ok);
  const failures: Record<string, number> = {};
  for (const p of all) if (!p.ok) tally(failures, p.failure ?? '?');
  const readFailures: Record<string, number> = {};
  for (const r of rounds)
    for (const [what, n] of Object.entries(r.reads?.failures ?? {}))
      readFailures[what] = (readFailures[what] ?? 0) + n;
  const okCount = ok.length;
  const sum = (pick: (r: Round) => number): number => rounds.reduce((a, r) => a + pick(r), 0);
  const per = (pick: (r: Round) => number, scale = 1): number =>
    okCount > 0 ? (sum(pick) * scale) / okCount : Number.NaN;
  return {
    target,
    rounds,
    purchasesPerSecond: median(rounds.map((r) => r.purchases.filter((p) => p.ok).length / r.seconds)),
    ok,
    failures,
    readsPerSecond: median(rounds.flatMap((r) => (r.reads ? [readsPerSecondOf(r.reads)] : []))),
    readFailures,
    waits: sumWaits(rounds.map((r) => r.waits)),
    serverCpuMicros: per((r) => r.serverCpuSeconds, 1e6),
    workerCpuMicros: per((r) => r.workerCpuSeconds, 1e6),
    databaseCpuMicros: per((r) => r.databaseCpu.total, 1e6),
    databaseCpuMicrosOf: {
      api: per((r) => r.databaseCpu.api, 1e6),
      worker: per((r) => r.databaseCpu.worker, 1e6),
      other: per((r) => r.databaseCpu.other, 1e6),
    },
    transactionsPerPurchase: per((r) => r.transactions),
    api: { statements: per((r) => r.api.statements), transactions: per((r) => r.api.transactions) },
    worker: { statements: per((r) => r.worker.statements), transactions: per((r) => r.worker.transactions) },
    flush: rounds.every((r) => r.flush !== null)
      ? {
          serverCpuMicros: per((r) => r.flush?.serverCpuSeconds ?? Number.NaN, 1e6),
          workerCpuMicros: per((r) => r.flush?.workerCpuSeconds ?? Number.NaN, 1e6),
          databaseCpuMicros: per((r) => r.flush?.databaseCpuSeconds ?? Number.NaN, 1e6),
          api: {
            statements: per((r) => r.flush?.api.statements ?? Number.NaN),
            transactions: per((r) => r.flush?.api.transactions ?? Number.NaN),
          },
          worker: {
            statements: per((r) => r.flush?.worker.statements ?? Number.NaN),
            transactions: per((r) => r.flush?.worker.transactions ?? Number.NaN),
          },
        }
      : null,
  };
}

interface Report {
  options: Options;
  machine: Machine;
  endLoad: string;
  steady: Steady[];
  races: Race[];
  pool: string;
  /** The floor's runs before the first round and after the last (empty: no floor). */
  floor: FloorRun[];
  /** Clients and seconds of each floor run. */
  floorShape: { clients: number; seconds: number };
}

/** What the floor script says one purchase is ("4 transactions, 13 statements" in its header). */
function floorShapeOf(script: string | null): { statements: string; transactions: string } {
  try {
    const match = /(\d+) transactions, (\d+) statements/.exec(readFileSync(script ?? '', 'utf8'));
    if (match) return { transactions: match[1]!, statements: match[2]! };
  } catch {
    // unreadable: unknown
  }
  return { statements: '–', transactions: '–' };
}

/** The mean of the finite values, NaN when there are none. */
function meanOf(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length > 0 ? finite.reduce((a, v) => a + v, 0) / finite.length : Number.NaN;
}

const mib = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : '–');
const rssPair = (idle: number, after: number | undefined): string =>
  Number.isFinite(idle) || Number.isFinite(after ?? Number.NaN)
    ? `${mib(idle)} → ${mib(after ?? Number.NaN)}`
    : '–';
const sumOf = (a: number, b: number): number => a + b;

/** The rows of the "per purchase, by process" table for one server. */
function processRows(s: Steady, server: string, kind: 'PostgreSQL' | 'PGlite'): string[] {
  const t = s.target;
  const after = t.rssAfter;
  if (t.worker === null) {
    const what =
      kind === 'PGlite'
        ? 'server (API, worker loops and the embedded database: one process)'
        : 'server (API and worker loops: `storefront serve`)';
    return [
      `| ${server} | ${what} | ${int(s.serverCpuMicros)} | ${int(s.databaseCpuMicros)} | ${one(s.api.statements)} | ${one(
        s.api.transactions,
      )} | ${rssPair(t.rssIdle.api, after?.api)} |`,
    ];
  }
  return [
    `| ${server} | API (\`storefront serve\`) | ${int(s.serverCpuMicros)} | ${int(s.databaseCpuMicrosOf.api)} | ${one(
      s.api.statements,
    )} | ${one(s.api.transactions)} | ${rssPair(t.rssIdle.api, after?.api)} |`,
    `| ${server} | worker (\`storefront worker\`) | ${int(s.workerCpuMicros)} | ${int(s.databaseCpuMicrosOf.worker)} | ${one(
      s.worker.statements,
    )} | ${one(s.worker.transactions)} | ${rssPair(t.rssIdle.worker, after?.worker)} |`,
    `| ${server} | both${Number.isFinite(s.databaseCpuMicrosOf.other) && s.databaseCpuMicrosOf.other > 0 ? ` (database: ${int(s.databaseCpuMicrosOf.other)} µs of other backends too)` : ''} | ${int(
      sumOf(s.serverCpuMicros, s.workerCpuMicros),
    )} | ${int(s.databaseCpuMicros)} | ${one(sumOf(s.api.statements, s.worker.statements))} | ${one(
      sumOf(s.api.transactions, s.worker.transactions),
    )} | ${rssPair(t.rssIdle.api + t.rssIdle.worker, after ? after.api + after.worker : Number.NaN)} |`,
  ];
}

/** Rows of the wait table: at most this many, the largest. */
const WAIT_ROWS = 10;

/**
 * The wait table of one server: for each process and class, the backends in it on average per
 * sample and their share of the process's backends, the largest first; then a note saying what
 * they mean.
 */
function waitLines(s: Steady, server: string, compared: boolean): string[] {
  const w = s.waits;
  if (w === null) return [];
  const processOf: Record<Role, string> = {
    api: s.target.worker ? 'API (`storefront serve`)' : 'server (`storefront serve`)',
    worker: 'worker (`storefront worker`)',
    other: 'other (not the service’s)',
  };
  const rows: { role: Role; what: string; mean: number; share: number }[] = [];
  for (const role of ['api', 'worker', 'other'] as const) {
    const all = Object.values(w.seen[role]).reduce((a, n) => a + n, 0);
    for (const [what, n] of Object.entries(w.seen[role]))
      rows.push({ role, what, mean: w.samples > 0 ? n / w.samples : Number.NaN, share: n / all });
  }
  rows.sort((a, b) => b.mean - a.mean || a.what.localeCompare(b.what));
  const onLocks = backendsIn(w, isLockWait);
  const inside = backendsIn(w, (what) => /^(LWLock|IO|BufferPin)\//.test(what.replace(WAITING, '')));
  const lockKinds = [
    ...new Set(rows.filter((r) => isLockWait(r.what)).map((r) => r.what.slice(WAITING.length))),
  ];
  return [
    `Where the PostgreSQL client backends of the run’s database were during the recorded rounds${compared ? ` (${server})` : ''}: ` +
      `${int(w.samples)} samples of \`pg_stat_activity\` (every ${WAIT_SAMPLE_MS} ms, on a connection of the benchmark’s own, not counted), ` +
      `each backend in its state, by the process it serves (\`application_name\`); backends = the mean number in that state per sample` +
      `${rows.length > WAIT_ROWS ? `; the ${WAIT_ROWS} largest of ${rows.length}` : ''}.`,
    '',
    '| Process | State / wait | Backends | Share of the process’s backends |',
    '| --- | --- | ---: | ---: |',
    ...rows
      .slice(0, WAIT_ROWS)
      .map((r) => `| ${processOf[r.role]} | ${r.what} | ${two(r.mean)} | ${(r.share * 100).toFixed(0)} % |`),
    '',
    `${compared ? `${server}: on` : 'On'} average ${two(onLocks)} backends were waiting on a lock held by another transaction ` +
      `(Lock/*${lockKinds.length > 0 ? `: ${lockKinds.join(', ')}` : ''}): the serialisation points; ` +
      `${two(inside)} waited inside PostgreSQL (LWLock/*, IO/*: WAL flushes, buffers), ` +
      `${two(backendsIn(w, (what) => what === 'active, on CPU'))} ran on CPU, ` +
      `${two(backendsIn(w, (what) => what === 'idle in transaction'))} were idle in transaction (waiting for the API or the worker between statements of a transaction) ` +
      `and ${two(backendsIn(w, (what) => what === 'idle'))} idle (the pools’ spare connections).` +
      (w.failure !== null ? ` The sampling failed before a round’s end: ${w.failure}.` : ''),
    '',
  ];
}

function section(report: Report): string {
  const { options, machine: m, steady, races } = report;
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const kind = options.databaseUrl ? 'PostgreSQL' : 'PGlite';
  const compared = steady.length > 1;
  const name = (t: Target): string => (compared ? `${t.label} (${t.commit})` : t.commit);
  const separate = steady.some((s) => s.target.worker !== null);
  const floorTps = meanOf(report.floor.map((f) => f.tps));
  const floorCpu = meanOf(report.floor.map((f) => f.databaseCpuMicros));
  const withFloor = report.floor.length > 0;
  const withReaders = options.readers > 0;
  const times = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');

  const steadyRows = steady.map((s) => {
    const totals = sortedOf(s.ok.map((p) => p.total));
    const step = (which: Step): string => pair(sortedOf(s.ok.map((p) => p.steps[which] ?? Number.NaN)));
    const polls = s.ok.reduce((a, p) => a + p.polls, 0) / Math.max(1, s.ok.length);
    return `| ${name(s.target)} | ${int(s.ok.length)} | ${int(s.purchasesPerSecond)} | ${withFloor ? `${two(s.purchasesPerSecond / floorTps)} | ` : ''}${pair(totals)} | ${stepsOf(options.shipping).map(step).join(' | ')} | ${one(
      polls,
    )} | ${counts(s.failures)} | ${withReaders ? `${int(s.readsPerSecond)} | ${counts(s.readFailures)} | ` : ''}${int(s.serverCpuMicros)} | ${int(s.databaseCpuMicros)} | ${one(s.transactionsPerPurchase)} |`;
  });
  const raceRows = races.map((r) => {
    const verdict = raceHolds(r) ? 'holds' : '**fails**';
    return `| ${compared ? r.target : 'race'} | ${int(r.buyers)} | ${int(r.units)} | ${int(r.orders)} | ${int(r.insufficient)} | ${counts(
      {
        ...r.cartFailures,
        ...r.otherFailures,
        ...r.payFailures,
      },
    )} | ${pair(r.cartMs)} | ${pair(r.checkoutMs)} | ${pair(r.purchaseMs)} | ${int(r.paid)} | ${int(r.onHand)} / ${int(
      r.reserved,
    )} | ${int(r.oversoldOrders)} | ${two(r.serverCpuSeconds)} | ${separate ? `${two(r.workerCpuSeconds)} | ` : ''}${two(r.databaseCpuSeconds)} | ${verdict} |`;
  });

  const notes: string[] = [];
  if (compared) {
    const [a, b] = steady;
    if (a && b) {
      notes.push(
        `- ${a.target.label} vs ${b.target.label}: ${(a.purchasesPerSecond / b.purchasesPerSecond).toFixed(2)}× the purchases/s, ` +
          `${(a.serverCpuMicros / b.serverCpuMicros).toFixed(2)}× the server CPU per purchase` +
          (Number.isFinite(a.workerCpuMicros) && Number.isFinite(b.workerCpuMicros)
            ? `, ${(a.workerCpuMicros / b.workerCpuMicros).toFixed(2)}× the worker CPU per purchase`
            : '') +
          (Number.isFinite(a.databaseCpuMicros)
            ? `, ${(a.databaseCpuMicros / b.databaseCpuMicros).toFixed(2)}× the database CPU per purchase`
            : '') +
          '.',
      );
    }
  }
  if (options.rounds > 1 || compared) {
    notes.push(
      `- Purchases/s per round: ${steady
        .map(
          (s) =>
            `${compared ? `${s.target.label} ` : ''}${s.rounds.map((r) => int(r.purchases.filter((p) => p.ok).length / r.seconds)).join(' / ')}`,
        )
        .join('; ')}.`,
    );
  }
  if (withReaders && (options.rounds > 1 || compared)) {
    notes.push(
      `- Reads/s per round: ${steady
        .map(
          (s) =>
            `${compared ? `${s.target.label} ` : ''}${s.rounds.map((r) => int(r.reads ? readsPerSecondOf(r.reads) : Number.NaN)).join(' / ')}`,
        )
        .join('; ')}.`,
    );
  }
  if (options.rounds > 2) {
    // A soak: memory after each round, and the last against the fifth minute's.
    for (const s of steady) {
      const rss = s.rounds.map((r) =>
        r.rss ? r.rss.api + (Number.isNaN(r.rss.worker) ? 0 : r.rss.worker) : Number.NaN,
      );
      const perRound =
        options.warmup + options.duration + (s.rounds[0]?.flush ? (2 * STATS_FLUSH_MS) / 1000 : 0);
      const fifth = rss[Math.min(rss.length - 1, Math.max(0, Math.ceil(300 / perRound) - 1))] ?? Number.NaN;
      notes.push(
        `- ${s.target.label}: RSS after each round (MiB${s.rounds[0]?.rss && !Number.isNaN(s.rounds[0].rss.worker) ? ', API + worker' : ''}): ${rss.map(int).join(' / ')}; the last is ${(rss.at(-1)! / fifth).toFixed(2)}× the one at about minute five.`,
      );
    }
  }
  for (const s of steady) {
    const f = s.flush;
    if (f === null || !Number.isFinite(f.api.statements)) continue;
    const counted =
      s.api.transactions +
      f.api.transactions +
      (s.target.worker ? s.worker.transactions + f.worker.transactions : 0);
    notes.push(
      `- ${compared ? `${s.target.label}: ` : ''}in the ${STATS_FLUSH_MS / 1000} s after each round (the wait for PostgreSQL's statistics: ` +
        `the worker catching up, idle loops), per purchase of the round: ${s.target.worker ? 'API' : 'server'} ${int(f.serverCpuMicros)} µs CPU, ` +
        `${one(f.api.statements)} statements, ${one(f.api.transactions)} transactions` +
        (s.target.worker
          ? `; worker ${int(f.workerCpuMicros)} µs, ${one(f.worker.statements)} statements, ${one(f.worker.transactions)} transactions`
          : '') +
        `; database ${int(f.databaseCpuMicros)} µs. Over the round and those seconds the processes counted ` +
        `${one(counted)} transactions per purchase, pg_stat_database ${one(s.transactionsPerPurchase)}.`,
    );
  }
  if (withFloor) {
    const runs = report.floor;
    notes.push(
      `- The database's floor (\`${path.basename(path.dirname(options.floor ?? ''))}/${path.basename(options.floor ?? '')}\`: pgbench, the least SQL of one purchase, ` +
        `${report.floorShape.clients} clients, ${report.floorShape.seconds} s, on a database of its own, before the first round and after the last): ` +
        `${runs.map((f) => `${int(f.tps)} tps`).join(' / ')}, median ${int(median(runs.map((f) => f.tps)))}; ` +
        `PostgreSQL CPU ${runs.map((f) => `${int(f.databaseCpuMicros)}`).join(' / ')} µs per purchase. ` +
        steady
          .map(
            (s) =>
              `${compared ? `${s.target.label}: ` : 'The service: '}${times(s.purchasesPerSecond / floorTps)} the floor's purchases/s, ` +
              `${times(s.databaseCpuMicros / floorCpu)} its database CPU per purchase`,
          )
          .join('; ') +
        '.',
    );
    for (const [index, f] of runs.entries()) {
      if (f.failure !== null)
        notes.push(`- The floor's ${index === 0 ? 'first' : 'second'} run: ${f.failure}`);
    }
  }
  for (const s of steady) {
    for (const [who, tail] of [
      ['server', s.target.server.tail],
      ['worker', s.target.worker?.tail],
    ] as const) {
      if (tail === undefined || tail.problems === 0) continue;
      notes.push(
        `- ${compared ? `${s.target.label}: ` : ''}the ${who} logged ${int(tail.problems)} warnings or errors; the first: ${quotedProblem(tail.firstProblem)}`,
      );
    }
  }
  const databases = steady
    .map((s) => `${compared ? `${s.target.label}: ` : ''}${s.target.database}`)
    .join('; ');

  return [
    `## ${stamp}: purchases, ${kind}`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memory} memory, ${m.os}; load average at start ${m.load}, at the end ${report.endLoad}`,
    `- Node ${m.node}, commit ${compared ? steady.map((s) => `${s.target.label} ${s.target.commit}`).join(', ') : m.commit}`,
    `- Database: ${databases}${options.databaseUrl ? `; DATABASE_POOL_SIZE ${report.pool}` : ''}`,
    ...(Object.keys(options.compareEnv).length > 0
      ? [
          `- The compared server's own environment: ${Object.entries(options.compareEnv)
            .map(([name, value]) => `\`${name}=${value}\``)
            .join(', ')}`,
        ]
      : []),
    `- Steady: ${options.buyers} buyers, each in a loop: \`POST /storefront/v1/carts\` (one random variant of ` +
      `${int(options.products * 2)})${options.shipping ? ' → `PUT …/shipping-address` (a US address) → `GET …/shipping-options` → `PUT …/shipping-method` (the first)' : ''} → \`POST /storefront/v1/checkout\` (Idempotency-Key) → \`POST /sandbox/v1/payments/:ref/confirm\` ` +
      `(pm_card_visa) → \`GET /storefront/v1/orders/:id\` every ${options.pollMs} ms until \`paid\`; ${options.duration} s ` +
      `after ${options.warmup} s of warm-up${options.rounds > 1 || compared ? `, ${options.rounds} round${options.rounds === 1 ? '' : 's'}${compared ? ' per server, alternating' : ''}, median purchases/s` : ''}; ` +
      `client and server on the same machine; rate limits out of reach (bench/lib/processes.ts UNLIMITED_RATES) (REDIS_URL ${process.env.REDIS_URL ? 'set' : 'unset'})`,
    ...(withReaders
      ? [
          `- Readers: ${options.readers} shoppers browsing while the buyers run (warm-up and recorded seconds), each its own ` +
            'client address and connection, each in a loop, one read at random of: `GET /storefront/v1/products?limit=20`, ' +
            '`GET /storefront/v1/products/:id` (a random product), `GET /storefront/v1/products?q=…&limit=20` (a word of a random ' +
            'product’s title) and the same with `minPrice`/`maxPrice` around one of its prices or `available=true`; ' +
            'Reads/s: answered 2xx or 304 over the readers’ time, the median of the rounds; a read failure is any other status ' +
            'or a connection error. The CPU, statements and transactions per purchase include what the reads cost',
        ]
      : []),
    `- Worker loops (webhook relay, mail worker, …): ${
      separate
        ? 'in a `storefront worker` process beside each server (the server has `RUN_WORKERS=false`), so Server CPU is the API alone'
        : kind === 'PGlite'
          ? 'in the server process (PGlite: one process)'
          : 'in the server process (`--workers inline`)'
    }${kind === 'PostgreSQL' ? '; each process serves /metrics on a loopback METRICS_PORT of its own (its round-trip counters)' : ''}`,
    '',
    `| Server | Purchases | Purchases/s | ${withFloor ? '× floor | ' : ''}Purchase p50 / p99 ms | Cart p50 / p99 | ${options.shipping ? 'Shipping steps p50 / p99 | ' : ''}Checkout p50 / p99 | Confirm p50 / p99 | Confirm → paid p50 / p99 | Order reads / purchase | Failures | ${withReaders ? 'Reads/s | Read failures | ' : ''}Server CPU µs / purchase | Database CPU µs / purchase | Transactions / purchase |`,
    `| --- | ---: | ---: | ${withFloor ? '---: | ' : ''}---: | ---: | ${options.shipping ? '---: | ' : ''}---: | ---: | ---: | ---: | --- | ${withReaders ? '---: | --- | ' : ''}---: | ---: | ---: |`,
    ...steadyRows,
    '',
    kind === 'PostgreSQL'
      ? 'Per purchase, by process: the CPU of each process and of the PostgreSQL backends it connects ' +
        '(by `application_name`), the statements and transactions it sends (its `storefront_db_statements_total` ' +
        'and `storefront_db_transactions_total`, read from its /metrics at the start and the end of each recorded round), ' +
        'and its RSS (VmRSS, MiB) idle after start-up and seeding → after the last round. ' +
        `“Transactions / purchase” above is the database’s own count (pg_stat_database), over the round and the ${STATS_FLUSH_MS / 1000} s after it.`
      : 'Per purchase, by process: the CPU of the one process (the embedded database included) and its RSS ' +
        '(VmRSS, MiB) idle after start-up and seeding → after the last round; PGlite has no round-trip counters.',
    '',
    '| Server | Process | CPU µs / purchase | Database CPU µs / purchase | Statements / purchase | Transactions / purchase | RSS idle → after MiB |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...steady.flatMap((s) => processRows(s, name(s.target), kind)),
    ...(withFloor
      ? [
          `| floor | pgbench (no service; statements and transactions as its script says, BEGIN and COMMIT not counted) | – | ${int(
            floorCpu,
          )} | ${floorShapeOf(options.floor).statements} | ${floorShapeOf(options.floor).transactions} | – |`,
        ]
      : []),
    '',
    ...steady.flatMap((s) => waitLines(s, name(s.target), compared)),
    ...(races.length > 0
      ? [
          `Hot-variant race: one variant with ${int(options.raceUnits)} units; ${int(options.raceBuyers)} buyers put it in a cart at the same moment, ` +
            'then all check out at once; the winners confirm and read their order until `paid`. It holds when exactly ' +
            'min(units, buyers) checkouts make an order, every other one is 409 `insufficient_stock`, every order is paid, ' +
            'the variant ends with on hand = units − paid and nothing reserved, no order is `oversold`, and the checkout p99 is under 2 s.',
          '',
          `| Server | Buyers | Units | Orders (201) | 409 insufficient_stock | Other failures | Cart p50 / p99 ms | Checkout p50 / p99 ms | Winner checkout → paid p50 / p99 ms | Paid | On hand / reserved after | Oversold orders | Server CPU s | ${separate ? 'Worker CPU s | ' : ''}Database CPU s | Verdict |`,
          `| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ${separate ? '---: | ' : ''}---: | --- |`,
          ...raceRows,
          '',
        ]
      : []),
    ...notes,
    ...(notes.length > 0 ? [''] : []),
  ].join('\n');
}

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:purchase');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const host = machine();

  const targets = [await setUpTarget('this checkout', { root }, options, log)];
  if (options.compare !== null)
    targets.push(await setUpTarget('compared', { root: options.compare }, options, log, options.compareEnv));

  for (const t of targets) {
    log(
      `bench: ${t.label}: RSS idle: server ${mib(t.rssIdle.api)} MiB${t.worker ? `, worker ${mib(t.rssIdle.worker)} MiB` : ''}`,
    );
  }

  const floorShape = { clients: options.buyers, seconds: Math.max(10, options.duration) };
  const floor: FloorRun[] = [];
  const runTheFloor = async (when: string): Promise<void> => {
    if (options.floor === null || options.databaseUrl === null) return;
    log(
      `bench: the database's floor ${when}: bash ${options.floor} ${floorShape.clients} ${floorShape.seconds}…`,
    );
    const result = await runFloor(options.floor, floorShape.clients, floorShape.seconds, options.databaseUrl);
    log(
      result.failure !== null && !Number.isFinite(result.tps)
        ? `       the floor failed: ${result.failure}`
        : `       ${int(result.tps)} tps, database CPU ${int(result.databaseCpuMicros)} µs/purchase`,
    );
    floor.push(result);
  };
  await runTheFloor('before the first round');

  const rounds = new Map<string, Round[]>(targets.map((t) => [t.label, []]));
  for (let round = 1; round <= options.rounds; round += 1) {
    const order = round % 2 === 1 ? targets : [...targets].reverse();
    for (const target of order) {
      const of = options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : '';
      log(
        `bench: ${target.label}: ${options.buyers} buyers${options.readers > 0 ? ` and ${options.readers} readers` : ''} for ${options.duration} s${of}…`,
      );
      const measured = await steadyRound(target, options);
      measured.rss = rssOf(target);
      if (round === options.rounds) target.rssAfter = measured.rss;
      rounds.get(target.label)?.push(measured);
      const ok = measured.purchases.filter((p) => p.ok);
      const totals = sortedOf(ok.map((p) => p.total));
      const each = (n: number): number => n / Math.max(1, ok.length);
      log(
        `       ${int(ok.length / measured.seconds)} purchases/s, p50 ${ms(percentile(totals, 50))} ms, p99 ` +
          `${ms(percentile(totals, 99))} ms, ${measured.purchases.length - ok.length} failed, ` +
          (measured.reads
            ? `${int(readsPerSecondOf(measured.reads))} reads/s, ${failedReads(measured.reads)} reads failed` +
              (failedReads(measured.reads) > 0 ? ` (${counts(measured.reads.failures)})` : '') +
              ', '
            : '') +
          'server CPU ' +
          `${int(each(measured.serverCpuSeconds * 1e6))} µs/purchase` +
          (target.worker ? `, worker CPU ${int(each(measured.workerCpuSeconds * 1e6))} µs` : '') +
          (target.databaseUrl !== null
            ? `, database CPU ${int(each(measured.databaseCpu.total * 1e6))} µs, statements ` +
              `${one(each(measured.api.statements))}${target.worker ? ` + ${one(each(measured.worker.statements))}` : ''}`
            : '') +
          (measured.waits
            ? `, backends on locks ${two(backendsIn(measured.waits, isLockWait))}, idle in transaction ` +
              `${two(backendsIn(measured.waits, (what) => what === 'idle in transaction'))}`
            : '') +
          `, RSS ${int(measured.rss.api)}${target.worker ? ` + ${int(measured.rss.worker)}` : ''} MiB`,
      );
    }
  }
  for (const t of targets) {
    log(
      `bench: ${t.label}: RSS after the last round: server ${mib(t.rssAfter?.api ?? Number.NaN)} MiB` +
        (t.worker ? `, worker ${mib(t.rssAfter?.worker ?? Number.NaN)} MiB` : ''),
    );
  }
  await runTheFloor('after the last round');
  const races: Race[] = [];
  if (options.race) {
    for (const target of targets) {
      log(`bench: ${target.label}: race of ${options.raceBuyers} buyers for ${options.raceUnits} units…`);
      const result = await race(target, options);
      log(
        `       ${result.orders} orders, ${result.insufficient} insufficient_stock, checkout p99 ${ms(percentile(result.checkoutMs, 99))} ms, ` +
          `stock after ${result.onHand}/${result.reserved}: ${raceHolds(result) ? 'holds' : 'FAILS'}`,
      );
      races.push(result);
    }
  }
  const text = section({
    options,
    machine: host,
    endLoad: loadAverage(),
    steady: targets.map((t) => combine(t, rounds.get(t.label) ?? [])),
    races,
    pool: process.env.DATABASE_POOL_SIZE?.trim() || '10 (default)',
    floor,
    floorShape,
  });
  await publish(text, options, log);
  if (races.some((r) => !raceHolds(r))) process.exitCode = 1;
}

await runBenchmark(HELP, parseOptions, main);
