/**
 * `npm run bench:search`: storefront search (decision `storefront-search`) at 1,000 and at 1,000,000 products.
 *
 * Seeds a small store (`--small`) and a large one (`--products`) with `storefront seed bench` (the
 * bulk import, timed: it keeps the search index current as it goes), starts `storefront serve` and
 * measures, one request at a time, each search shape with a different query on every request (so
 * every one misses the read cache and runs its SQL), then the same URL again and again (cached).
 * With `--compare <checkout>` it also times the same bulk import (`--import` products) with that
 * checkout's `storefront` (e.g. a worktree of the commit before search), so the difference is what
 * keeping the search index current costs an import. Puts a section on top of bench/RESULTS.md.
 *
 * With `--typos` it measures typo searches instead (decision `typos-from-the-store-dictionary`): one
 * store of `--products` (default 100,000) titled from a made-up vocabulary of 20,000 words
 * (`storefront seed bench --words`), each shape a word as typed, with one typo of each kind, with two
 * typos, beside another word, and the facets of a typo, each request another word (uncached).
 *
 *   npm run bench:search -- [--products 1000000] [--small 1000] [--queries 200] [--cached 2000]
 *                           [--import 200000] [--compare DIR] [--output bench/RESULTS.md] [--no-write]
 *   npm run bench:search -- --typos [--products 100000] [--queries 200] [--import 100000] [--compare DIR]
 *
 * With `--markets` (decisions `markets`, `market-cards`) it seeds one store of `--products` (default
 * 100,000), times the creation of a second market through the Admin API (it prices every card there
 * in one statement), then asks each search shape without a country and with `country=DE`, in turn,
 * every request another query (uncached), and gives the ratio of the p50s per shape.
 *
 *   npm run bench:search -- --markets [--products 100000] [--queries 200]
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { BENCH_VOCABULARY, benchWord } from '../src/seed/bench.ts';
import { createDatabase } from './lib/databases.ts';
import { commitOf, machine, root } from './lib/machine.ts';
import { positiveInteger, RESULTS_OPTIONS, resultsTarget, type ResultsTarget } from './lib/options.ts';
import { benchEnv, cli, freePort, isRecord, requireNode24, runBenchmark, serve } from './lib/processes.ts';
import { percentile, publish } from './lib/results.ts';

const HELP = `Usage: npm run bench:search -- [options]

  --products N   products in the large store (default 1000000)
  --small N      products in the small store (default 1000)
  --queries N    uncached requests per search shape and store (default 200)
  --cached N     requests of one cached URL per store (default 2000)
  --import N     products of the import timed against --compare (default 200000)
  --compare DIR  a checkout (e.g. a worktree of the commit before search) whose import to time too
  --typos        typo searches on one store of --products (default 100000) with a real-sized dictionary
  --markets      searches in the default market and in a second one (EUR, country=DE) on one store
                 of --products (default 100000); also times the market's creation
  --output FILE  results file (default bench/RESULTS.md)
  --no-write     print the section, do not write the results file

Without DATABASE_URL the embedded database runs in fresh temporary DATA_DIRs; with it, databases
are created on that server for the run and dropped afterwards.
`;

interface Options extends ResultsTarget {
  products: number;
  small: number;
  queries: number;
  cached: number;
  importCount: number;
  compare: string | null;
  databaseUrl: string | null;
  typos: boolean;
  markets: boolean;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      products: { type: 'string' },
      small: { type: 'string', default: '1000' },
      queries: { type: 'string', default: '200' },
      cached: { type: 'string', default: '2000' },
      import: { type: 'string', default: '200000' },
      compare: { type: 'string' },
      ...RESULTS_OPTIONS,
      typos: { type: 'boolean', default: false },
      markets: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return null;
  return {
    products: positiveInteger(
      '--products',
      values.products ?? (values.typos || values.markets ? '100000' : '1000000'),
      1000,
      10_000_000,
    ),
    small: positiveInteger('--small', values.small, 1000, 1_000_000),
    queries: positiveInteger('--queries', values.queries, 10, 100_000),
    cached: positiveInteger('--cached', values.cached, 10, 1_000_000),
    importCount: positiveInteger('--import', values.import, 1000, 10_000_000),
    compare: values.compare ? path.resolve(values.compare) : null,
    ...resultsTarget(values),
    databaseUrl: process.env.DATABASE_URL ?? null,
    typos: values.typos,
    markets: values.markets,
  };
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => (n < 10 ? n.toFixed(2) : n.toFixed(1));

/** A fresh database for one seeding: a temporary DATA_DIR, or a database on DATABASE_URL's server. */
async function freshEnv(
  options: Options,
  label: string,
): Promise<{ env: NodeJS.ProcessEnv; database: string }> {
  const env = benchEnv(`storefront-search-${label}-`);
  if (!options.databaseUrl) {
    delete env.DATABASE_URL;
    return { env, database: 'PGlite (embedded, fresh temporary DATA_DIR)' };
  }
  const created = await createDatabase(options.databaseUrl, `storefront_search_${label}_${Date.now()}`);
  env.DATABASE_URL = created.url;
  return { env, database: `PostgreSQL ${created.version} (a database created for the run)` };
}

