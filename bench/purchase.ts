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
 * With `--compare DIR` a second server runs from another checkout (e.g. a worktree of main) with its
 * own database, and the rounds alternate between the two: a before/after in one run. It puts a
 * section with the machine, the date and the numbers on top of bench/RESULTS.md. See bench/README.md.
 *
 *   npm run bench:purchase -- [--buyers 50] [--duration 10] [--warmup 2] [--rounds 1] [--products 200]
 *                             [--poll-interval 25] [--race-buyers 1000] [--race-units 100] [--no-race]
 *                             [--compare DIR] [--db-prefix storefront_bench_purchase_]
 *                             [--output bench/RESULTS.md] [--no-write]
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import {
  alive,
  cli,
  commitOf,
  compareCheckout,
  cpuSecondsOf,
  createDatabase,
  freePort,
  isRecord,
  machine,
  onCleanup,
  percentile,
  positiveInteger,
  publish,
  root,
  runMain,
  serve,
  temporaryDirectory,
  UsageError,
  withClient,
  type Checkout,
  type Machine,
  type RunningServer,
  UNLIMITED_RATES,
} from './lib.ts';

/** A purchase whose order is not `paid` this long after the confirmation counts as failed. */
const PAID_TIMEOUT_MS = 30_000;
/** PostgreSQL flushes an idle backend's statistics at most this long after its last transaction. */
const STATS_FLUSH_MS = 11_000;

const HELP = `Usage: npm run bench:purchase -- [options]

  --buyers N          concurrent buyers in the steady scenario (default 50)
  --duration S        recorded seconds of the steady scenario per round (default 10)
  --warmup S          unrecorded seconds of purchases before each round (default 2; 0 disables)
  --rounds R          repeat the steady scenario R times; median purchases/s (default 1)
  --products N        products to seed (2 variants each; buyers pick a variant at random) (default 200)
  --poll-interval MS  wait between two reads of an order that is not paid yet (default 25)
  --race-buyers N     buyers in the hot-variant race (default 1000)
  --race-units N      units of the raced variant (default 100)
  --no-race           skip the race
  --shipping          each buyer also sets a US shipping address on the cart, reads its shipping
                      options and chooses the first (what a shop with shipping does, D39); the
                      store gets a United States zone with a flat and a weight-based method
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
`;

// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  buyers: number;
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
  compare: string | null;
  /** Extra environment of the compared server (e.g. another DATABASE_POOL_SIZE). */
  compareEnv: Record<string, string>;
  dbPrefix: string;
  output: string;
  write: boolean;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      buyers: { type: 'string', default: '50' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '1' },
      products: { type: 'string', default: '200' },
      'poll-interval': { type: 'string', default: '25' },
      'race-buyers': { type: 'string', default: '1000' },
      'race-units': { type: 'string', default: '100' },
      'no-race': { type: 'boolean', default: false },
      shipping: { type: 'boolean', default: false },
      compare: { type: 'string' },
      'compare-env': { type: 'string', multiple: true, default: [] },
      'db-prefix': { type: 'string', default: 'storefront_bench_purchase_' },
      output: { type: 'string', default: path.join(root, 'bench', 'RESULTS.md') },
      'no-write': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const compare = compareCheckout(values.compare);
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(values['db-prefix'])) {
    throw new UsageError('--db-prefix must be lower-case letters, digits and underscores (at most 41)');
  }
  const databaseUrl = process.env.DATABASE_URL?.trim() ? process.env.DATABASE_URL.trim() : null;
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
  const options: Options = {
    buyers: positiveInteger('buyers', values.buyers, 1, 5000),
    duration: positiveInteger('duration', values.duration, 1, 3600),
    warmup: positiveInteger('warmup', values.warmup, 0, 600),
    rounds: positiveInteger('rounds', values.rounds, 1, 100),
    products: positiveInteger('products', values.products, 1, 1_000_000),
    pollMs: positiveInteger('poll-interval', values['poll-interval'], 1, 60_000),
    raceBuyers: positiveInteger('race-buyers', values['race-buyers'], 1, 10_000),
    raceUnits: positiveInteger('race-units', values['race-units'], 1, 1_000_000),
    race: !values['no-race'],
    shipping: values.shipping,
    compare,
    compareEnv,
    dbPrefix: values['db-prefix'],
    output: path.resolve(values.output),
    write: !values['no-write'],
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

/** Runs `count` tasks with at most `concurrency` at once. */
async function inParallel(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
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
  /** The run's own database (PostgreSQL), else null. */
  databaseUrl: string | null;
  database: string;
  /** Whether purchases take the cart's shipping steps (--shipping). */
  shipping: boolean;
}

async function setUpTarget(
  label: string,
  checkout: Checkout,
  options: Options,
  log: (line: string) => void,
  extraEnv: Record<string, string> = {},
): Promise<Target> {
  const tempDir = temporaryDirectory('storefront-bench-purchase-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    DATA_DIR: tempDir,
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
    EMAIL_TRANSPORT: `file:${path.join(tempDir, 'mail')}`,
    PAYMENT_PROVIDER: 'sandbox',
    ...UNLIMITED_RATES,
    // Every buyer of the benchmark is one client address (D52 would refuse its sixth pending order).
    PENDING_ORDERS_PER_CLIENT: '1000000',
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

  const server = await serve(env, await freePort(), { checkout: checkout.root });
  log(
    `bench: ${label}: server pid ${server.pid} ready at ${server.url} in ${server.startupSeconds.toFixed(1)} s`,
  );
  const target: Target = {
    label,
    checkout,
    commit: commitOf(checkout.root),
    server,
    key: { 'x-publishable-key': key },
    admin: { authorization: `Bearer ${token}` },
    variantIds: [],
    databaseUrl,
    database,
    shipping: options.shipping,
  };
  target.variantIds = await listVariants(target);
  if (options.shipping) await addShippingZone(target);
  if (server.tail.problems > 0)
    log(`bench: ${label}: the server logged at start-up:\n${server.tail.text(10)}`);
  server.tail.problems = 0;
  server.tail.firstProblem = null;
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

/** Every variant of the seeded products (the product list, then each product's detail). */
async function listVariants(target: Target): Promise<string[]> {
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
    await inParallel(productIds.length, 8, async (index) => {
      const product = await expectAnswer(
        call(pool, 'GET', `/storefront/v1/products/${productIds[index]}`, target.key),
        200,
        'GET /products/:id',
      );
      const variants = field(product, 'variants');
      if (Array.isArray(variants)) for (const variant of variants) variantIds.push(stringAt(variant, 'id'));
    });
    if (variantIds.length === 0) throw new Error('the benchmark store has no variants');
    return variantIds;
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
  target: Target,
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
    const read = await call(pool, 'GET', `/storefront/v1/orders/${orderId}`, target.key);
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

const BENCH_ADDRESS = {
  name: 'Bench Buyer',
  line1: '1 Main St',
  city: 'Boston',
  region: 'US-MA',
  postalCode: '02108',
  country: 'US',
};

/** The cart's shipping steps a shop makes (D39): its address, its options, the first option. Milliseconds, or the failure. */
async function shippingSteps(pool: Pool, target: Target, cartId: string): Promise<number | string> {
  const address = await call(
    pool,
    'PUT',
    `/storefront/v1/carts/${cartId}/shipping-address`,
    target.key,
    BENCH_ADDRESS,
  );
  if (address.status !== 200) return `shipping-address ${address.status}`;
  const options = await call(pool, 'GET', `/storefront/v1/carts/${cartId}/shipping-options`, target.key);
  const items = isRecord(options.body) && Array.isArray(options.body.items) ? options.body.items : [];
  if (options.status !== 200 || items.length === 0) return `shipping-options ${options.status}`;
  const method = await call(pool, 'PUT', `/storefront/v1/carts/${cartId}/shipping-method`, target.key, {
    id: stringAt(items[0], 'id'),
  });
  if (method.status !== 200) return `shipping-method ${method.status}`;
  return address.ms + options.ms + method.ms;
}

async function purchase(pool: Pool, target: Target, pollMs: number): Promise<Purchase> {
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
  const cart = await call(pool, 'POST', '/storefront/v1/carts', target.key, {
    items: [{ variantId, quantity: 1 }],
  });
  steps.cart = cart.ms;
  if (cart.status !== 201) return failed(`cart ${cart.status}`);
  if (target.shipping) {
    const shipped = await shippingSteps(pool, target, stringAt(cart.body, 'id'));
    if (typeof shipped === 'string') return failed(shipped);
    steps.shipping = shipped;
  }
  buyerSerial += 1;
  const checkout = await call(
    pool,
    'POST',
    '/storefront/v1/checkout',
    { ...target.key, 'idempotency-key': randomUUID() },
    { cartId: stringAt(cart.body, 'id'), email: `buyer-${buyerSerial}@example.com` },
  );
  steps.checkout = checkout.ms;
  if (checkout.status !== 201) return failed(`checkout ${checkout.status}`);
  const paid = await payAndWait(pool, target, checkout.body, pollMs, steps);
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
// Readings: server CPU, database CPU and transactions

interface Readings {
  serverCpu: number;
  /** CPU seconds of each PostgreSQL backend connected to the target's database. */
  backends: Map<number, number>;
  /** Commits + rollbacks in the target's database (flushed statistics). */
  transactions: number;
}

async function backendPids(databaseUrl: string): Promise<number[]> {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return result.rows.map((row) => row.pid);
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

async function read(target: Target, withTransactions: boolean): Promise<Readings> {
  const backends = new Map<number, number>();
  let transactions = Number.NaN;
  if (target.databaseUrl !== null) {
    for (const pid of await backendPids(target.databaseUrl)) backends.set(pid, cpuSecondsOf(pid));
    if (withTransactions) transactions = await transactionCount(target.databaseUrl);
  }
  return { serverCpu: cpuSecondsOf(target.server.pid), backends, transactions };
}

/** Database CPU between two readings: backends seen at the end, minus what they had used at the start. */
function databaseCpu(before: Readings, after: Readings): number {
  let total = 0;
  for (const [pid, seconds] of after.backends) {
    if (Number.isFinite(seconds)) total += seconds - (before.backends.get(pid) ?? 0);
  }
  return after.backends.size > 0 ? total : Number.NaN;
}

// ---------------------------------------------------------------------------------------------
// Scenario 1: steady purchases

interface Round {
  target: string;
  purchases: Purchase[];
  seconds: number;
  serverCpuSeconds: number;
  databaseCpuSeconds: number;
  /** Transactions in the database during the round and the statistics flush after it (PostgreSQL). */
  transactions: number;
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
    Array.from({ length: buyers }, async () => {
      while (performance.now() < deadline) {
        const made = await purchase(pool, target, pollMs);
        purchases.push(made);
        if (!made.ok) await sleep(50);
        if (!alive(target.server.child)) throw new Error(`the server died:\n${target.server.tail.text()}`);
      }
    }),
  );
  return purchases;
}

async function steadyRound(target: Target, options: Options): Promise<Round> {
  const pool = newPool(target.server.url, options.buyers);
  try {
    if (options.warmup > 0) await buyFor(pool, target, options.buyers, options.warmup, options.pollMs);
    const withTransactions = target.databaseUrl !== null;
    if (withTransactions) await sleep(STATS_FLUSH_MS);
    const before = await read(target, withTransactions);
    const started = performance.now();
    const purchases = await buyFor(pool, target, options.buyers, options.duration, options.pollMs);
    const ended = performance.now();
    const middle = await read(target, false);
    let transactions = Number.NaN;
    if (withTransactions) {
      await sleep(STATS_FLUSH_MS);
      transactions = (await transactionCount(target.databaseUrl!)) - before.transactions;
    }
    return {
      target: target.label,
      purchases,
      seconds: (ended - started) / 1000,
      serverCpuSeconds: middle.serverCpu - before.serverCpu,
      databaseCpuSeconds: databaseCpu(before, middle),
      transactions,
    };
  } finally {
    await closePool(pool);
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
      const cart = await call(pool, 'POST', '/storefront/v1/carts', target.key, {
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
        { ...target.key, 'idempotency-key': randomUUID() },
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
      const paid = await payAndWait(pool, target, checkout.body, options.pollMs, {});
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
    databaseCpuSeconds: databaseCpu(before, after),
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
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
  databaseCpuMicros: number;
  transactionsPerPurchase: number;
}

function combine(target: Target, rounds: Round[]): Steady {
  const all = rounds.flatMap((r) => r.purchases);
  const ok = all.filter((p) => p.ok);
  const failures: Record<string, number> = {};
  for (const p of all) if (!p.ok) tally(failures, p.failure ?? '?');
  const okCount = ok.length;
  const sum = (pick: (r: Round) => number): number => rounds.reduce((a, r) => a + pick(r), 0);
  return {
    target,
    rounds,
    purchasesPerSecond: median(rounds.map((r) => r.purchases.filter((p) => p.ok).length / r.seconds)),
    ok,
    failures,
    serverCpuMicros: okCount > 0 ? (sum((r) => r.serverCpuSeconds) * 1e6) / okCount : Number.NaN,
    databaseCpuMicros: okCount > 0 ? (sum((r) => r.databaseCpuSeconds) * 1e6) / okCount : Number.NaN,
    transactionsPerPurchase: okCount > 0 ? sum((r) => r.transactions) / okCount : Number.NaN,
  };
}

interface Report {
  options: Options;
  machine: Machine;
  endLoad: string;
  steady: Steady[];
  races: Race[];
  pool: string;
}

function section(report: Report): string {
  const { options, machine: m, steady, races } = report;
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const kind = options.databaseUrl ? 'PostgreSQL' : 'PGlite';
  const compared = steady.length > 1;
  const name = (t: Target): string => (compared ? `${t.label} (${t.commit})` : t.commit);

  const steadyRows = steady.map((s) => {
    const totals = sortedOf(s.ok.map((p) => p.total));
    const step = (which: Step): string => pair(sortedOf(s.ok.map((p) => p.steps[which] ?? Number.NaN)));
    const polls = s.ok.reduce((a, p) => a + p.polls, 0) / Math.max(1, s.ok.length);
    return `| ${name(s.target)} | ${int(s.ok.length)} | ${int(s.purchasesPerSecond)} | ${pair(totals)} | ${stepsOf(options.shipping).map(step).join(' | ')} | ${one(
      polls,
    )} | ${counts(s.failures)} | ${int(s.serverCpuMicros)} | ${int(s.databaseCpuMicros)} | ${one(s.transactionsPerPurchase)} |`;
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
    )} | ${int(r.oversoldOrders)} | ${two(r.serverCpuSeconds)} | ${two(r.databaseCpuSeconds)} | ${verdict} |`;
  });

  const notes: string[] = [];
  if (compared) {
    const [a, b] = steady;
    if (a && b) {
      notes.push(
        `- ${a.target.label} vs ${b.target.label}: ${(a.purchasesPerSecond / b.purchasesPerSecond).toFixed(2)}× the purchases/s, ` +
          `${(a.serverCpuMicros / b.serverCpuMicros).toFixed(2)}× the server CPU per purchase` +
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
  for (const s of steady) {
    if (s.target.server.tail.problems > 0) {
      notes.push(
        `- ${compared ? `${s.target.label}: ` : ''}the server logged ${int(s.target.server.tail.problems)} warnings or errors; the first: \`${(
          s.target.server.tail.firstProblem ?? ''
        )
          .slice(0, 300)
          .replace(/`/g, "'")}\``,
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
      `client and server on the same machine; rate limits out of reach (bench/lib.ts UNLIMITED_RATES) (REDIS_URL ${process.env.REDIS_URL ? 'set' : 'unset'})`,
    '',
    `| Server | Purchases | Purchases/s | Purchase p50 / p99 ms | Cart p50 / p99 | ${options.shipping ? 'Shipping steps p50 / p99 | ' : ''}Checkout p50 / p99 | Confirm p50 / p99 | Confirm → paid p50 / p99 | Order reads / purchase | Failures | Server CPU µs / purchase | Database CPU µs / purchase | Transactions / purchase |`,
    `| --- | ---: | ---: | ---: | ---: | ${options.shipping ? '---: | ' : ''}---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |`,
    ...steadyRows,
    '',
    ...(races.length > 0
      ? [
          `Hot-variant race: one variant with ${int(options.raceUnits)} units; ${int(options.raceBuyers)} buyers put it in a cart at the same moment, ` +
            'then all check out at once; the winners confirm and read their order until `paid`. It holds when exactly ' +
            'min(units, buyers) checkouts make an order, every other one is 409 `insufficient_stock`, every order is paid, ' +
            'the variant ends with on hand = units − paid and nothing reserved, no order is `oversold`, and the checkout p99 is under 2 s.',
          '',
          '| Server | Buyers | Units | Orders (201) | 409 insufficient_stock | Other failures | Cart p50 / p99 ms | Checkout p50 / p99 ms | Winner checkout → paid p50 / p99 ms | Paid | On hand / reserved after | Oversold orders | Server CPU s | Database CPU s | Verdict |',
          '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
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

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options === null) {
    process.stdout.write(HELP);
    return;
  }
  if (Number(process.versions.node.split('.')[0]) < 24) {
    throw new UsageError(`run it with Node 24 (npm run bench:purchase), not ${process.version}`);
  }
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const host = machine();

  const targets = [await setUpTarget('this checkout', { root }, options, log)];
  if (options.compare !== null)
    targets.push(await setUpTarget('compared', { root: options.compare }, options, log, options.compareEnv));

  const rounds = new Map<string, Round[]>(targets.map((t) => [t.label, []]));
  for (let round = 1; round <= options.rounds; round += 1) {
    const order = round % 2 === 1 ? targets : [...targets].reverse();
    for (const target of order) {
      const of = options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : '';
      log(`bench: ${target.label}: ${options.buyers} buyers for ${options.duration} s${of}…`);
      const measured = await steadyRound(target, options);
      rounds.get(target.label)?.push(measured);
      const ok = measured.purchases.filter((p) => p.ok);
      const totals = sortedOf(ok.map((p) => p.total));
      log(
        `       ${int(ok.length / measured.seconds)} purchases/s, p50 ${ms(percentile(totals, 50))} ms, p99 ` +
          `${ms(percentile(totals, 99))} ms, ${measured.purchases.length - ok.length} failed, server CPU ` +
          `${int((measured.serverCpuSeconds * 1e6) / Math.max(1, ok.length))} µs/purchase`,
      );
    }
  }
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
  });
  await publish(text, options, log);
  if (races.some((r) => !raceHolds(r))) process.exitCode = 1;
}

await runMain(main);
