/**
 * `npm run bench:scale`: does the storefront's product list stay as fast at a million products?
 *
 * Seeds a small store (`--small`, 1,000 products) and a large one (`--products`, 1,000,000) with
 * `storefront seed bench`, timing each seed, into one database: a fresh temporary DATA_DIR, or a
 * database created for the run on the PostgreSQL server of DATABASE_URL (dropped afterwards).
 * Starts `storefront serve`, walks each store's list to a cursor ~90 % deep, then measures the
 * first page and that deep page of both stores with autocannon at modest concurrency, the four
 * scenarios interleaved over several rounds, and puts a section on top of bench/RESULTS.md.
 * See bench/README.md.
 *
 *   npm run bench:scale -- [--products 1000000] [--small 1000] [--duration 10] [--connections 8]
 *                          [--warmup 1] [--rounds 3] [--output bench/RESULTS.md] [--no-write]
 */
import type autocannon from 'autocannon';
import { createDatabase, databaseUrlFromEnv } from './lib/databases.ts';
import { startLoad } from './lib/load.ts';
import { cpuSecondsOf, machine, type Machine } from './lib/machine.ts';
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

const HELP = `Usage: npm run bench:scale -- [options]

  --products N      products in the large store (default 1000000)
  --small N         products in the small store (default 1000)
  --duration S      recorded seconds per scenario and round (default 10)
  --connections C   concurrent connections (default 8)
  --warmup S        unrecorded seconds before each scenario (default 1; 0 disables)
  --rounds R        rounds of the four scenarios, rotated; median requests/s (default 3)
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file

Without DATABASE_URL the embedded database runs in a fresh temporary DATA_DIR. With it, the
benchmark creates a database storefront_scale_<timestamp> on that PostgreSQL server for the run and
drops it afterwards (WITH (FORCE)); the database named in the URL is left alone.
`;

// ---------------------------------------------------------------------------------------------
// Options

interface Options extends ResultsTarget {
  products: number;
  small: number;
  duration: number;
  connections: number;
  warmup: number;
  rounds: number;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(argv, {
    products: { default: 1_000_000, min: 200, max: 10_000_000 },
    small: { default: 1000, min: 200, max: 10_000_000 },
    duration: { default: 10, min: 1, max: 3600 },
    connections: { default: 8, min: 1, max: 10_000 },
    warmup: { default: 1, min: 0, max: 600 },
    rounds: { default: 3, min: 1, max: 100 },
  });
  if (parsed === null) return null;
  const { integers } = parsed;
  if (integers.small >= integers.products) throw new UsageError('--small must be below --products');
  return { ...integers, ...parsed.results, databaseUrl: databaseUrlFromEnv() };
}

// ---------------------------------------------------------------------------------------------
// Seeding

interface Seeded {
  slug: string;
  products: number;
  key: string;
  seconds: number;
}

