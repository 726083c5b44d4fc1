/**
 * `npm run bench`: load benchmark of the Storefront API with autocannon.
 *
 * Seeds a benchmark catalog into a fresh temporary data directory (or into DATABASE_URL when set),
 * starts `storefront serve` as a child process on a free port, runs one autocannon scenario per
 * endpoint for a fixed duration, measures the server's memory, and puts a section with the machine,
 * the date and the numbers on top of bench/RESULTS.md. See bench/README.md.
 *
 *   npm run bench -- [--products 10000] [--duration 10] [--connections 32] [--warmup 1] [--rounds 1]
 *                    [--store SLUG] [--markets] [--output bench/RESULTS.md] [--no-write]
 */
import type autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { databaseUrlFromEnv } from './lib/databases.ts';
import { startLoad } from './lib/load.ts';
import { cpuSecondsOf, machine, type Machine, root } from './lib/machine.ts';
import { parseResultsCommandLine, type ResultsTarget, UsageError } from './lib/options.ts';
import {
  alive,
  benchEnv,
  cli,
  freePort,
  isRecord,
  requireNode24,
  runBenchmark,
  serve,
} from './lib/processes.ts';
import { median, percentile, publish, serverProblemsNote } from './lib/results.ts';

const HELP = `Usage: npm run bench -- [options]

  --products N      catalog size to seed (default 10000)
  --duration S      seconds per scenario (default 10)
  --connections C   concurrent connections (default 50)
  --warmup S        unrecorded seconds before each scenario (default 1; 0 disables)
  --rounds R        run the whole list of scenarios R times, interleaved; report the
                    median requests/s (default 1)
  --paired S        before each read, S seconds of /healthz: each read's ratio is taken
                    against the /healthz measured just before it, round by round (default 0:
                    off; the ratio is then against the rounds' one /healthz figure)
  --store SLUG      store slug to seed (default: a new "bench-…" slug per run)
  --markets         also a market Europe (DE, EUR at 0.92, .99 rounding) and the first page, a
                    product, the two searches with ?country=DE (decision markets)
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file

Without DATABASE_URL the embedded database runs in a fresh temporary DATA_DIR; with it, that
PostgreSQL database is used (and keeps the seeded store afterwards).
`;

// ---------------------------------------------------------------------------------------------
// Options

interface Options extends ResultsTarget {
  products: number;
  duration: number;
  connections: number;
  warmup: number;
  rounds: number;
  /** Seconds of /healthz measured right before each read (0: off). */
  paired: number;
  store: string;
  /** A second market and the reads with `?country=DE` in it (decision `markets`). */
  markets: boolean;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    {
      products: { default: 10_000, min: 1, max: 10_000_000 },
      duration: { default: 10, min: 1, max: 3600 },
      connections: { default: 50, min: 1, max: 10_000 },
      warmup: { default: 1, min: 0, max: 600 },
      rounds: { default: 1, min: 1, max: 100 },
      paired: { default: 0, min: 0, max: 600 },
    },
    { store: { type: 'string' }, markets: { type: 'boolean', default: false } },
  );
  if (parsed === null) return null;
  const { integers, values } = parsed;
  const store = values.store ?? `bench-${Date.now().toString(36)}`;
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(store)) {
    throw new UsageError('--store must be lower-case letters, digits and hyphens');
  }
  return {
    ...integers,
    store,
    markets: values.markets,
    ...parsed.results,
    databaseUrl: databaseUrlFromEnv(),
  };
}

// ---------------------------------------------------------------------------------------------
// Seeding and serving

async function seed(
  options: Options,
  env: NodeJS.ProcessEnv,
): Promise<{ key: string; staffToken: string; seconds: number }> {
  const started = performance.now();
  const tail = await cli(
    ['seed', 'bench', '--products', String(options.products), '--store', options.store],
    env,
  );
  const key = tail.lines.at(-1)?.trim() ?? '';
  if (!key.startsWith('pk_')) throw new Error(`seed bench printed no publishable key:\n${tail.text()}`);
  const staffToken = /Staff token: (\S+)/.exec(tail.text())?.[1];
  if (!staffToken) throw new Error(`seed bench printed no staff token:\n${tail.text()}`);
  return { key, staffToken, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// /proc readings

interface Memory {
  rssMiB: number;
  peakMiB: number;
}

function kibToMiB(kib: number): number {
  return kib / 1024;
}

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] ? Number(match[1]) : Number.NaN;
  };
  return { rssMiB: kibToMiB(field('VmRSS')), peakMiB: kibToMiB(field('VmHWM')) };
}

