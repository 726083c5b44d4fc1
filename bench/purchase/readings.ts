/** Readings: CPU of the processes and of the database, round trips, transactions. */
import { withClient } from '../lib/databases.ts';
import { cpuSecondsOf } from '../lib/machine.ts';
import type { Target } from './target.ts';

/** PostgreSQL flushes an idle backend's statistics at most this long after its last transaction. */
export const STATS_FLUSH_MS = 11_000;

/** Whose a PostgreSQL backend is: the server's (API), the worker's, or neither (autovacuum, …). */
export type Role = 'api' | 'worker' | 'other';

/** Statements and transactions a process has sent (its storefront_db_*_total counters). */
export interface Counts {
  statements: number;
  transactions: number;
}

const NO_COUNTS: Counts = { statements: Number.NaN, transactions: Number.NaN };

export interface Readings {
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
export function roleOf(applicationName: string, separate: boolean): Role {
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

export async function read(target: Target, withTransactions: boolean): Promise<Readings> {
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
export interface DatabaseCpu {
  api: number;
  worker: number;
  other: number;
  total: number;
}

/**
 * Database CPU between two readings: backends seen at the end, minus what they had used at the
 * start; NaN without backends (PGlite).
 */
export function databaseCpu(before: Readings, after: Readings): DatabaseCpu {
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

export function countsBetween(before: Counts, after: Counts): Counts {
  return {
    statements: after.statements - before.statements,
    transactions: after.transactions - before.transactions,
  };
}