/** `storefront seed bench` into a new store; its publishable key, staff token and the seconds it took. */
async function seed(
  slug: string,
  products: number,
  env: NodeJS.ProcessEnv,
  checkout = root,
  words = false,
): Promise<{ key: string; staffToken: string; seconds: number }> {
  const started = performance.now();
  const tail = await cli(
    ['seed', 'bench', '--products', String(products), '--store', slug, ...(words ? ['--words'] : [])],
    env,
    undefined,
    checkout,
  );
  const key = tail.lines.at(-1)?.trim() ?? '';
  if (!key.startsWith('pk_')) throw new Error(`seed bench printed no publishable key:\n${tail.text()}`);
  const staffToken = /Staff token: (\S+)/.exec(tail.text())?.[1] ?? '';
  return { key, staffToken, seconds: (performance.now() - started) / 1000 };
}

/** The search shapes: each request `n` a different query, so none is answered from the cache. */
const SHAPES: { name: string; path: (n: number) => string }[] = [
  { name: 'a title word, relevance', path: (n) => `/storefront/v1/products?q=${n}` },
  {
    name: 'two words, sorted by price',
    path: (n) => `/storefront/v1/products?q=product%20${n}&sort=price_asc`,
  },
  {
    name: 'tag and price filters, newest first',
    path: (n) => `/storefront/v1/products?tag=group-${n % 10}&minPrice=${1000 + n}&sort=newest`,
  },
  { name: 'facets of a title word', path: (n) => `/storefront/v1/products/facets?q=${n}` },
  { name: 'a typo ("prodcut"), relevance', path: (n) => `/storefront/v1/products?q=prodcut%20${n}` },
];

async function timed(url: string, key: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    headers: { 'x-publishable-key': key },
    signal: AbortSignal.timeout(60_000),
  });
  const body: unknown = await response.json();
  const took = performance.now() - started;
  if (response.status !== 200 || !isRecord(body))
    throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
  return took;
}

