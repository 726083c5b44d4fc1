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

/**
 * OncePerInterval for each of many keys (one webhook endpoint's failures, one kind of mail
 * failure): a key's first occurrence is logged, then at most one line per interval for it, with the
 * count of its occurrences not logged meanwhile. At most `maxKeys` keys are tracked; past that the
 * least recently logged one is forgotten (its next occurrence is logged again).
 */
export class OncePerIntervalByKey {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #maxKeys: number;
  readonly #keys = new Map<string, OncePerInterval>();

  constructor(intervalMs: number, now: () => number = Date.now, maxKeys = 10_000) {
    this.#intervalMs = intervalMs;
    this.#now = now;
    this.#maxKeys = maxKeys;
  }

  /** Counts one occurrence of `key`; the number unlogged before it when it should be logged, else null. */
  hit(key: string): number | null {
    let limiter = this.#keys.get(key);
    if (limiter === undefined) {
      if (this.#keys.size >= this.#maxKeys) this.#keys.delete(this.#keys.keys().next().value!);
      limiter = new OncePerInterval(this.#intervalMs, this.#now);
    }
    const unlogged = limiter.hit();
    // Logged keys move to the end: the first key is the one logged longest ago.
    if (unlogged !== null) this.#keys.delete(key);
    this.#keys.set(key, limiter);
    return unlogged;
  }
}