async function databaseKind(databaseUrl: string | null): Promise<string> {
  if (databaseUrl === null) return 'PGlite (embedded, fresh temporary DATA_DIR)';
  const shown = new URL(databaseUrl);
  shown.password = '';
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return `PostgreSQL ${result.rows[0]?.server_version ?? '?'} (${shown.host}${shown.pathname})`;
  } catch {
    return `PostgreSQL (${shown.host}${shown.pathname})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Preparing the requests

interface Fetched {
  status: number;
  headers: Headers;
  body: unknown;
}

async function request(
  url: string,
  headers: Record<string, string>,
  init: { method?: string; body?: string } = {},
): Promise<Fetched> {
  const response = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let body: unknown = null;
  if (text !== '') {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: response.headers, body };
}

function ids(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw new Error(`${what}: expected an array`);
  return value.map((item) => {
    if (!isRecord(item) || typeof item.id !== 'string') throw new Error(`${what}: an item has no id`);
    return item.id;
  });
}

function expectStatus(fetched: Fetched, status: number, what: string): void {
  if (fetched.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${fetched.status}: ${JSON.stringify(fetched.body)}`);
  }
}

type KeyHeaders = Record<string, string>;

interface Page {
  items: string[];
  nextCursor: string | null;
}

async function productPage(
  api: string,
  key: KeyHeaders,
  limit: number,
  cursor: string | null,
): Promise<Page> {
  const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const fetched = await request(`${api}/products?${query}`, key);
  expectStatus(fetched, 200, 'GET /products');
  const body = fetched.body;
  if (!isRecord(body)) throw new Error('GET /products: not an object');
  const nextCursor = body.nextCursor;
  if (nextCursor !== null && typeof nextCursor !== 'string') throw new Error('GET /products: bad nextCursor');
  return { items: ids(body.items, 'GET /products'), nextCursor };
}

interface Walk {
  cursor: string;
  depth: number;
  pages: number;
  pageSize: number;
  firstPagesMs: number;
  lastPagesMs: number;
}

/**
 * Walks the product list with 100-item pages until about 90 % of the catalog is behind the cursor.
 * Also times the walk (one connection, no load): keyset pages should cost the same at any depth.
 */
async function walkDeep(api: string, key: KeyHeaders, products: number): Promise<Walk> {
  const pageSize = 100;
  const target = Math.max(20, Math.floor(products * 0.9));
  let cursor: string | null = null;
  let depth = 0;
  const times: number[] = [];
  while (depth < target) {
    const started = performance.now();
    const page: Page = await productPage(api, key, pageSize, cursor);
    times.push(performance.now() - started);
    if (page.nextCursor === null) break;
    depth += page.items.length;
    cursor = page.nextCursor;
  }
  if (cursor === null) throw new Error('the catalog has fewer than two pages: seed more products');
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const edge = Math.max(1, Math.min(10, Math.floor(times.length / 2)));
  return {
    cursor,
    depth,
    pages: times.length,
    pageSize,
    firstPagesMs: mean(times.slice(0, edge)),
    lastPagesMs: mean(times.slice(-edge)),
  };
}

interface Prepared {
  productId: string;
  etag: string;
  variantId: string;
  /** The first page's nextCursor: a cursor request at no depth. */
  secondPageCursor: string;
  walk: Walk;
}

/**
 * The store's content, made through the Admin API like a merchant would (idempotent, so a second run
 * into the same store replaces it): a manual collection of the first page's products, a main menu,
 * an about page and a published home-hero region.
 */
async function content(base: string, staffToken: string, productIds: string[]): Promise<void> {
  const admin = async (method: string, url: string, body?: object): Promise<Fetched> =>
    request(
      `${base}/admin/v1${url}`,
      { authorization: `Bearer ${staffToken}`, 'content-type': 'application/json' },
      { method, ...(body ? { body: JSON.stringify(body) } : {}) },
    );
  const collection = await admin('POST', '/collections', {
    title: 'Bench picks',
    slug: 'bench-picks',
    kind: 'manual',
    productIds,
  });
  if (collection.status !== 201 && collection.status !== 409)
    expectStatus(collection, 201, 'POST /collections');
  const menu = {
    items: [
      { label: 'Home', url: '/' },
      { label: 'Bench picks', url: '/collections/bench-picks' },
      { label: 'About', url: '/pages/about' },
    ],
  };
  expectStatus(await admin('PUT', '/menus/main', menu), 200, 'PUT /menus/main');
  const page = { title: 'About us', body: 'A benchmark store.\n\nIt sells numbered products.' };
  expectStatus(await admin('PUT', '/pages/about', page), 200, 'PUT /pages/about');
  const blocks = [
    { id: 'heading-1', type: 'heading', settings: { text: 'Bench Store', level: 1 } },
    { id: 'text-1', type: 'text', settings: { text: 'Numbered products, measured.' } },
    { id: 'button-1', type: 'button', settings: { text: 'Shop now', href: '/collections/bench-picks' } },
  ];
  expectStatus(
    await admin('PUT', '/regions/home-hero/draft', { blocks }),
    200,
    'PUT /regions/home-hero/draft',
  );
  expectStatus(await admin('POST', '/regions/home-hero/publish'), 200, 'POST /regions/home-hero/publish');
}

