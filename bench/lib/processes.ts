/**
 * `storefront` child processes with their output, cleanup on exit or a signal, and the server of a
 * run; runMain, the frame of every script's main.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dropCreatedDatabases } from './databases.ts';
import { root } from './machine.ts';
import { UsageError } from './options.ts';

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

/** The `storefront` command of a checkout (what `npm start` and `npx storefront` run). */
function entryOf(checkout: string): string {
  return path.join(checkout, 'bin', 'storefront.js');
}

/** Where a `storefront` child runs from: this checkout, or another one (an A/B comparison). */
export interface Checkout {
  /** The checkout's root directory (holding bin/storefront.js and node_modules). */
  root: string;
}

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

/**
 * The environment of a run's `storefront` commands: this process's, with a fresh temporary DATA_DIR
 * (named `prefix`…, the mail files in it), on 127.0.0.1, warnings only, no demo store, and rate
 * limits out of reach.
 */
export function benchEnv(prefix: string): NodeJS.ProcessEnv {
  const dir = temporaryDirectory(prefix);
  return {
    ...process.env,
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
    EMAIL_TRANSPORT: `file:${path.join(dir, 'mail')}`,
    ...UNLIMITED_RATES,
  };
}

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

/** Type guard for a parsed JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

/**
 * Runs a benchmark script under runMain: parses its command line with `parseOptions` (null, for
 * `--help`: prints `help` and stops), then runs `main` with the options.
 */
export async function runBenchmark<O>(
  help: string,
  parseOptions: (argv: string[]) => O | null,
  main: (options: O) => Promise<void>,
): Promise<void> {
  await runMain(async () => {
    const options = parseOptions(process.argv.slice(2));
    if (options === null) {
      process.stdout.write(help);
      return;
    }
    await main(options);
  });
}

/** Throws a UsageError on a Node older than 24; `command` says how to run the script with it. */
export function requireNode24(command: string): void {
  if (Number(process.versions.node.split('.')[0]) < 24) {
    throw new UsageError(`run it with Node 24 (${command}), not ${process.version}`);
  }
}
