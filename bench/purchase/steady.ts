/** Scenario 1: steady purchases, round by round, and the rounds of a server combined. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { alive } from '../lib/processes.ts';
import { median } from '../lib/results.ts';
import { tally } from './format.ts';
import { closePool, newPool } from './http.ts';
import { purchase, type Purchase } from './one-purchase.ts';
import type { Options } from './options.ts';
import { type Reads, withReaders } from './readers.ts';
import {
  type Counts,
  countsBetween,
  type DatabaseCpu,
  databaseCpu,
  read,
  type Role,
  STATS_FLUSH_MS,
} from './readings.ts';
import type { Rss, Target } from './target.ts';
import { sampleWaits, sumWaits, type Waits } from './waits.ts';

export interface Round {
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

export async function buyFor(
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

export async function steadyRound(target: Target, options: Options): Promise<Round> {
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
// The rounds of one server combined

export interface Steady {
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

export const readsPerSecondOf = (reads: Reads): number =>
  reads.seconds > 0 ? reads.ok / reads.seconds : Number.NaN;

export function combine(target: Target, rounds: Round[]): Steady {
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
