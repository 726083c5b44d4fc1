import type { CounterStore, HitCounts, WindowHit } from './ratelimit.store.ts';

interface Counter {
  count: number;
  expiresAt: number;
}

/** Enough for ~50k clients a window across all keys; past it the oldest counters are dropped. */
const DEFAULT_MAX_COUNTERS = 100_000;

/**
 * Counters in process memory. Every counter name carries its window start, so a counter is never
 * reused after its window: expired ones are dropped from the front of the map (insertion order is
 * window order) on every hit, and a hard cap bounds memory within one window too.
 */
export class MemoryCounterStore implements CounterStore {
  readonly #counters = new Map<string, Counter>();
  readonly #maxCounters: number;
  /** When the oldest counter expires (then `#sweep` has work). */
  #sweepAt = Number.POSITIVE_INFINITY;

  constructor(options: { maxCounters?: number } = {}) {
    this.#maxCounters = options.maxCounters ?? DEFAULT_MAX_COUNTERS;
  }

  /** How many counters are held (for tests and metrics). */
  get size(): number {
    return this.#counters.size;
  }

  hit(hit: WindowHit): Promise<HitCounts> {
    return Promise.resolve(this.hitNow(hit));
  }

  /** The synchronous hit (the Redis store uses it as its fallback without an extra tick). */
  hitNow(hit: WindowHit): HitCounts {
    this.#sweep(hit.now);
    const ip = this.#increment(hit.ipCounter, hit.windowEndsAt);
    if (ip > hit.ipLimit) return { key: this.#counters.get(hit.keyCounter)?.count ?? 0, ip };
    return { key: this.#increment(hit.keyCounter, hit.windowEndsAt), ip };
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#counters.clear();
    this.#sweepAt = Number.POSITIVE_INFINITY;
    return Promise.resolve();
  }

  #increment(name: string, expiresAt: number): number {
    const counter = this.#counters.get(name);
    if (counter) return ++counter.count;
    if (this.#counters.size >= this.#maxCounters) this.#counters.delete(this.#counters.keys().next().value!);
    this.#counters.set(name, { count: 1, expiresAt });
    if (expiresAt < this.#sweepAt) this.#sweepAt = expiresAt;
    return 1;
  }

  #sweep(now: number): void {
    // The first counter expires first; until then there is nothing to drop (no iterator per hit).
    if (now < this.#sweepAt) return;
    for (const [name, counter] of this.#counters) {
      if (counter.expiresAt > now) {
        this.#sweepAt = counter.expiresAt;
        return;
      }
      this.#counters.delete(name);
    }
    this.#sweepAt = Number.POSITIVE_INFINITY;
  }
}