function percentiles(times: number[]): { p50: number; p99: number } {
  const sorted = Float64Array.from(times).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:search');
  if (options.typos) return typoMain(options);
  if (options.markets) return marketsMain(options);
  const host = machine();
  const { env, database } = await freshEnv(options, 'main');
  log(`bench: ${database}; seeding ${int(options.small)} and ${int(options.products)} products…`);
  const small = await seed('search-small', options.small, env);
  const large = await seed('search-large', options.products, env);
  log(`bench: seeded in ${small.seconds.toFixed(1)} s and ${large.seconds.toFixed(1)} s`);

  let imports: { here: number; there: number } | null = null;
  if (options.compare) {
    const here = await freshEnv(options, 'import_here');
    const there = await freshEnv(options, 'import_there');
    log(`bench: timing an import of ${int(options.importCount)} products here and in ${options.compare}…`);
    const a = await seed('import', options.importCount, here.env);
    const b = await seed('import', options.importCount, there.env, options.compare);
    imports = { here: a.seconds, there: b.seconds };
  }

  const server = await serve(env, await freePort());
  const stores = [
    [int(options.small), small],
    [int(options.products), large],
  ] as const;
  // Warm the server up (JIT, plans) on queries not measured.
  for (let i = 0; i < 100; i += 1)
    for (const [, store] of stores)
      await timed(`${server.url}${SHAPES[i % SHAPES.length]!.path(900 + i)}`, store.key);

  const rows: string[] = [];
  const ratios: number[] = [];
  for (const shape of SHAPES) {
    const measured: { p50: number; p99: number }[] = [];
    for (const [label, store] of stores) {
      const times: number[] = [];
      for (let i = 0; i < options.queries; i += 1)
        times.push(await timed(`${server.url}${shape.path(100 + ((i * 7) % 800))}`, store.key));
      const result = percentiles(times);
      measured.push(result);
      log(`bench: ${shape.name}, ${label}: p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms`);
    }
    const [a, b] = measured as [{ p50: number; p99: number }, { p50: number; p99: number }];
    ratios.push(b.p50 / a.p50);
    rows.push(
      `| ${shape.name} | ${ms(a.p50)} | ${ms(a.p99)} | ${ms(b.p50)} | ${ms(b.p99)} | ${(b.p50 / a.p50).toFixed(1)}× |`,
    );
  }
  const cachedRows: string[] = [];
  for (const [label, store] of stores) {
    const url = `${server.url}${SHAPES[0]!.path(471)}`;
    await timed(url, store.key);
    const times: number[] = [];
    for (let i = 0; i < options.cached; i += 1) times.push(await timed(url, store.key));
    const result = percentiles(times);
    log(`bench: cached, ${label}: p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms`);
    cachedRows.push(`${label}: p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms`);
  }

  const text = [
    `## ${new Date().toISOString().slice(0, 19)}Z: search at ${int(options.small)} and ${int(options.products)} products, ${options.databaseUrl ? 'PostgreSQL' : 'PGlite'}`,
    '',
    `${host.date}, commit ${host.commit}, ${host.nproc} × ${host.cpu}, ${host.memory}, ` +
      `Node ${host.node}, ${host.os}, load ${host.load}; ${database}. \`npm run bench:search -- --products ${options.products} --small ${options.small} --queries ${options.queries}\`.`,
    '',
    `Stores of ${int(options.small)} and ${int(options.products)} products (\`storefront seed bench\`: titles "Bench Product N", two variants, ten tags), seeded in ${small.seconds.toFixed(1)} s and ${large.seconds.toFixed(1)} s. One request at a time through HTTP; every request a different query (n from 100 to 899), so each runs its SQL (no read cache).`,
    '',
    `| Search (uncached) | ${stores.map(([label]) => `${label}: p50 ms | p99 ms`).join(' | ')} | p50 ratio |`,
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Cached (the same URL ${int(options.cached)} times): ${cachedRows.join('; ')}.`,
    '',
    imports
      ? `Bulk import of ${int(options.importCount)} products: ${imports.here.toFixed(1)} s with the search index, ${imports.there.toFixed(1)} s at ${commitOf(options.compare ?? root)} (${options.compare}): ${((imports.here / imports.there - 1) * 100).toFixed(0)} % for keeping the index current.`
      : 'Bulk import comparison: not run (pass --compare).',
    '',
  ].join('\n');
  await publish(text, options, log);
}

/** Word `n` of the vocabulary with at least `letters` letters (every one is in some title at 100k). */
function wordOf(n: number, letters: number): string {
  for (let i = (n * 7919) % BENCH_VOCABULARY; ; i = (i + 1) % BENCH_VOCABULARY) {
    const word = benchWord(i);
    if (word.length >= letters) return word;
  }
}

/** One typo of kind `kind` (0–3: deletion, insertion, substitution, swap) at `at` (never the first letter). */
function typo(word: string, kind: number, at: number): string {
  const i = 1 + (at % (word.length - 2));
  if (kind === 0) return word.slice(0, i) + word.slice(i + 1);
  if (kind === 1) return `${word.slice(0, i)}x${word.slice(i)}`;
  if (kind === 2) return `${word.slice(0, i)}${word[i] === 'q' ? 'x' : 'q'}${word.slice(i + 1)}`;
  return word.slice(0, i) + word[i + 1]! + word[i]! + word.slice(i + 2);
}

const TYPO_SHAPES: { name: string; path: (n: number) => string }[] = [
  { name: 'a word as typed (5+ letters)', path: (n) => `/storefront/v1/products?q=${wordOf(n, 5)}` },
  ...['deleted', 'inserted', 'substituted', 'swapped'].map((kind, k) => ({
    name: `one typo, a letter ${kind}`,
    path: (n: number) => `/storefront/v1/products?q=${typo(wordOf(n, 5), k, n)}`,
  })),
  {
    name: 'two typos in a 9-letter word',
    path: (n) => `/storefront/v1/products?q=${typo(typo(wordOf(n, 9), n % 4, n), (n + 1) % 4, n + 3)}`,
  },
  {
    name: 'two words, one with a typo',
    path: (n) => `/storefront/v1/products?q=${wordOf(n + 1, 4)}%20${typo(wordOf(n, 5), n % 4, n)}`,
  },
  {
    name: 'facets of a word with a typo',
    path: (n) => `/storefront/v1/products/facets?q=${typo(wordOf(n, 5), n % 4, n)}`,
  },
];

/** `--typos`: typo searches against the same words as typed, on one store with a large dictionary. */
async function typoMain(options: Options): Promise<void> {
  const host = machine();
  const { env, database } = await freshEnv(options, 'typos');
  log(
    `bench: ${database}; seeding ${int(options.products)} products titled from ${int(BENCH_VOCABULARY)} words…`,
  );
  const store = await seed('search-typos', options.products, env, root, true);
  log(`bench: seeded in ${store.seconds.toFixed(1)} s`);
  let imports: { here: number; there: number } | null = null;
  if (options.compare) {
    const here = await freshEnv(options, 'import_here');
    const there = await freshEnv(options, 'import_there');
    log(`bench: timing an import of ${int(options.importCount)} products here and in ${options.compare}…`);
    imports = {
      here: (await seed('import', options.importCount, here.env)).seconds,
      there: (await seed('import', options.importCount, there.env, options.compare)).seconds,
    };
  }
  const server = await serve(env, await freePort());
  for (let i = 0; i < 100; i += 1)
    await timed(`${server.url}${TYPO_SHAPES[i % TYPO_SHAPES.length]!.path(90_000 + i)}`, store.key);
  // Round-robin over the shapes, so a change in the machine's other load falls on all of them alike.
  const times = TYPO_SHAPES.map((): number[] => []);
  for (let i = 0; i < options.queries; i += 1)
    for (const [s, shape] of TYPO_SHAPES.entries())
      times[s]!.push(await timed(`${server.url}${shape.path(100 + i * 13)}`, store.key));
  const measured = times.map(percentiles);
  const exact = measured[0]!.p50;
  const rows = TYPO_SHAPES.map((shape, s) => {
    const { p50, p99 } = measured[s]!;
    log(`bench: ${shape.name}: p50 ${ms(p50)} ms, p99 ${ms(p99)} ms`);
    return `| ${shape.name} | ${ms(p50)} | ${ms(p99)} | ${(p50 / exact).toFixed(1)}× |`;
  });
  const text = [
    `## ${new Date().toISOString().slice(0, 19)}Z: typo search at ${int(options.products)} products, ${options.databaseUrl ? 'PostgreSQL' : 'PGlite'}`,
    '',
    `${host.date}, commit ${host.commit}, ${host.nproc} × ${host.cpu}, ${host.memory}, ` +
      `Node ${host.node}, ${host.os}, load ${host.load}; ${database}. \`npm run bench:search -- --typos --products ${options.products} --queries ${options.queries}\`.`,
    '',
    `One store of ${int(options.products)} products titled with three words each of a made-up vocabulary of ${int(BENCH_VOCABULARY)} words of 4 to 9 letters (\`storefront seed bench --words\`: about ${int((options.products * 3) / BENCH_VOCABULARY)} titles a word, seeded in ${store.seconds.toFixed(1)} s). One request at a time through HTTP, ${int(options.queries)} per shape, the shapes in turn, every request another word (no read cache).`,
    '',
    '| Search (uncached) | p50 ms | p99 ms | p50 vs as typed |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    imports
      ? `Bulk import of ${int(options.importCount)} products ("Bench Product N"): ${imports.here.toFixed(1)} s with the dictionary, ${imports.there.toFixed(1)} s at ${commitOf(options.compare ?? root)} (${options.compare}): ${((imports.here / imports.there - 1) * 100).toFixed(0)} % for keeping it current.`
      : 'Bulk import comparison: not run (pass --compare).',
    '',
  ].join('\n');
  await publish(text, options, log);
}

