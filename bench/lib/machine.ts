/**
 * This checkout and the machine a benchmark runs on: the repository root, the commit, the machine
 * description of a results section, and /proc readings of a process's CPU and memory.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The repository root. */
export const root = path.resolve(import.meta.dirname, '..', '..');

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