/** The market of `--markets`: its country's reads are priced in EUR (decisions `markets`, `market-prices`). */
const EUROPE = {
  name: 'Europe',
  countries: ['DE'],
  currency: 'EUR',
  exchangeRate: '0.92',
  rounding: 'to_99',
};
const IN_DE = 'country=DE';

/**
 * `--markets`: the market Europe through the Admin API (its creation prices every card there; 409
 * when a second run into the same store finds it made), then each `?country=DE` read once: answered
 * in euros.
 */
async function market(base: string, key: KeyHeaders, staffToken: string, productId: string): Promise<void> {
  const created = await request(
    `${base}/admin/v1/markets`,
    { authorization: `Bearer ${staffToken}`, 'content-type': 'application/json' },
    { method: 'POST', body: JSON.stringify(EUROPE) },
  );
  if (created.status !== 409) expectStatus(created, 201, 'POST /admin/v1/markets');
  const api = `${base}/storefront/v1`;
  for (const url of [
    `/products?limit=20&${IN_DE}`,
    `/products/${productId}?${IN_DE}`,
    `/products?${SEARCH}&${IN_DE}`,
    `/products?${FILTERED_SEARCH}&${IN_DE}`,
  ]) {
    const fetched = await request(`${api}${url}`, key);
    expectStatus(fetched, 200, `GET ${url}`);
    const body = fetched.body;
    const first: unknown = isRecord(body) && Array.isArray(body.items) ? body.items[0] : body;
    const currency = isRecord(first) ? first.currency : undefined;
    if (currency !== EUROPE.currency)
      throw new Error(`GET ${url}: expected prices in ${EUROPE.currency}, got ${JSON.stringify(currency)}`);
  }
}

async function prepare(
  base: string,
  key: KeyHeaders,
  staffToken: string,
  options: Options,
): Promise<Prepared> {
  const products = options.products;
  const api = `${base}/storefront/v1`;
  expectStatus(await request(`${api}/store`, key), 200, 'GET /store');
  const first = await productPage(api, key, 20, null);
  const productId = first.items[0];
  if (productId === undefined) throw new Error('the benchmark store has no products');
  if (first.nextCursor === null) throw new Error('the catalog has one page only: seed more products');
  const secondPageCursor = first.nextCursor;
  await content(base, staffToken, first.items);
  for (const url of [
    '/collections',
    '/collections/bench-picks',
    '/collections/bench-picks/products?limit=20',
    '/menus/main',
    '/pages/about',
    '/regions/home-hero',
  ]) {
    expectStatus(await request(`${api}${url}`, key), 200, `GET ${url}`);
  }
  await expectFound(api, key, SEARCH);
  await expectFound(api, key, FILTERED_SEARCH);
  if (options.markets) await market(base, key, staffToken, productId);

  const detail = await request(`${api}/products/${productId}`, key);
  expectStatus(detail, 200, 'GET /products/:id');
  const etag = detail.headers.get('etag');
  if (!etag) throw new Error('GET /products/:id sent no ETag');
  const body = detail.body;
  const variantId = isRecord(body) ? ids(body.variants, 'GET /products/:id variants')[0] : undefined;
  if (variantId === undefined) throw new Error('the product has no variants');

  expectStatus(
    await request(`${api}/products/${productId}`, { ...key, 'if-none-match': etag }),
    304,
    'GET /products/:id with If-None-Match',
  );
  expectStatus(
    await request(
      `${api}/carts`,
      { ...key, 'content-type': 'application/json' },
      {
        method: 'POST',
        body: cartBody(variantId),
      },
    ),
    201,
    'POST /carts',
  );
  return { productId, etag, variantId, secondPageCursor, walk: await walkDeep(api, key, products) };
}

/**
 * The search scenarios' queries (decision `storefront-search`, docs/search.md): `seed bench` titles its products "Bench Product
 * <n>" (a description "Benchmark product number <n>."), so `product` begins a word of every title,
 * and its variants cost 10.00 to 24.90, so the price range keeps the S variants of about half of them.
 */