/** The second market of `--markets`: Europe, DE, in EUR at 0.92 with the .99 rounding. */
const EUROPE = {
  name: 'Europe',
  countries: ['DE'],
  currency: 'EUR',
  exchangeRate: '0.92',
  rounding: 'to_99',
};

/**
 * The shapes of `--markets`, each request `n` (100–899) another query: those scoped by a title word
 * (`q=471` finds about 111 products of 100,000) and two across the whole catalog (every product is a
 * candidate, so a price read per product or per variant shows at full size). A market's prices are
 * its own (EUR at 0.92, .99 rounding: a S variant of 10.00–19.90 costs 9.99–18.99 there), so the
 * same bounds keep about the same share of the catalog in both.
 */
const MARKET_SHAPES: { name: string; path: (n: number) => string }[] = [
  { name: 'a title word, relevance', path: (n) => `/storefront/v1/products?q=${n}` },
  {
    name: 'a title word, price filter',
    path: (n) => `/storefront/v1/products?q=${n}&minPrice=1000&maxPrice=1490`,
  },
  {
    name: 'two words, sort=price_asc',
    path: (n) => `/storefront/v1/products?q=product%20${n}&sort=price_asc`,
  },
  { name: 'facets of a title word', path: (n) => `/storefront/v1/products/facets?q=${n}` },
  {
    name: 'whole catalog, price filter (newest first)',
    path: (n) => `/storefront/v1/products?minPrice=${1000 + n}&maxPrice=${1490 + n}&sort=newest`,
  },
  {
    name: 'whole catalog, sort=price_asc (maxPrice)',
    path: (n) => `/storefront/v1/products?maxPrice=${1500 + n}&sort=price_asc`,
  },
];

