import { AppError } from '../lib/errors.ts';

/**
 * The bound on image work in one process (decision `media-resize-bound`): decoding and encoding an
 * upload again, and making resized copies, all take a turn here.
 */

export const mediaBusy = (): AppError =>
  new AppError(
    'media_busy',
    503,
    'The server is resizing as many images as it takes at once; retry after Retry-After.',
    { headers: { 'retry-after': '1' } },
  );

/**
 * A bound on image work in one process: at most `concurrency` tasks run, at most `queue` wait for a
 * turn, and one more is refused at once (`mediaBusy`, 503 with Retry-After) instead of piling up.
 */
export class WorkLimiter {
  readonly #concurrency: number;
  readonly #queue: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(options: { concurrency: number; queue: number }) {
    this.#concurrency = options.concurrency;
    this.#queue = options.queue;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running < this.#concurrency) this.#running += 1;
    else if (this.#waiting.length < this.#queue)
      await new Promise<void>((resolve) => this.#waiting.push(resolve)); // its turn is handed over
    else throw mediaBusy();
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
  }

  /**
   * `run`, once at a time per `key`: a request for work already in flight (the same resized copy
   * asked for by many shoppers at once) waits for that work instead of doing it again.
   */
  runOnce<T>(key: string, task: () => Promise<T>): Promise<T> {
    const running = this.#inFlight.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started = this.run(task).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, started);
    return started;
  }

  /** Tasks running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }
}