const SEARCH = 'q=product&limit=20';
const FILTERED_SEARCH = 'q=product&minPrice=1000&maxPrice=1490&limit=20';

/** A search finds something, or its scenario would measure an empty answer. */
async function expectFound(api: string, key: KeyHeaders, query: string): Promise<void> {
  const fetched = await request(`${api}/products?${query}`, key);
  expectStatus(fetched, 200, `GET /products?${query}`);
  const items = isRecord(fetched.body) ? fetched.body.items : undefined;
  if (!Array.isArray(items) || items.length === 0) {
    throw new Error(
      `GET /storefront/v1/products?${query} found no products: the search scenarios need a catalog ` +
        'seeded by `seed bench` (titles "Bench Product <n>"); adjust SEARCH / FILTERED_SEARCH in bench/run.ts',
    );
  }
}

function cartBody(variantId: string): string {
  return JSON.stringify({ items: [{ variantId, quantity: 1 }] });
}

// ---------------------------------------------------------------------------------------------
// Scenarios

type ScenarioId =
  | 'healthz'
  | 'store'
  | 'first'
  | 'second'
  | 'deep'
  | 'product'
  | 'product304'
  | 'search'
  | 'searchFiltered'
  | 'firstDE'
  | 'productDE'
  | 'searchDE'
  | 'searchFilteredDE'
  | 'collections'
  | 'collection'
  | 'collectionProducts'
  | 'menu'
  | 'page'
  | 'region'
  | 'cart';

interface Scenario {
  id: ScenarioId;
  name: string;
  method: 'GET' | 'POST';
  /** Path shown in the results (long cursors shortened). */
  shown: string;
  path: string;
  headers: KeyHeaders;
  body?: string;
  expect: number;
}

/** The reads `--markets` asks again with `?country=DE`: the scenario, its twin's id and name. */
const IN_MARKET: [ScenarioId, ScenarioId, string][] = [
  ['first', 'firstDE', 'Products, first page, country=DE'],
  ['product', 'productDE', 'Product detail, country=DE'],
  ['search', 'searchDE', 'Search, country=DE'],
  ['searchFiltered', 'searchFilteredDE', 'Search with a price filter, country=DE'],
];

/** The same read in the market of DE (decision `markets`): `?country=DE` added to its URL. */
function inMarket(scenario: Scenario, id: ScenarioId, name: string): Scenario {
  const add = (url: string): string => `${url}${url.includes('?') ? '&' : '?'}${IN_DE}`;
  return { ...scenario, id, name, shown: add(scenario.shown), path: add(scenario.path) };
}

function scenarios(key: KeyHeaders, prepared: Prepared, markets: boolean): Scenario[] {
  const list = baseScenarios(key, prepared);
  if (!markets) return list;
  const twins = IN_MARKET.flatMap(([of, id, name]) => {
    const scenario = list.find((s) => s.id === of);
    return scenario ? [inMarket(scenario, id, name)] : [];
  });
  const at = list.findIndex((s) => s.id === 'searchFiltered') + 1;
  return [...list.slice(0, at), ...twins, ...list.slice(at)];
}

