/** The database's floor (--floor): pgbench running the least SQL of one purchase. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { withClient } from '../lib/databases.ts';
import { cpuSecondsOf } from '../lib/machine.ts';
import { alive, onCleanup } from '../lib/processes.ts';

export interface FloorRun {
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
export async function runFloor(
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

/** What the floor script says one purchase is ("4 transactions, 13 statements" in its header). */
export function floorShapeOf(script: string | null): { statements: string; transactions: string } {
  try {
    const match = /(\d+) transactions, (\d+) statements/.exec(readFileSync(script ?? '', 'utf8'));
    if (match) return { transactions: match[1]!, statements: match[2]! };
  } catch {
    // unreadable: unknown
  }
  return { statements: '–', transactions: '–' };
}