/** `storefront seed bench` into a new store; its progress lines are passed on to `log`. */
async function seed(
  slug: string,
  products: number,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<Seeded> {
  const started = performance.now();
  const tail = await cli(['seed', 'bench', '--products', String(products), '--store', slug], env, (line) => {
    if (/^\s*\d+ %/.test(line)) log(`bench:   ${line.trim()}`);
  });
  const key = tail.lines.at(-1)?.trim() ?? '';
  if (!key.startsWith('pk_')) throw new Error(`seed bench printed no publishable key:\n${tail.text()}`);
  return { slug, products, key, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// The deep cursor

interface Walk {
  cursor: string;
  depth: number;
  pages: number;
  pageSize: number;
  firstPagesMs: number;
  lastPagesMs: number;
}

async function productPage(
  base: string,
  key: string,
  limit: number,
  cursor: string | null,
): Promise<{ count: number; nextCursor: string | null }> {
  const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const response = await fetch(`${base}/storefront/v1/products?${query}`, {
    headers: { 'x-publishable-key': key },
    signal: AbortSignal.timeout(30_000),
  });
  const body: unknown = await response.json();
  if (response.status !== 200 || !isRecord(body) || !Array.isArray(body.items)) {
    throw new Error(`GET /products: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  const nextCursor = body.nextCursor;
  if (nextCursor !== null && typeof nextCursor !== 'string') throw new Error('GET /products: bad nextCursor');
  return { count: body.items.length, nextCursor };
}

/**
 * Walks a store's product list with 100-item pages until about 90 % of it is behind the cursor,
 * timing the pages (one connection, no load): keyset pages should cost the same at any depth.
 */
async function walkDeep(base: string, store: Seeded, log: (line: string) => void): Promise<Walk> {
  const pageSize = 100;
  const target = Math.floor(store.products * 0.9);
  let cursor: string | null = null;
  let depth = 0;
  let reported = 0;
  const times: number[] = [];
  while (depth < target) {
    const started = performance.now();
    const page: { count: number; nextCursor: string | null } = await productPage(
      base,
      store.key,
      pageSize,
      cursor,
    );
    times.push(performance.now() - started);
    if (page.nextCursor === null) break;
    depth += page.count;
    cursor = page.nextCursor;
    const tenth = Math.floor((depth / target) * 10);
    if (store.products >= 100_000 && tenth > reported) {
      reported = tenth;
      log(`bench:   ${store.slug}: ${depth.toLocaleString('en-US')} items behind the cursor`);
    }
  }
  if (cursor === null) throw new Error(`store ${store.slug} has fewer than two pages`);
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const edge = Math.max(1, Math.min(50, Math.floor(times.length / 2)));
  return {
    cursor,
    depth,
    pages: times.length,
    pageSize,
    firstPagesMs: mean(times.slice(0, edge)),
    lastPagesMs: mean(times.slice(-edge)),
  };
}

// ---------------------------------------------------------------------------------------------
// Scenarios

type StoreSize = 'small' | 'large';
type PageKind = 'first' | 'deep';

interface Scenario {
  store: StoreSize;
  page: PageKind;
  name: string;
  path: string;
  key: string;
}

interface Round {
  requestsPerSecond: number;
  times: number[];
  statuses: Record<string, number>;
  errors: number;
  cpuSeconds: number;
}

interface Measured {
  scenario: Scenario;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Percentiles while the four scenarios ran at the same time. */
  togetherP50: number;
  togetherP99: number;
  responses: number;
  statuses: Record<string, number>;
  /** Responses other than 200, and socket errors. */
  bad: number;
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
    method: 'GET',
    headers: { 'x-publishable-key': scenario.key },
    connections,
    duration,
  });
}

async function measureRound(base: string, pid: number, scenario: Scenario, options: Options): Promise<Round> {
  if (options.warmup > 0) await cannon(base, scenario, options.connections, options.warmup);
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
    errors: result.errors,
    cpuSeconds: cpuSecondsOf(pid) - cpuBefore,
  };
}

/** What one scenario got while all of them ran at once. */
interface Together {
  /** Response times of its 200s. */
  times: number[];
  /** Other responses and socket errors. */
  bad: number;
}

/**
 * Runs every scenario at the same time, `connections` each: they share whatever else the machine
 * is doing, so their latencies compare even when that changes from one second to the next.
 */
async function measureTogether(
  base: string,
  list: readonly Scenario[],
  connections: number,
  options: Options,
): Promise<Map<Scenario, Together>> {
  if (options.warmup > 0) {
    await Promise.all(list.map((scenario) => cannon(base, scenario, connections, options.warmup)));
  }
  const measured = new Map<Scenario, Together>();
  await Promise.all(
    list.map(async (scenario) => {
      const together: Together = { times: [], bad: 0 };
      measured.set(scenario, together);
      const instance = cannon(base, scenario, connections, options.duration);
      instance.on('response', (_client, status, _bytes, ms) => {
        if (status === 200) together.times.push(ms);
        else together.bad += 1;
      });
      together.bad += (await instance).errors;
    }),
  );
  return measured;
}

function combine(scenario: Scenario, rounds: Round[], together: Together[]): Measured {
  const sorted = Float64Array.from(rounds.flatMap((r) => r.times)).sort();
  const sortedTogether = Float64Array.from(together.flatMap((t) => t.times)).sort();
  const statuses: Record<string, number> = {};
  for (const round of rounds) {
    for (const [code, count] of Object.entries(round.statuses))
      statuses[code] = (statuses[code] ?? 0) + count;
  }
  const responses = Object.values(statuses).reduce((a, b) => a + b, 0);
  const errors = rounds.reduce((a, r) => a + r.errors, 0);
  const cpu = rounds.reduce((a, r) => a + r.cpuSeconds, 0);
  return {
    scenario,
    requestsPerSecond: median(rounds.map((r) => r.requestsPerSecond)),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    togetherP50: percentile(sortedTogether, 50),
    togetherP99: percentile(sortedTogether, 99),
    responses,
    statuses,
    bad: responses - (statuses['200'] ?? 0) + errors + together.reduce((a, t) => a + t.bad, 0),
    serverCpuMicrosPerRequest: responses > 0 ? (cpu * 1e6) / responses : Number.NaN,
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–');
const ratio = (a: number, b: number): string =>
  b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : '–';

interface Report {
  options: Options;
  machine: Machine;
  database: string;
  seeded: Record<StoreSize, Seeded>;
  walks: Record<StoreSize, Walk>;
  startupSeconds: number;
  eachTogether: number;
  results: Measured[];
  serverProblems: number;
  firstServerProblem: string | null;
}

function section(report: Report): string {
  const { options, machine: m, seeded, walks, results } = report;
  const by = (store: StoreSize, page: PageKind): Measured | undefined =>
    results.find((r) => r.scenario.store === store && r.scenario.page === page);
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const kind = options.databaseUrl ? 'PostgreSQL' : 'PGlite';
  const large = seeded.large;
  const rows = results.map((r) => {
    const statuses = Object.entries(r.statuses)
      .map(([code, count]) => `${code}: ${int(count)}`)
      .join(', ');
    return `| ${r.scenario.name} | ${int(r.requestsPerSecond)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(
      r.togetherP50,
    )} | ${ms(r.togetherP99)} | ${statuses || '–'} | ${int(r.bad)} | ${int(r.serverCpuMicrosPerRequest)} |`;
  });
  const line = (what: string, a: Measured | undefined, b: Measured | undefined, target: string): string =>
    a && b
      ? `- ${what}: p50 **${ratio(a.togetherP50, b.togetherP50)}** at the same time ` +
        `(${ratio(a.p50, b.p50)} one after the other), p99 ${ratio(a.togetherP99, b.togetherP99)} ` +
        `(${ratio(a.p99, b.p99)}), requests/s ${ratio(a.requestsPerSecond, b.requestsPerSecond)}, ` +
        `server CPU per request ${ratio(a.serverCpuMicrosPerRequest, b.serverCpuMicrosPerRequest)} (${target}).`
      : `- ${what}: not measured.`;
  const walkLine = (store: StoreSize): string => {
    const walk = walks[store];
    return (
      `${int(seeded[store].products)} products: ${int(walk.pages)} pages of ${walk.pageSize} to item ` +
      `${int(walk.depth)}, first pages ${ms(walk.firstPagesMs)} ms, last pages ${ms(walk.lastPagesMs)} ms each ` +
      `(${ratio(walk.lastPagesMs, walk.firstPagesMs)})`
    );
  };
  const problems: string[] = [];
  for (const r of results.filter((x) => x.bad > 0)) {
    problems.push(`- **${r.scenario.name}**: ${int(r.bad)} responses other than 200 or socket errors.`);
  }
  if (report.serverProblems > 0) {
    problems.push(serverProblemsNote(report.serverProblems, report.firstServerProblem));
  }
  return [
    `## ${stamp}: scale, ${kind}, ${int(options.small)} vs ${int(options.products)} products`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memory} memory, ${m.os}; load average at start ${m.load}`,
    `- Node ${m.node}, commit ${m.commit}`,
    `- Database: ${report.database}`,
    `- Seeding (\`storefront seed bench\`, the whole command: start-up, migrations, products, key): ` +
      `${int(seeded.small.products)} products in ${seeded.small.seconds.toFixed(1)} s; ` +
      `**${int(large.products)} products in ${large.seconds.toFixed(1)} s** ` +
      `(${int(large.products / large.seconds)} products/s), both stores in the same database`,
    `- Load: ${options.rounds} round${options.rounds === 1 ? '' : 's'}, each the four scenarios one after ` +
      `the other (${options.connections} connections, rotated one place per round), then all four at the ` +
      `same time (${report.eachTogether} connections each); ${options.duration} s per run after ` +
      `${options.warmup} s of warm-up; req/s is the median of the rounds' means, p50/p99 are over every ` +
      `response; client and server on the same machine; server ready in ${report.startupSeconds.toFixed(1)} s`,
    '',
    '| Scenario | req/s | p50 ms | p99 ms | p50 ms, all at once | p99 ms, all at once | Statuses | Bad | Server CPU µs/req |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
    ...rows,
    '',
    line(
      `First page, ${int(options.products)} vs ${int(options.small)} products`,
      by('large', 'first'),
      by('small', 'first'),
      'target: p50 ≤ 1.2×',
    ),
    line(
      `Deep page, ${int(options.products)} vs ${int(options.small)} products`,
      by('large', 'deep'),
      by('small', 'deep'),
      'should be ≈ 1×',
    ),
    line(
      `Deep vs first page, ${int(options.products)} products`,
      by('large', 'deep'),
      by('large', 'first'),
      'target: ≈ 1×',
    ),
    line(
      `Deep vs first page, ${int(options.small)} products`,
      by('small', 'deep'),
      by('small', 'first'),
      'should be ≈ 1×',
    ),
    `- Sequential walk to the deep cursor (one connection, no load): ${walkLine('small')}; ${walkLine('large')}.`,
    ...(problems.length > 0 ? ['', 'Problems:', '', ...problems] : []),
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:scale');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const host = machine();

  const env = benchEnv('storefront-scale-');
  let database = 'PGlite (embedded, fresh temporary DATA_DIR)';
  if (options.databaseUrl) {
    const created = await createDatabase(options.databaseUrl, `storefront_scale_${Date.now()}`);
    env.DATABASE_URL = created.url;
    database = `PostgreSQL ${created.version} (${new URL(created.url).host}/${created.name}, created for the run and dropped after it)`;
  }
  log(`bench: ${database}`);
  log(`bench: seeding ${int(options.small)} products into store "scale-small"…`);
  const small = await seed('scale-small', options.small, env, log);
  log(
    `bench: seeded in ${small.seconds.toFixed(1)} s; seeding ${int(options.products)} products into "scale-large"…`,
  );
  const large = await seed('scale-large', options.products, env, log);
  log(
    `bench: seeded in ${large.seconds.toFixed(1)} s (${int(options.products / large.seconds)} products/s); starting the server…`,
  );

  const server = await serve(env, await freePort());
  log(`bench: server pid ${server.pid} ready at ${server.url} in ${server.startupSeconds.toFixed(1)} s`);
  // A fresh server runs its first requests unoptimised: warm it up before timing the walks.
  for (let i = 0; i < 200; i += 1) await productPage(server.url, (i % 2 ? small : large).key, 100, null);
  const walks = {
    small: await walkDeep(server.url, small, log),
    large: await walkDeep(server.url, large, log),
  };
  log(`bench: deep cursors after items ${int(walks.small.depth)} and ${int(walks.large.depth)}`);
  server.tail.problems = 0;
  server.tail.firstProblem = null;

  const api = '/storefront/v1/products?limit=20';
  const list: Scenario[] = [];
  for (const [store, seeded] of [
    ['small', small],
    ['large', large],
  ] as const) {
    const size = int(seeded.products);
    list.push(
      { store, page: 'first', name: `${size} products, first page`, path: api, key: seeded.key },
      {
        store,
        page: 'deep',
        name: `${size} products, deep page (after item ${int(walks[store].depth)})`,
        path: `${api}&cursor=${encodeURIComponent(walks[store].cursor)}`,
        key: seeded.key,
      },
    );
  }
  const rounds = new Map<Scenario, Round[]>(list.map((scenario) => [scenario, []]));
  const together = new Map<Scenario, Together[]>(list.map((scenario) => [scenario, []]));
  const eachTogether = Math.max(1, Math.round(options.connections / list.length));
  for (let round = 1; round <= options.rounds; round += 1) {
    const shift = (round - 1) % list.length;
    for (const scenario of [...list.slice(shift), ...list.slice(0, shift)]) {
      log(`bench: ${scenario.name} (round ${round} of ${options.rounds}) for ${options.duration} s…`);
      const measured = await measureRound(server.url, server.pid, scenario, options);
      rounds.get(scenario)?.push(measured);
      const sorted = Float64Array.from(measured.times).sort();
      log(
        `       ${int(measured.requestsPerSecond)} req/s, p50 ${ms(percentile(sorted, 50))} ms, ` +
          `p99 ${ms(percentile(sorted, 99))} ms, statuses ${JSON.stringify(measured.statuses)}, errors ${measured.errors}`,
      );
      if (!alive(server.child)) {
        throw new Error(`the server died during "${scenario.name}":\n${server.tail.text()}`);
      }
    }
    log(`bench: all four at once, ${eachTogether} connections each (round ${round} of ${options.rounds})…`);
    for (const [scenario, measured] of await measureTogether(server.url, list, eachTogether, options)) {
      together.get(scenario)?.push(measured);
      const sorted = Float64Array.from(measured.times).sort();
      log(
        `       ${scenario.name}: p50 ${ms(percentile(sorted, 50))} ms, p99 ${ms(percentile(sorted, 99))} ms`,
      );
    }
    if (!alive(server.child)) throw new Error(`the server died:\n${server.tail.text()}`);
  }
  const text = section({
    options,
    machine: host,
    database,
    seeded: { small, large },
    walks,
    startupSeconds: server.startupSeconds,
    eachTogether,
    results: list.map((scenario) =>
      combine(scenario, rounds.get(scenario) ?? [], together.get(scenario) ?? []),
    ),
    serverProblems: server.tail.problems,
    firstServerProblem: server.tail.firstProblem,
  });
  await publish(text, options, log);
}

await runBenchmark(HELP, parseOptions, main);
