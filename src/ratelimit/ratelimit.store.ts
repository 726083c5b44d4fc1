/**
 * Where fixed-window counters live: process memory (default) or Redis (REDIS_URL). Both count the
 * same way, so the limiter does not care which one it has.
 */

/** One request counted against a key's budget and the client's sub-budget under that key. */
export interface WindowHit {
  /** Counter of the key's budget in this window (the name carries the window start). */
  keyCounter: string;
  /** Counter of one client IP under the key in this window. */
  ipCounter: string;
  /** The client's sub-limit. A client already past it does not spend the key's budget. */
  ipLimit: number;
  /** When the window ends (epoch ms); both counters may be dropped after that. */
  windowEndsAt: number;
  /** The current time (epoch ms) of the limiter's clock. */
  now: number;
}

/** The counters after the hit. `key` is not incremented when the client is over its sub-limit. */
export interface HitCounts {
  key: number;
  ip: number;
}

export interface CounterStore {
  /** Counts one request, atomically for both counters. Never rejects: a store that fails falls back. */
  hit(hit: WindowHit): Promise<HitCounts>;
  /** The same count without waiting, for a store that holds its counters in this process. */
  hitNow?(hit: WindowHit): HitCounts;
  /** Connects to a shared store ahead of the first request, if there is one to connect to. */
  start(): Promise<void>;
  close(): Promise<void>;
}