function baseScenarios(key: KeyHeaders, prepared: Prepared): Scenario[] {
  const api = '/storefront/v1';
  const { productId, etag, variantId, secondPageCursor, walk } = prepared;
  return [
    {
      id: 'healthz',
      name: 'Baseline',
      method: 'GET',
      shown: '/healthz',
      path: '/healthz',
      headers: {},
      expect: 200,
    },
    {
      id: 'store',
      name: 'Store',
      method: 'GET',
      shown: `${api}/store`,
      path: `${api}/store`,
      headers: key,
      expect: 200,
    },
    {
      id: 'first',
      name: 'Products, first page',
      method: 'GET',
      shown: `${api}/products?limit=20`,
      path: `${api}/products?limit=20`,
      headers: key,
      expect: 200,
    },
    {
      id: 'second',
      name: 'Products, page 2 (after item 20)',
      method: 'GET',
      shown: `${api}/products?limit=20&cursor=…`,
      path: `${api}/products?limit=20&cursor=${encodeURIComponent(secondPageCursor)}`,
      headers: key,
      expect: 200,
    },
    {
      id: 'deep',
      name: `Products, deep page (after item ${walk.depth.toLocaleString('en-US')})`,
      method: 'GET',
      shown: `${api}/products?limit=20&cursor=…`,
      path: `${api}/products?limit=20&cursor=${encodeURIComponent(walk.cursor)}`,
      headers: key,
      expect: 200,
    },
    {
      id: 'product',
      name: 'Product detail',
      method: 'GET',
      shown: `${api}/products/:id`,
      path: `${api}/products/${productId}`,
      headers: key,
      expect: 200,
    },
    {
      id: 'product304',
      name: 'Product detail, If-None-Match',
      method: 'GET',
      shown: `${api}/products/:id (If-None-Match)`,
      path: `${api}/products/${productId}`,
      headers: { ...key, 'if-none-match': etag },
      expect: 304,
    },
    {
      id: 'search',
      name: 'Search',
      method: 'GET',
      shown: `${api}/products?${SEARCH}`,
      path: `${api}/products?${SEARCH}`,
      headers: key,
      expect: 200,
    },
    {
      id: 'searchFiltered',
      name: 'Search with a price filter',
      method: 'GET',
      shown: `${api}/products?${FILTERED_SEARCH}`,
      path: `${api}/products?${FILTERED_SEARCH}`,
      headers: key,
      expect: 200,
    },
    ...(
      [
        ['collections', 'Collections', '/collections'],
        ['collection', 'A collection', '/collections/bench-picks'],
        ['collectionProducts', "A collection's products", '/collections/bench-picks/products?limit=20'],
        ['menu', 'Menu', '/menus/main'],
        ['page', 'Page', '/pages/about'],
        ['region', 'Region (published blocks)', '/regions/home-hero'],
      ] as const
    ).map(([id, name, url]): Scenario => ({
      id,
      name,
      method: 'GET',
      shown: `${api}${url}`,
      path: `${api}${url}`,
      headers: key,
      expect: 200,
    })),
    {
      id: 'cart',
      name: 'Create cart',
      method: 'POST',
      shown: `${api}/carts`,
      path: `${api}/carts`,
      headers: { ...key, 'content-type': 'application/json' },
      body: cartBody(variantId),
      expect: 201,
    },
  ];
}

interface Measured {
  scenario: Scenario;
  /** Median over the rounds of autocannon's mean requests/s. */
  requestsPerSecond: number;
  /** Each round's mean requests/s. */
  rounds: number[];
  /**
   * Each round's requests/s divided by the /healthz requests/s measured right before it (--paired),
   * else empty.
   */
  pairedRatios: number[];
  p50: number;
  p99: number;
  responses: number;
  statuses: Record<string, number>;
  /** 1xx, 4xx and 5xx responses. */
  failed: number;
  /** Responses with another status than the scenario expects (e.g. 200 where 304 was expected). */
  unexpected: number;
  errors: number;
  timeouts: number;
  serverCpuMicrosPerRequest: number;
}

function cannon(
  base: string,
  scenario: Scenario,
  connections: number,
  duration: number,
): autocannon.Instance {
  return startLoad({
    url: `${base}${scenario.path}`,
    method: scenario.method,
    headers: scenario.headers,
    connections,
    duration,
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
  });
}

interface Round {
  requestsPerSecond: number;
  times: number[];
  statuses: Record<string, number>;
  failed: number;
  errors: number;
  timeouts: number;
  cpuSeconds: number;
}

async function measureRound(base: string, pid: number, scenario: Scenario, options: Options): Promise<Round> {
  if (options.warmup > 0) {
    await cannon(base, scenario, options.connections, options.warmup);
  }
  // autocannon's histogram keeps whole milliseconds; keep exact response times for p50/p99.
  const times: number[] = [];
  const cpuBefore = cpuSecondsOf(pid);
  const instance = cannon(base, scenario, options.connections, options.duration);
  instance.on('response', (_client, _status, _bytes, ms) => {
    times.push(ms);
  });
  const result = await instance;
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count;
  return {
    requestsPerSecond: result.requests.average,
    times,
    statuses,
    failed: result['1xx'] + result['4xx'] + result['5xx'],
    errors: result.errors,
    timeouts: result.timeouts,
    cpuSeconds: cpuSecondsOf(pid) - cpuBefore,
  };
}

/**
 * The order of round `round` (1-based): the reads rotate by one place per round, so that no read
 * always follows the same neighbour (a scenario's position then cannot bias the ratios); the writes
 * stay last, so that the rows they add cannot affect the reads.
 */
function roundOrder(list: Scenario[], round: number): Scenario[] {
  const reads = list.filter((s) => s.method === 'GET');
  const writes = list.filter((s) => s.method !== 'GET');
  const shift = (round - 1) % Math.max(1, reads.length);
  return [...reads.slice(shift), ...reads.slice(0, shift), ...writes];
}

/**
 * One scenario over all rounds: median requests/s, latency percentiles over every response.
 * `baselines` holds, per round, the /healthz requests/s measured right before it (--paired).
 */
