/**
 * What the benchmark scripts (bench/run.ts, bench/webhooks.ts, bench/purchase.ts) share: option
 * parsing helpers, `storefront` child processes with their output, cleanup on exit or a signal,
 * databases made for a run, the machine description, /proc readings, percentiles, and writing a
 * section into bench/RESULTS.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import * as prettier from 'prettier';

/**
 * Rate-limit budgets no benchmark can reach (every load comes from one client address): the
 * configuration's upper bounds (src/config.ts); a key's budget is at least 50 clients' (decision `key-budget-is-a-safety-cap`).
 */
export const UNLIMITED_RATES = {
  RATE_LIMIT_READ: '1000000000',
  RATE_LIMIT_WRITE: '1000000000',
  RATE_LIMIT_IP_READ: '10000000',
  RATE_LIMIT_IP_WRITE: '10000000',
  RATE_LIMIT_ADMIN_IP: '10000000',
  RATE_LIMIT_ADMIN_READ: '10000000',
  RATE_LIMIT_ADMIN_WRITE: '10000000',
} as const;

/** The repository root. */
export const root = path.resolve(import.meta.dirname, '..');

/** The `storefront` command of a checkout (what `npm start` and `npx storefront` run). */
function entryOf(checkout: string): string {
  return path.join(checkout, 'bin', 'storefront.js');
}

/** Where a `storefront` child runs from: this checkout, or another one (an A/B comparison). */
export interface Checkout {
  /** The checkout's root directory (holding bin/storefront.js and node_modules). */
  root: string;
}

// ---------------------------------------------------------------------------------------------
// Options

/** A bad command-line option: the scripts print the message and the help, and exit 2. */
export class UsageError extends Error {}

