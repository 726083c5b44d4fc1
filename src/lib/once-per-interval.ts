/**
 * Says whether a recurring condition should be logged now: the first time, then at most once per
 * interval, with how many occurrences went unlogged since. An outage that fails every request and
 * every loop is then one log line every few seconds, not one per request (with its stack).
 */
export class OncePerInterval {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #last = Number.NEGATIVE_INFINITY;
  #unlogged = 0;

  constructor(intervalMs: number, now: () => number = Date.now) {
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Counts one occurrence; returns the number unlogged before it when it should be logged, else null. */
  hit(): number | null {
    const now = this.#now();
    if (now - this.#last < this.#intervalMs) {
      this.#unlogged += 1;
      return null;
    }
    const unlogged = this.#unlogged;
    this.#last = now;
    this.#unlogged = 0;
    return unlogged;
  }
}