function combine(scenario: Scenario, rounds: Round[], baselines: number[]): Measured {
  const sorted = Float64Array.from(rounds.flatMap((r) => r.times)).sort();
  const statuses: Record<string, number> = {};
  for (const round of rounds) {
    for (const [code, count] of Object.entries(round.statuses))
      statuses[code] = (statuses[code] ?? 0) + count;
  }
  const responses = Object.values(statuses).reduce((a, b) => a + b, 0);
  const sum = (pick: (r: Round) => number): number => rounds.reduce((a, r) => a + pick(r), 0);
  return {
    scenario,
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    rounds: rounds.map((r) => r.requestsPerSecond),
    pairedRatios: baselines.map((b, i) => (rounds[i]?.requestsPerSecond ?? Number.NaN) / b),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    responses,
    statuses,
    failed: sum((r) => r.failed),
    unexpected: responses - (statuses[String(scenario.expect)] ?? 0),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    serverCpuMicrosPerRequest: responses > 0 ? (sum((r) => r.cpuSeconds) * 1e6) / responses : Number.NaN,
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–');
const ratio = (a: number, b: number): string =>
  b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : '–';
const mib = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(0)} MiB` : '–');

interface Report {
  options: Options;
  machine: Machine;
  database: string;
  autocannonVersion: string;
  seedSeconds: number;
  startupSeconds: number;
  idle: Memory;
  loaded: Memory;
  walk: Walk;
  results: Measured[];
  serverProblems: number;
  firstServerProblem: string | null;
}

function section(report: Report): string {
  const { options, machine: m, results, walk } = report;
  const by = (id: ScenarioId): Measured | undefined => results.find((r) => r.scenario.id === id);
  const baseline = by('healthz')?.requestsPerSecond ?? Number.NaN;
  /** A read's requests/s over /healthz's: the median of its paired ratios (--paired), else of the medians. */
  const toHealthz = (r: Measured | undefined): number =>
    r === undefined
      ? Number.NaN
      : r.pairedRatios.length > 0
        ? median(r.pairedRatios)
        : r.requestsPerSecond / baseline;
  const times = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const kind = options.databaseUrl ? 'PostgreSQL' : 'PGlite';

  const roundsNote =
    (options.rounds > 1
      ? `, ${options.rounds} rounds of the whole list (reads rotated one place per round), median req/s shown`
      : '') +
    (options.paired > 0
      ? `; each read preceded by ${options.paired} s of /healthz, its × /healthz the median over the rounds of ` +
        'its requests/s over that /healthz figure (so a machine that speeds up or slows down during a round ' +
        'does not bias the ratios)'
      : '');
  const rpsHeading = options.rounds > 1 ? 'req/s (median of means)' : 'req/s (mean)';
  const rows = results.map((r) => {
    const statuses = Object.entries(r.statuses)
      .map(([code, count]) => `${code}: ${int(count)}`)
      .join(', ');
    return `| ${r.scenario.name} | \`${r.scenario.method} ${r.scenario.shown}\` | ${int(r.requestsPerSecond)} | ${
      r.scenario.id === 'healthz' ? '1.00×' : times(toHealthz(r))
    } | ${ms(r.p50)} | ${ms(r.p99)} | ${statuses || '–'} | ${int(r.failed)} | ${int(r.unexpected)} | ${int(
      r.errors,
    )} | ${int(r.serverCpuMicrosPerRequest)} |`;
  });

  const first = by('first');
  const second = by('second');
  const deep = by('deep');
  const product = by('product');
  const notModified = by('product304');
  const ratios: string[] = [];
  if (first && deep) {
    ratios.push(
      `- Deep page vs first page: ${ratio(deep.requestsPerSecond, first.requestsPerSecond)} the requests/s, ` +
        `${ratio(deep.p50, first.p50)} the p50 latency (flat keyset cost means ≈ 1×).`,
    );
  }
  if (second && deep) {
    ratios.push(
      `- Deep page vs page 2 (both with a cursor; depth alone): ${ratio(deep.requestsPerSecond, second.requestsPerSecond)} ` +
        `the requests/s, ${ratio(deep.serverCpuMicrosPerRequest, second.serverCpuMicrosPerRequest)} the server CPU per request.`,
    );
  }
  if (first && second) {
    ratios.push(
      `- Page 2 vs first page (the cost of a cursor): ${ratio(second.requestsPerSecond, first.requestsPerSecond)} ` +
        `the requests/s, ${ratio(second.serverCpuMicrosPerRequest, first.serverCpuMicrosPerRequest)} the server CPU per request.`,
    );
  }
  ratios.push(
    `- Sequential walk to the deep cursor (${walk.pages} pages of ${walk.pageSize}, one connection, no load): ` +
      `first pages ${ms(walk.firstPagesMs)} ms, last pages ${ms(walk.lastPagesMs)} ms each ` +
      `(${ratio(walk.lastPagesMs, walk.firstPagesMs)}).`,
  );
  if (product && notModified) {
    ratios.push(
      `- Product detail 304 vs 200: ${ratio(notModified.requestsPerSecond, product.requestsPerSecond)} the requests/s.`,
    );
  }
  const search = by('search');
  const searchFiltered = by('searchFiltered');
  if (first && search && searchFiltered) {
    ratios.push(
      `- Search vs first page (both served by the read cache after their first request): ` +
        `${ratio(search.requestsPerSecond, first.requestsPerSecond)} the requests/s, with the price filter ` +
        `${ratio(searchFiltered.requestsPerSecond, first.requestsPerSecond)}.`,
    );
  }
  const reads = results.filter(
    (r) => r.scenario.method === 'GET' && !['healthz', 'product304'].includes(r.scenario.id),
  );
  if (reads.length > 0 && Number.isFinite(baseline)) {
    const slowest = reads.reduce((a, b) => (toHealthz(b) < toHealthz(a) ? b : a));
    const worstP99 = reads.reduce((a, b) => (b.p99 > a.p99 ? b : a));
    ratios.push(
      `- Catalog and content reads (${reads.length}): the slowest at ${times(toHealthz(slowest))} /healthz ` +
        `(${slowest.scenario.name}), the highest p99 ${ms(worstP99.p99)} ms (${worstP99.scenario.name}); ` +
        `the 304 at ${times(toHealthz(notModified))} /healthz.`,
    );
  }
  if (options.rounds > 1) {
    ratios.push(
      `- Requests/s per round: ${results.map((r) => `${r.scenario.id} ${r.rounds.map(int).join(' / ')}`).join('; ')}.`,
    );
  }
  if (options.paired > 0) {
    ratios.push(
      `- × the /healthz measured just before, per round: ${results
        .filter((r) => r.pairedRatios.length > 0)
        .map((r) => `${r.scenario.id} ${r.pairedRatios.map((x) => x.toFixed(2)).join(' / ')}`)
        .join('; ')}.`,
    );
  }
  const marketRows = IN_MARKET.flatMap(([of, id]) => {
    const without = by(of);
    const within = by(id);
    if (!without || !within) return [];
    return [
      `| ${without.scenario.name} | ${times(toHealthz(without))} | ${times(toHealthz(within))} | ` +
        `${ratio(within.requestsPerSecond, without.requestsPerSecond)} | ${ms(without.p50)} / ${ms(within.p50)} | ` +
        `${ms(without.p99)} / ${ms(within.p99)} | ${int(without.serverCpuMicrosPerRequest)} / ${int(within.serverCpuMicrosPerRequest)} |`,
    ];
  });
  const marketTable =
    marketRows.length > 0
      ? [
          '',
          `Reads without and with \`?${IN_DE}\` (a market Europe: DE, EUR at 0.92, .99 rounding; issue 45's target: ` +
            'with the country at ≥ 0.5× /healthz, as without):',
          '',
          '| Read | × /healthz | × /healthz, country=DE | req/s country=DE / without | p50 ms without / DE | p99 ms without / DE | Server CPU µs/req without / DE |',
          '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
          ...marketRows,
        ]
      : [];
  const trouble = results.filter((r) => r.failed + r.unexpected + r.errors + r.timeouts > 0);
  const notes: string[] = [];
  for (const r of trouble) {
    notes.push(
      `- **${r.scenario.name}**: ${int(r.unexpected)} responses other than ${r.scenario.expect}, ` +
        `${int(r.errors)} connection errors (${int(r.timeouts)} timeouts).`,
    );
  }
  if (report.serverProblems > 0) {
    notes.push(serverProblemsNote(report.serverProblems, report.firstServerProblem));
  }

  return [
    `## ${stamp}: ${kind}, ${int(options.products)} products`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memory} memory, ${m.os}; load average at start ${m.load}`,
    `- Node ${m.node}, autocannon ${report.autocannonVersion}, commit ${m.commit}`,
    `- Database: ${report.database}`,
    `- Catalog: ${int(options.products)} active products (2 variants each) in store \`${options.store}\`, ` +
      `seeded in ${report.seedSeconds.toFixed(1)} s; server ready in ${report.startupSeconds.toFixed(1)} s` +
      (options.markets ? `; a second market \`POST /admin/v1/markets ${JSON.stringify(EUROPE)}\`` : ''),
    `- Load: ${options.connections} connections, ${options.duration} s per scenario after ${options.warmup} s ` +
      `of warm-up${roundsNote}, client and server on the same machine; rate limits out of reach ` +
      `(REDIS_URL ${process.env.REDIS_URL ? 'set' : 'unset'})`,
    `- Server memory: idle RSS ${mib(report.idle.rssMiB)} (start-up peak ${mib(report.idle.peakMiB)}); ` +
      `after the load RSS ${mib(report.loaded.rssMiB)}, peak ${mib(report.loaded.peakMiB)}` +
      (options.databaseUrl ? ' (the Node process only, not PostgreSQL)' : ''),
    '',
    `| Scenario | Request | ${rpsHeading} | × /healthz | p50 ms | p99 ms | Statuses | Non-2xx/3xx | Unexpected status | Socket errors | Server CPU µs/req |`,
    '| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    ...ratios,
    ...marketTable,
    ...(notes.length > 0 ? ['', 'Problems:', '', ...notes] : []),
    '',
  ].join('\n');
}