async function getJson(url: string, key: string): Promise<unknown> {
  const response = await fetch(url, {
    headers: { 'x-publishable-key': key },
    signal: AbortSignal.timeout(60_000),
  });
  const body: unknown = await response.json();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** What an answer found: a page's items, or the facets' total. */
function foundIn(body: unknown): { found: number; currency: unknown } {
  if (!isRecord(body)) return { found: 0, currency: undefined };
  if (Array.isArray(body.items)) {
    const first: unknown = body.items[0];
    return { found: body.items.length, currency: isRecord(first) ? first.currency : undefined };
  }
  return { found: typeof body.total === 'number' ? body.total : 0, currency: body.currency };
}

/** `--markets`: the same searches in the default market and in a second market (`country=DE`). */
async function marketsMain(options: Options): Promise<void> {
  const host = machine();
  const { env, database } = await freshEnv(options, 'markets');
  log(`bench: ${database}; seeding ${int(options.products)} products…`);
  const store = await seed('search-markets', options.products, env);
  log(`bench: seeded in ${store.seconds.toFixed(1)} s`);
  if (store.staffToken === '') throw new Error('seed bench printed no staff token');
  const server = await serve(env, await freePort());

  const started = performance.now();
  const created = await fetch(`${server.url}/admin/v1/markets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${store.staffToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(EUROPE),
    signal: AbortSignal.timeout(600_000),
  });
  const creationSeconds = (performance.now() - started) / 1000;
  const createdBody = await created.text();
  if (created.status !== 201) throw new Error(`POST /admin/v1/markets: ${created.status} ${createdBody}`);
  log(`bench: market Europe created in ${creationSeconds.toFixed(2)} s`);

  const markets = [
    ['default (USD)', ''],
    ['Europe (EUR, country=DE)', '&country=DE'],
  ] as const;
  const urlOf = (shape: (typeof MARKET_SHAPES)[number], n: number, country: string): string => {
    const path = shape.path(n);
    return `${server.url}${path}${path.includes('?') ? country : country.replace('&', '?')}`;
  };
  // Each shape finds something in both markets, and the market's answer is in its currency.
  const found: string[] = [];
  for (const shape of MARKET_SHAPES) {
    const counts: number[] = [];
    for (const [label, country] of markets) {
      const answer = foundIn(await getJson(urlOf(shape, 105, country), store.key));
      if (answer.found === 0) throw new Error(`${shape.name}, ${label}: found nothing`);
      const currency = country === '' ? 'USD' : 'EUR';
      // (A facets answer without a country names no currency: it is answered as before markets.)
      if (answer.currency !== currency && !(country === '' && answer.currency === undefined))
        throw new Error(`${shape.name}, ${label}: currency ${String(answer.currency)}, not ${currency}`);
      counts.push(answer.found);
    }
    found.push(`${shape.name} ${counts.join(' / ')}`);
  }
  for (let i = 0; i < 50; i += 1)
    for (const [, country] of markets)
      await timed(urlOf(MARKET_SHAPES[i % MARKET_SHAPES.length]!, 90_000 + i, country), store.key);

  // Round-robin over the shapes and the markets, so a change in the machine's other load falls on
  // all alike; the markets take turns at going first, since the second request of a query finds its
  // pages (and the word's typo check) warm.
  const times = MARKET_SHAPES.map(() => markets.map((): number[] => []));
  for (let i = 0; i < options.queries; i += 1)
    for (const [s, shape] of MARKET_SHAPES.entries())
      for (const m of i % 2 === 0 ? [0, 1] : [1, 0])
        times[s]![m]!.push(await timed(urlOf(shape, 100 + ((i * 7) % 800), markets[m]![1]), store.key));
  const rows = MARKET_SHAPES.map((shape, s) => {
    const [a, b] = times[s]!.map((list) => {
      const sorted = Float64Array.from(list).sort();
      return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
    }) as [{ p50: number; p95: number }, { p50: number; p95: number }];
    log(
      `bench: ${shape.name}: default p50 ${ms(a.p50)} p95 ${ms(a.p95)}; Europe p50 ${ms(b.p50)} p95 ${ms(b.p95)}; ` +
        `${(b.p50 / a.p50).toFixed(2)}×`,
    );
    return `| ${shape.name} | \`${shape.path(105).replace('/storefront/v1', '')}\` | ${ms(a.p50)} | ${ms(a.p95)} | ${ms(b.p50)} | ${ms(b.p95)} | ${(b.p50 / a.p50).toFixed(2)}× |`;
  });

  const text = [
    `## ${new Date().toISOString().slice(0, 19)}Z: search in a second market at ${int(options.products)} products, ${options.databaseUrl ? 'PostgreSQL' : 'PGlite'}`,
    '',
    `${host.date}, commit ${host.commit}, ${host.nproc} × ${host.cpu}, ${host.memory}, ` +
      `Node ${host.node}, ${host.os}, load ${host.load}; ${database}. \`npm run bench:search -- --markets --products ${options.products} --queries ${options.queries}\`.`,
    '',
    `One store of ${int(options.products)} products (\`storefront seed bench\`, seeded in ${store.seconds.toFixed(1)} s), then a market \`POST /admin/v1/markets ${JSON.stringify(EUROPE)}\`: **created in ${creationSeconds.toFixed(2)} s** (the request: the market, its country, the statement that prices its ${int(options.products)} cards and the price history of its ${int(options.products * 2)} variants, in one transaction). Then one request at a time through HTTP, ${int(options.queries)} per shape and market, the shapes and the markets in turn, every request another query (n from 100 to 899; no read cache), each query in both markets, the markets going first in turn. Found by n = 105 (items of the first page, or the facets' total), default / Europe: ${found.join('; ')}.`,
    '',
    '| Search (uncached) | Request (n = 105; with `&country=DE` in Europe) | default p50 ms | p95 ms | Europe p50 ms | p95 ms | p50 Europe / default |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
  await publish(text, options, log);
}

await runBenchmark(HELP, parseOptions, main);
