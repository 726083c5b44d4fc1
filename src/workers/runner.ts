import type { Logger } from 'pino';
import { reportIfOutage } from '../db/errors.ts';

/** A background loop: `run` does one bounded batch of work; it is called again after `intervalMs`. */
export interface WorkerLoop {
  name: string;
  intervalMs: number;
  run(signal: AbortSignal): Promise<void>;
}

export interface RunningWorkers {
  /** Runs a loop's batch now instead of waiting for its interval (e.g. on a database notification). */
  wake(name: string): void;
  stop(): Promise<void>;
}

/**
 * Runs loops until stopped. Loops share nothing through process memory: every one coordinates
 * through the database, so any number of processes may run the same loops.
 */
export function startWorkers(loops: WorkerLoop[], log: Logger): RunningWorkers {
  const controller = new AbortController();
  const state = new Map<
    string,
    { timer: NodeJS.Timeout | null; running: Promise<void> | null; again: boolean }
  >();

  const schedule = (loop: WorkerLoop, delay: number): void => {
    const entry = state.get(loop.name)!;
    if (controller.signal.aborted) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => tick(loop), delay);
    entry.timer.unref();
  };

  const tick = (loop: WorkerLoop): void => {
    const entry = state.get(loop.name)!;
    entry.timer = null;
    if (entry.running) {
      entry.again = true;
      return;
    }
    entry.running = loop
      .run(controller.signal)
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        // Every loop fails while the database is away; each runs again on its interval.
        if (!reportIfOutage(log, error, { loop: loop.name }))
          log.error({ err: error, loop: loop.name }, 'worker loop failed');
      })
      .finally(() => {
        entry.running = null;
        const again = entry.again;
        entry.again = false;
        schedule(loop, again ? 0 : loop.intervalMs);
      });
  };

  for (const loop of loops) {
    state.set(loop.name, { timer: null, running: null, again: false });
    schedule(loop, 0);
  }
  log.debug({ loops: loops.map((l) => l.name) }, 'workers started');

  return {
    wake(name) {
      const loop = loops.find((l) => l.name === name);
      if (loop) schedule(loop, 0);
    },
    async stop() {
      controller.abort();
      for (const entry of state.values()) if (entry.timer) clearTimeout(entry.timer);
      await Promise.all([...state.values()].flatMap((entry) => (entry.running ? [entry.running] : [])));
    },
  };
}

/**
 * How request handlers nudge the worker loops of their own process after a commit (e.g. "mail was
 * queued"). Without attached workers (a pure API process) it does nothing; workers elsewhere pick
 * the work up on their next poll.
 */
export class WorkerSignals {
  #workers: Pick<RunningWorkers, 'wake'> | null = null;

  attach(workers: Pick<RunningWorkers, 'wake'> | null): void {
    this.#workers = workers;
  }

  wake(name: string): void {
    this.#workers?.wake(name);
  }
}