function autocannonVersion(): string {
  try {
    const json: unknown = JSON.parse(
      readFileSync(path.join(root, 'node_modules', 'autocannon', 'package.json'), 'utf8'),
    );
    return isRecord(json) && typeof json.version === 'string' ? json.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const host = machine();

  const env = benchEnv('storefront-bench-');
  const database = await databaseKind(options.databaseUrl);
  log(`bench: ${database}; seeding ${int(options.products)} products into store "${options.store}"…`);
  const seeded = await seed(options, env);
  log(`bench: seeded in ${seeded.seconds.toFixed(1)} s; starting the server…`);

  const server = await serve(env, await freePort());
  log(`bench: server pid ${server.pid} ready at ${server.url} in ${server.startupSeconds.toFixed(1)} s`);
  const key = { 'x-publishable-key': seeded.key };
  const prepared = await prepare(server.url, key, seeded.staffToken, options);
  log(
    `bench: deep cursor after item ${int(prepared.walk.depth)} (${prepared.walk.pages} pages walked); ` +
      'measuring idle memory…',
  );
  await sleep(1000);
  const idle = memoryOf(server.pid);
  if (server.tail.problems > 0) log(`bench: the server logged at start-up:\n${server.tail.text(10)}`);
  server.tail.problems = 0;
  server.tail.firstProblem = null;

  const list = scenarios(key, prepared, options.markets);
  const rounds = new Map<ScenarioId, Round[]>(list.map((scenario) => [scenario.id, []]));
  const baselines = new Map<ScenarioId, number[]>(list.map((scenario) => [scenario.id, []]));
  const healthz = list.find((scenario) => scenario.id === 'healthz');
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const scenario of roundOrder(list, round)) {
      const of = options.rounds > 1 ? ` (round ${round} of ${options.rounds})` : '';
      if (options.paired > 0 && healthz && scenario.method === 'GET' && scenario !== healthz) {
        const before = await measureRound(server.url, server.pid, healthz, {
          ...options,
          warmup: 0,
          duration: options.paired,
        });
        baselines.get(scenario.id)?.push(before.requestsPerSecond);
      }
      log(`bench: ${scenario.name}${of}: ${scenario.method} ${scenario.shown} for ${options.duration} s…`);
      const measured = await measureRound(server.url, server.pid, scenario, options);
      rounds.get(scenario.id)?.push(measured);
      const sorted = Float64Array.from(measured.times).sort();
      log(
        `       ${int(measured.requestsPerSecond)} req/s, p50 ${ms(percentile(sorted, 50))} ms, ` +
          `p99 ${ms(percentile(sorted, 99))} ms, statuses ${JSON.stringify(measured.statuses)}, ` +
          `errors ${measured.errors}`,
      );
      if (!alive(server.child)) {
        throw new Error(`the server died during "${scenario.name}":\n${server.tail.text()}`);
      }
    }
  }
  const results = list.map((scenario) =>
    combine(scenario, rounds.get(scenario.id) ?? [], baselines.get(scenario.id) ?? []),
  );
  const loaded = memoryOf(server.pid);

  const text = section({
    options,
    machine: host,
    database,
    autocannonVersion: autocannonVersion(),
    seedSeconds: seeded.seconds,
    startupSeconds: server.startupSeconds,
    idle,
    loaded,
    walk: prepared.walk,
    results,
    serverProblems: server.tail.problems,
    firstServerProblem: server.tail.firstProblem,
  });
  await publish(text, options, log);
}

await runBenchmark(HELP, parseOptions, main);