/** Parses `--name` as an integer in [min, max], or throws a UsageError naming the option. */
export function positiveInteger(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** `--compare DIR`: the absolute path of another checkout of this project, or null when not given. */
export function compareCheckout(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const compare = path.resolve(raw);
  if (!existsSync(path.join(compare, 'bin', 'storefront.js')))
    throw new UsageError(`--compare must be a checkout of this project (no bin/storefront.js in ${compare})`);
  return compare;
}

/**
 * `--output FILE` and `--no-write`, the options of every script that writes a section into
 * bench/RESULTS.md (spread into parseArgs's options).
 */
export const RESULTS_OPTIONS = {
  output: { type: 'string', default: path.join(root, 'bench', 'RESULTS.md') },
  'no-write': { type: 'boolean', default: false },
} as const;

/** Where a script's section goes: the results file, and whether to write it (false: print only). */
export interface ResultsTarget {
  output: string;
  write: boolean;
}

/** The ResultsTarget of parsed RESULTS_OPTIONS. */
export function resultsTarget(values: { output: string; 'no-write': boolean }): ResultsTarget {
  return { output: path.resolve(values.output), write: !values['no-write'] };
}

/** DATABASE_URL when it is set and not blank (a run on PostgreSQL), else null (embedded PGlite). */
export function databaseUrlFromEnv(): string | null {
  return process.env.DATABASE_URL?.trim() ? process.env.DATABASE_URL.trim() : null;
}

/** Type guard for a parsed JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Child processes and cleanup

/** Last lines a child printed (for error messages), and how many pino warnings/errors it logged. */
export class OutputTail {
  readonly lines: string[] = [];
  problems = 0;
  firstProblem: string | null = null;
  /** Called with each line as it arrives (e.g. to pass a long seed's progress on). */
  onLine: ((line: string) => void) | null = null;
  #partial = '';

  attach(child: ChildProcess): void {
    const take = (chunk: Buffer): void => {
      const text = this.#partial + chunk.toString('utf8');
      const lines = text.split('\n');
      this.#partial = lines.pop() ?? '';
      for (const line of lines) this.#line(line);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
  }

  #line(line: string): void {
    if (line.trim() === '') return;
    this.onLine?.(line);
    this.lines.push(line);
    if (this.lines.length > 200) this.lines.shift();
    // pino: 40 warn, 50 error, 60 fatal.
    const level = /"level":(\d+)/.exec(line)?.[1];
    if (level !== undefined && Number(level) >= 40) {
      this.problems += 1;
      this.firstProblem ??= line;
    }
  }

  text(last = 40): string {
    return this.lines.slice(-last).join('\n');
  }
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
const cleanupSteps: (() => unknown)[] = [];
let cleaning: Promise<void> | null = null;

/** True while the child has neither exited nor been killed. */
export function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function exited(child: ChildProcess): Promise<void> {
  if (!alive(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `storefront <args>` of `checkout` (default: this one) on the Node running this script;
 * cleanup() stops it.
 */
function startChild(args: string[], env: NodeJS.ProcessEnv, tail: OutputTail, checkout = root): ChildProcess {
  // process.execPath is the Node 24 running this script (npm run puts node_modules/.bin first).
  const child = spawn(process.execPath, [entryOf(checkout), ...args], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  tail.attach(child);
  return child;
}

/**
 * Starts `storefront worker` of `checkout` (default: this one): the background loops alone;
 * cleanup() stops it.
 */
export function startWorker(
  env: NodeJS.ProcessEnv,
  checkout = root,
): { child: ChildProcess; tail: OutputTail } {
  const tail = new OutputTail();
  return { child: startChild(['worker'], env, tail, checkout), tail };
}

/** SIGTERM, then SIGKILL after 15 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (!alive(child)) return;
  child.kill('SIGTERM');
  const done = await Promise.race([exited(child).then(() => true), sleep(15_000).then(() => false)]);
  if (!done && alive(child)) {
    child.kill('SIGKILL');
    await exited(child);
  }
}

/**
 * Runs one `storefront` command to completion; returns what it printed, or throws with its tail.
 * `onLine` sees each line as it is printed; `checkout` is the checkout whose command runs.
 */
export async function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
  checkout = root,
): Promise<OutputTail> {
  const tail = new OutputTail();
  tail.onLine = onLine ?? null;
  const child = startChild(args, env, tail, checkout);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) {
    throw new Error(`storefront ${args.join(' ')} failed (exit ${String(code)}):\n${tail.text()}`);
  }
  return tail;
}

/** A fresh temporary directory, removed by cleanup() (and on any exit). */
export function temporaryDirectory(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Adds a step to cleanup(), run after the servers stop and before temporary directories go. */
export function onCleanup(step: () => unknown): void {
  cleanupSteps.push(step);
}

/** Stops every child, runs the cleanup steps, removes temporary directories. Idempotent. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map(stopChild));
    for (const step of cleanupSteps) await step();
    await dropCreatedDatabases();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
    tempDirs.clear();
  })();
  return cleaning;
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping the server and removing the benchmark data…\n`);
    void cleanup().finally(() => process.exit(code));
  });
}

// Last resort if something exits without awaiting cleanup(): no orphaned server, no temp dir left.
process.once('exit', () => {
  for (const child of children) if (alive(child)) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// The server

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

export interface RunningServer {
  child: ChildProcess;
  pid: number;
  url: string;
  tail: OutputTail;
  startupSeconds: number;
}

export interface ServeOptions {
  /** How often to ask /healthz while the server starts (default 100 ms). */
  pollMs?: number;
  /** The checkout whose `storefront` runs (default: this one). */
  checkout?: string;
}

/**
 * Starts `storefront serve` on `port` and waits (up to 120 s) until /healthz answers;
 * `startupSeconds` is the time from spawning the process to that first 200.
 */
export async function serve(
  env: NodeJS.ProcessEnv,
  port: number,
  options: ServeOptions = {},
): Promise<RunningServer> {
  const started = performance.now();
  const tail = new OutputTail();
  const child = startChild(['serve'], { ...env, PORT: String(port) }, tail, options.checkout);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (!alive(child)) throw new Error(`the server exited during start-up:\n${tail.text()}`);
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok && child.pid !== undefined) {
        return { child, pid: child.pid, url, tail, startupSeconds: (performance.now() - started) / 1000 };
      }
    } catch {
      // not listening yet
    }
    await sleep(options.pollMs ?? 100);
  }
  throw new Error(`the server did not answer /healthz within 120 s:\n${tail.text()}`);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL databases made for a run

/** Databases this run created (dropped by cleanup): admin URL and name. */
const createdDatabases: { adminUrl: string; name: string }[] = [];

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Connects one client to `url`, runs `fn`, disconnects. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates the database `name` on the server of `adminUrl` (whose own database is left alone) and
 * drops it at cleanup (`WITH (FORCE)`, also after an error or Ctrl-C). Returns its URL and the
 * server's version.
 */
export async function createDatabase(
  adminUrl: string,
  name: string,
): Promise<{ url: string; name: string; version: string }> {
  const version = await withClient(adminUrl, async (client) => {
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? '?';
  });
  createdDatabases.push({ adminUrl, name });
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return { url: url.href, name, version };
}

async function dropCreatedDatabases(): Promise<void> {
  for (const created of createdDatabases.splice(0)) {
    try {
      await withClient(created.adminUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(created.name)} WITH (FORCE)`);
      });
    } catch (error) {
      process.stderr.write(
        `bench: could not drop database ${created.name}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The machine and /proc readings

/** Runs a command and returns its trimmed output, or "unknown". */
export function run(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

export interface Machine {
  date: string;
  nproc: string;
  cpu: string;
  memory: string;
  node: string;
  os: string;
  load: string;
  commit: string;
}

/** The short commit of a checkout, with `-dirty` when tracked files changed. */
export function commitOf(dir: string = root): string {
  const head = run('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']);
  // Like `git describe --dirty`: changes to tracked files make the tree dirty, untracked files do not.
  const changes = run('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no']);
  return changes !== '' && changes !== 'unknown' ? `${head}-dirty` : head;
}

/** The date, CPUs, memory, Node, OS, load average and commit, for a results section. */
export function machine(): Machine {
  let cpu = 'unknown';
  let memory = 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux
  }
  try {
    const kib = /^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    if (kib) memory = `${(Number(kib) / 1024 / 1024).toFixed(1)} GiB`;
  } catch {
    // not Linux
  }
  return {
    date: run('date', ['-u']),
    nproc: String(os.availableParallelism()),
    cpu,
    memory,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    load: os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' '),
    commit: commitOf(),
  };
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds the process has used so far (NaN where /proc is missing). */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the "(comm)" part: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory of the process in MiB (VmRSS in /proc/<pid>/status; NaN where /proc is missing). */
export function rssMiBOf(pid: number): number {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? Number.NaN : Number(kib) / 1024;
  } catch {
    return Number.NaN;
  }
}

// ---------------------------------------------------------------------------------------------
// Numbers and the results file

/** The p-th percentile (0–100, nearest rank) of sorted values; NaN when there are none. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** The median of the values (the mean of the middle two for an even count; NaN for none). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const HEADER = `# Benchmark results

Produced by \`npm run bench\` (bench/run.ts, HTTP load) and \`npm run bench:webhooks\`
(bench/webhooks.ts, webhook delivery); newest first. bench/README.md explains each scenario and the
caveats. These are shared 2-core machines on which the load generator and the server compete for
the CPU, so compare the ratios within one section rather than absolute numbers across sections.
`;

/** Puts a section on top of the results file (below its introduction), formatted with Prettier. */
export async function writeResults(file: string, text: string): Promise<void> {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let content: string;
  const at = existing.search(/^## /m);
  if (existing === '') content = `${HEADER}\n${text}`;
  else if (at === -1) content = `${existing.trimEnd()}\n\n${text}`;
  else content = `${existing.slice(0, at)}${text}\n${existing.slice(at)}`;
  try {
    const config = await prettier.resolveConfig(file);
    content = await prettier.format(content, { ...config, filepath: file });
  } catch {
    // unformatted is still correct Markdown
  }
  writeFileSync(file, content);
}

/** Prints the section and, unless `--no-write`, puts it on top of the results file. */
export async function publish(
  text: string,
  options: { write: boolean; output: string },
  log: (line: string) => void,
): Promise<void> {
  process.stdout.write(`\n${text}\n`);
  if (!options.write) return;
  await writeResults(options.output, text);
  log(`bench: results written to ${path.relative(process.cwd(), options.output) || options.output}`);
}

/** Runs a benchmark's main: a usage error exits 2, any other error 1; cleans up whatever happens. */
export async function runMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    process.exitCode = error instanceof UsageError ? 2 : 1;
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  } finally {
    await cleanup();
  }
}
