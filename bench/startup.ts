/**
 * `npm run bench:startup`: how long `storefront serve` takes to answer /healthz on existing data,
 * and how much memory the process holds idle and after a read load, on PGlite and (with
 * DATABASE_URL) PostgreSQL. Each run spawns a fresh server; runs are interleaved with another
 * checkout's when `--compare DIR` is given, so both are measured under the same machine load.
 * See bench/README.md.
 *
 *   npm run bench:startup -- [--runs 5] [--products 1000] [--idle 3] [--load 10] [--connections 32]
 *                            [--compare DIR] [--output bench/RESULTS.md] [--no-write]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, databaseUrlFromEnv } from './lib/databases.ts';
import { startLoad } from './lib/load.ts';
import { cpuSecondsOf, machine, type Machine, root, run } from './lib/machine.ts';
import { compareCheckout, parseResultsCommandLine, type ResultsTarget } from './lib/options.ts';
import {
  alive,
  cli,
  freePort,
  isRecord,
  requireNode24,
  runBenchmark,
  serve,
  stopChild,
  temporaryDirectory,
  UNLIMITED_RATES,
} from './lib/processes.ts';
import { publish } from './lib/results.ts';

const STORE = 'startup';

const HELP = `Usage: npm run bench:startup -- [options]

  --runs N          server starts per database (and checkout); medians are reported (default 5)
  --products N      benchmark products seeded besides the demo store (default 1000)
  --idle S          seconds after the first 200 on /healthz before the idle memory reading (default 3)
  --load S          seconds of catalog reads on the last run, then the memory again (default 10; 0: none)
  --connections C   concurrent connections of that load (default 32)
  --compare DIR     another checkout of this repository (its own npm ci done), started alternately
                    with this one on the same data, e.g. a worktree of main
  --output FILE     results file (default bench/RESULTS.md)
  --no-write        print the section, do not write the results file

Always measures the embedded database (a fresh temporary DATA_DIR). With DATABASE_URL set it also
measures PostgreSQL: it creates the database <name in the URL>_startup_<timestamp> on that server
and drops it afterwards; the database named in the URL is not touched.
`;

// ---------------------------------------------------------------------------------------------
// Options

interface Options extends ResultsTarget {
  runs: number;
  products: number;
  idle: number;
  load: number;
  connections: number;
  compare: string | null;
  databaseUrl: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const parsed = parseResultsCommandLine(
    argv,
    {
      runs: { default: 5, min: 1, max: 100 },
      products: { default: 1000, min: 1, max: 1_000_000 },
      idle: { default: 3, min: 0, max: 600 },
      load: { default: 10, min: 0, max: 3600 },
      connections: { default: 32, min: 1, max: 10_000 },
    },
    { compare: { type: 'string' } },
  );
  if (parsed === null) return null;
  return {
    ...parsed.integers,
    compare: compareCheckout(parsed.values.compare),
    ...parsed.results,
    databaseUrl: databaseUrlFromEnv(),
  };
}

// ---------------------------------------------------------------------------------------------
// The PostgreSQL database of the run

/** Creates <database of adminUrl>_startup_<timestamp> (dropped at cleanup); its URL and a description. */
async function createStartupDatabase(adminUrl: string): Promise<{ url: string; description: string }> {
  const base = decodeURIComponent(new URL(adminUrl).pathname.slice(1)) || 'storefront';
  const name = `${base}_startup_${Date.now()}`.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 63);
  const created = await createDatabase(adminUrl, name);
  return {
    url: created.url,
    description: `PostgreSQL ${created.version} (${new URL(created.url).host}/${name}, created for the run and dropped after it)`,
  };
}

// ---------------------------------------------------------------------------------------------
// One database: its data, its runs

interface Memory {
  rssMiB: number;
  peakMiB: number;
}

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
  };
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}

interface Checkout {
  label: string;
  dir: string;
  commit: string;
}

interface Run {
  /** Spawn to the first 200 on /healthz. */
  startupMs: number;
  /** CPU time (user + system, all threads) the process used until then. */
  cpuMs: number;
  /** What the server itself logs as startupMs: opening the database to listening. */
  serverStartupMs: number;
  idle: Memory;
}

interface Loaded {
  idle: Memory;
  after: Memory;
  requestsPerSecond: number;
}

interface Target {
  name: string;
  description: string;
  env: NodeJS.ProcessEnv;
  key: string;
}

/** The server's own start-up time from its "listening" log line, NaN if it logged none. */
function serverStartupMs(lines: string[]): number {
  for (const line of lines) {
    const match = /"startupMs":(\d+)/.exec(line);
    if (match?.[1]) return Number(match[1]);
  }
  return Number.NaN;
}

