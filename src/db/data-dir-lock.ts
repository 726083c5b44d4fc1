import fs from 'node:fs';
import path from 'node:path';

/**
 * PGlite is a single-process database: two processes writing one data directory would corrupt it.
 * Every command that opens the embedded database takes this lock first and refuses, naming the
 * holder, when another live process has it.
 */
export class DataDirLockedError extends Error {
  readonly pid: number;
  constructor(dataDir: string, pid: number, command: string) {
    super(
      `The data directory ${dataDir} is in use by process ${pid}${command ? ` (${command})` : ''}. ` +
        `The embedded database allows one process at a time: stop that process first, ` +
        `or use the HTTP API while it runs.`,
    );
    this.name = 'DataDirLockedError';
    this.pid = pid;
  }
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

interface LockContent {
  pid: number;
  command: string;
  startedAt: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): LockContent | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockContent>;
    return typeof parsed.pid === 'number'
      ? { pid: parsed.pid, command: String(parsed.command ?? ''), startedAt: String(parsed.startedAt ?? '') }
      : null;
  } catch {
    return null;
  }
}

export function acquireDataDirLock(dataDir: string, command: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'storefront.lock');
  const content: LockContent = { pid: process.pid, command, startedAt: new Date().toISOString() };

  for (let attempt = 0; attempt < 5; attempt++) {
    // Write a private file, then hard-link it into place: link() fails atomically if the lock exists.
    const temp = `${file}.${process.pid}.${attempt}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(content));
    try {
      fs.linkSync(temp, file);
      fs.unlinkSync(temp);
      const release = (): void => {
        const holder = readLock(file);
        if (holder?.pid === process.pid) fs.rmSync(file, { force: true });
        process.off('exit', release);
      };
      process.on('exit', release);
      return { path: file, release };
    } catch (error) {
      fs.unlinkSync(temp);
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLock(file);
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new DataDirLockedError(dataDir, holder.pid, holder.command);
    }
    // Stale (holder is gone) or unreadable. Move it aside atomically rather than deleting it: of
    // two processes clearing the same stale lock only one rename succeeds, and if what was moved
    // turns out to be a live process's fresh lock, it is put back and that process wins.
    const aside = `${file}.stale-${process.pid}-${attempt}`;
    try {
      fs.renameSync(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = readLock(aside);
    if (moved && moved.pid !== process.pid && isAlive(moved.pid)) {
      try {
        fs.linkSync(aside, file);
      } finally {
        fs.rmSync(aside, { force: true });
      }
      throw new DataDirLockedError(dataDir, moved.pid, moved.command);
    }
    fs.rmSync(aside, { force: true });
  }
  throw new Error(`Could not take the lock ${file}; remove it if no storefront process is running.`);
}