async function productIds(url: string, key: string): Promise<string[]> {
  const response = await fetch(`${url}/storefront/v1/products?limit=20`, {
    headers: { 'x-publishable-key': key },
    signal: AbortSignal.timeout(30_000),
  });
  const body: unknown = await response.json();
  if (!response.ok || !isRecord(body) || !Array.isArray(body.items)) {
    throw new Error(`GET /storefront/v1/products: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.items.flatMap((item) => (isRecord(item) && typeof item.id === 'string' ? [item.id] : []));
}

/** Catalog reads over keep-alive connections: the store, a list page and product pages in turn. */
async function readLoad(url: string, key: string, options: Options): Promise<number> {
  const headers = { 'x-publishable-key': key };
  const ids = await productIds(url, key);
  const requests = [
    { method: 'GET' as const, path: '/storefront/v1/store', headers },
    { method: 'GET' as const, path: '/storefront/v1/products?limit=20', headers },
    ...ids.map((id) => ({ method: 'GET' as const, path: `/storefront/v1/products/${id}`, headers })),
  ];
  const result = await startLoad({ url, connections: options.connections, duration: options.load, requests });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) {
    throw new Error(`the read load had ${bad} failed requests (non-2xx, errors or timeouts)`);
  }
  return result.requests.mean;
}

/** One start at the default log level (info): time to /healthz, the server's own time, idle memory. */
async function measureStart(target: Target, checkout: Checkout, options: Options): Promise<Run> {
  const env = { ...target.env, LOG_LEVEL: 'info' };
  const server = await serve(env, await freePort(), { pollMs: 5, checkout: checkout.dir });
  try {
    const startupMs = server.startupSeconds * 1000;
    const cpuMs = cpuSecondsOf(server.pid) * 1000;
    // The "listening" line follows the first answer by a moment.
    let own = serverStartupMs(server.tail.lines);
    for (let waited = 0; Number.isNaN(own) && waited < 2000; waited += 20) {
      await sleep(20);
      own = serverStartupMs(server.tail.lines);
    }
    await sleep(options.idle * 1000);
    return { startupMs, cpuMs, serverStartupMs: own, idle: memoryOf(server.pid) };
  } finally {
    await stopChild(server.child);
  }
}

/** One more start at LOG_LEVEL=warn (as `npm run bench`): idle memory, the read load, memory again. */
async function measureLoad(target: Target, checkout: Checkout, options: Options): Promise<Loaded> {
  const env = { ...target.env, LOG_LEVEL: 'warn' };
  const server = await serve(env, await freePort(), { pollMs: 5, checkout: checkout.dir });
  try {
    await sleep(options.idle * 1000);
    const idle = memoryOf(server.pid);
    const requestsPerSecond = await readLoad(server.url, target.key, options);
    if (!alive(server.child)) throw new Error(`the server died during the load:\n${server.tail.text()}`);
    return { idle, after: memoryOf(server.pid), requestsPerSecond };
  } finally {
    await stopChild(server.child);
  }
}

async function prepareTarget(
  name: string,
  description: string,
  env: NodeJS.ProcessEnv,
  options: Options,
  log: (line: string) => void,
): Promise<Target> {
  log(`bench: ${description}: migrating, seeding the demo store and ${options.products} products…`);
  await cli(['migrate'], env);
  await cli(['seed', 'demo'], env);
  const tail = await cli(['seed', 'bench', '--products', String(options.products), '--store', STORE], env);
  const key = tail.lines.at(-1)?.trim() ?? '';
  if (!key.startsWith('pk_')) throw new Error(`seed bench printed no publishable key:\n${tail.text()}`);
  return { name, description, env, key };
}

// ---------------------------------------------------------------------------------------------
// The section

function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const int = (n: number): string => (Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US'));
const mib = (n: number): string => (Number.isNaN(n) ? '–' : `${Math.round(n)} MiB`);

interface Measured {
  target: Target;
  checkout: Checkout;
  runs: Run[];
  loaded: Loaded | null;
}

function row(m: Measured): string {
  const startups = m.runs.map((r) => r.startupMs);
  const own = median(m.runs.map((r) => r.serverStartupMs));
  const { loaded } = m;
  const cells = [
    m.target.name,
    m.checkout.label,
    `${int(median(startups))} (${int(Math.min(...startups))}–${int(Math.max(...startups))})`,
    int(median(m.runs.map((r) => r.cpuMs))),
    int(median(startups) - own),
    int(own),
    mib(median(m.runs.map((r) => r.idle.rssMiB))),
    mib(median(m.runs.map((r) => r.idle.peakMiB))),
    loaded ? mib(loaded.idle.rssMiB) : '–',
    loaded ? mib(loaded.after.rssMiB) : '–',
    loaded ? mib(loaded.after.peakMiB) : '–',
    loaded ? int(loaded.requestsPerSecond) : '–',
  ];
  return `| ${cells.join(' | ')} |`;
}

function section(options: Options, m: Machine, measured: Measured[], checkouts: Checkout[]): string {
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const targets = [...new Set(measured.map((x) => x.target))];
  const compared =
    checkouts.length > 1
      ? `; the checkouts alternate within each round (${checkouts.map((c) => `${c.label}: ${c.commit}`).join(', ')})`
      : '';
  return [
    `## ${stamp}: start-up and memory, ${targets.map((t) => t.name).join(' and ')}`,
    '',
    `- Date: ${m.date}`,
    `- Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memory} memory, ${m.os}; load average at start ${m.load}`,
    `- Node ${m.node}, commit ${m.commit}`,
    ...targets.map((t) => `- ${t.name}: ${t.description}`),
    `- Data: the demo store and ${int(options.products)} benchmark products (2 variants each), migrated and ` +
      'seeded before the first run; every run starts `storefront serve` (bin/storefront.js) ' +
      `on it, ${options.runs} run${options.runs === 1 ? '' : 's'} per database${compared}; medians (start-up also min–max)`,
    `- Idle: memory read ${options.idle} s after the first 200 on /healthz (LOG_LEVEL=info, the default). ` +
      (options.load === 0
        ? 'Reads: disabled (`--load 0`).'
        : `Reads: one more start with LOG_LEVEL=warn (as \`npm run bench\`), idle memory, then ${options.load} s of ` +
          `\`GET\` store, product list and 20 product pages in turn on ${options.connections} connections, ` +
          'memory read right after'),
    '',
    '| Database | Checkout | Start-up to /healthz ms | CPU ms until then | Before the server code ms | Server code ms | Idle RSS | Peak (VmHWM) at idle | Reads: idle RSS | RSS after reads | Peak after reads | Reads req/s |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...measured.map(row),
    '',
    '- **CPU ms until then**: user + system time of the server process (all its threads) from its start to the ' +
      'first 200; it depends less on what else runs on the machine than the elapsed time does.',
    '- **Before the server code**: from spawning the process until `serve` opens the database (Node, loading ' +
      'the modules); **server code**: the `startupMs` the server logs, from opening the database to listening ' +
      '(migrations check, keyring, building the app, compiling what it compiles at start).',
    '- RSS is the Node process only; on PostgreSQL the database server is not counted.',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

function commitOf(dir: string): string {
  const head = run('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']);
  const changes = run('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no']);
  return changes !== '' && changes !== 'unknown' ? `${head}-dirty` : head;
}

async function main(options: Options): Promise<void> {
  requireNode24('npm run bench:startup');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const host = machine();
  const checkouts: Checkout[] = [{ label: 'this', dir: root, commit: commitOf(root) }];
  if (options.compare !== null) {
    checkouts.push({ label: 'compared', dir: options.compare, commit: commitOf(options.compare) });
  }

  const tempDir = temporaryDirectory('storefront-startup-');
  const common: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    EMAIL_TRANSPORT: `file:${path.join(tempDir, 'mail')}`,
    ...UNLIMITED_RATES,
  };
  delete common.DATABASE_URL;
  const targets: Target[] = [
    await prepareTarget(
      'PGlite',
      'PGlite (embedded, a temporary DATA_DIR)',
      { ...common, DATA_DIR: path.join(tempDir, 'data') },
      options,
      log,
    ),
  ];
  if (options.databaseUrl !== null) {
    const created = await createStartupDatabase(options.databaseUrl);
    targets.push(
      await prepareTarget(
        'PostgreSQL',
        created.description,
        { ...common, DATABASE_URL: created.url },
        options,
        log,
      ),
    );
  }

  const measured: Measured[] = targets.flatMap((target) =>
    checkouts.map((checkout) => ({ target, checkout, runs: [] as Run[], loaded: null })),
  );
  for (let round = 0; round < options.runs; round += 1) {
    // Alternate the order, so that no checkout or database always follows the same one.
    const order = round % 2 === 0 ? measured : [...measured].reverse();
    for (const m of order) {
      const r = await measureStart(m.target, m.checkout, options);
      m.runs.push(r);
      log(
        `bench: ${m.target.name}, ${m.checkout.label}, run ${round + 1}/${options.runs}: ` +
          `${int(r.startupMs)} ms to /healthz (CPU ${int(r.cpuMs)} ms, server code ${int(r.serverStartupMs)} ms), ` +
          `idle RSS ${mib(r.idle.rssMiB)}, peak ${mib(r.idle.peakMiB)}`,
      );
    }
  }
  if (options.load > 0) {
    for (const m of measured) {
      log(`bench: ${m.target.name}, ${m.checkout.label}: ${options.load} s of reads…`);
      m.loaded = await measureLoad(m.target, m.checkout, options);
      log(
        `       idle RSS ${mib(m.loaded.idle.rssMiB)}; after ${int(m.loaded.requestsPerSecond)} req/s ` +
          `RSS ${mib(m.loaded.after.rssMiB)}, peak ${mib(m.loaded.after.peakMiB)}`,
      );
    }
  }
  await publish(section(options, host, measured, checkouts), options, log);
}

await runBenchmark(HELP, parseOptions, main);
