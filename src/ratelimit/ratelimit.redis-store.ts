import { Redis, type RedisOptions, type Result } from 'ioredis';
import type { Log } from '../lib/log.ts';
import { OncePerInterval } from '../lib/once-per-interval.ts';
import { MemoryCounterStore } from './ratelimit.memory-store.ts';
import type { CounterStore, HitCounts, WindowHit } from './ratelimit.store.ts';

/**
 * KEYS[1] = the key's counter, KEYS[2] = the client's counter; ARGV[1] = the client's sub-limit,
 * ARGV[2] = time to live (ms). One atomic step: count the client; spend the key's budget only if
 * the client is within its sub-limit. A counter gets its expiry when it is created.
 */
const HIT_SCRIPT = `
local ip = redis.call('INCR', KEYS[2])
if ip == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
if ip > tonumber(ARGV[1]) then
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), ip}
end
local key = redis.call('INCR', KEYS[1])
if key == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {key, ip}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    storefrontRateLimitHit(
      keyCounter: string,
      ipCounter: string,
      ipLimit: number,
      ttlMs: number,
    ): Result<unknown, Context>;
  }
}

/** Counters outlive their window by this much, so clocks a little apart still find them. */
const TTL_SLACK_MS = 5_000;
/** After a failed command, calls count in memory for this long before trying Redis again. */
const PAUSE_AFTER_FAILURE_MS = 1_000;
/** A Redis that keeps failing and recovering is reported at most once per this interval. */
const OUTAGE_LOG_INTERVAL_MS = 10_000;

export interface RedisStoreOptions {
  /** Longest wait for one Redis reply before the call counts in memory instead (default 250 ms). */
  commandTimeoutMs?: number;
  /** Longest wait for the first connection at start (default 2 s). */
  connectTimeoutMs?: number;
  /** Longest pause between reconnection attempts (default 1 s). */
  maxReconnectDelayMs?: number;
}

/**
 * Counters in Redis, shared by every process that uses the same Redis. While Redis is unreachable
 * or failing, each call counts in this process's memory instead (so requests are still limited,
 * per process) and one warning is logged per outage (at most one per 10 s, without a stack, for a
 * Redis that keeps failing and recovering); calls use Redis again as soon as it answers.
 * Commands are never queued while disconnected, so a dead Redis costs a request no waiting.
 */
export class RedisCounterStore implements CounterStore {
  readonly #redis: Redis;
  readonly #fallback = new MemoryCounterStore();
  readonly #log: Log;
  readonly #connectTimeoutMs: number;
  /** null until the first connection attempt settles. */
  #healthy: boolean | null = null;
  /** Until then (epoch ms on the limiter’s clock: the hits’ `now`), calls skip a connected Redis that just failed or timed out. */
  #pausedUntil = 0;
  readonly #outages = new OncePerInterval(OUTAGE_LOG_INTERVAL_MS);

  constructor(url: string, log: Log, options: RedisStoreOptions = {}) {
    this.#log = log;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    const maxDelay = options.maxReconnectDelayMs ?? 1000;
    const redisOptions: RedisOptions = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs ?? 250,
      connectTimeout: this.#connectTimeoutMs,
      retryStrategy: (times) => Math.min(50 * 2 ** times, maxDelay),
      connectionName: 'storefront-rate-limits',
      scripts: { storefrontRateLimitHit: { lua: HIT_SCRIPT, numberOfKeys: 2 } },
    };
    this.#redis = new Redis(url, redisOptions);
    // Without a listener ioredis prints every connection error; the outage is logged once instead.
    this.#redis.on('error', (error: Error) => this.#down(error));
    this.#redis.on('ready', () => {
      this.#pausedUntil = 0;
      this.#up();
    });
  }

  /** Waits for the first connection, at most `connectTimeoutMs`; without one it starts anyway. */
  async start(): Promise<void> {
    if (this.#redis.status !== 'wait') return;
    // On failure ioredis keeps reconnecting in the background; calls count in memory meanwhile.
    const connected = this.#redis.connect().then(
      () => true,
      (error: unknown) => {
        this.#down(error);
        return false;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(resolve, this.#connectTimeoutMs, 'timeout');
    });
    try {
      if ((await Promise.race([connected, timedOut])) === 'timeout') {
        this.#down(new Error(`Redis did not become ready within ${this.#connectTimeoutMs} ms.`));
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async hit(hit: WindowHit): Promise<HitCounts> {
    if (this.#redis.status === 'wait') void this.start(); // not started by the app: connect now
    if (this.#redis.status !== 'ready') {
      if (this.#healthy !== false) this.#down(new Error(`The Redis connection is ${this.#redis.status}.`));
      return this.#fallback.hitNow(hit);
    }
    if (this.#pausedUntil > hit.now) return this.#fallback.hitNow(hit);
    try {
      const ttlMs = Math.max(1, hit.windowEndsAt - hit.now) + TTL_SLACK_MS;
      const reply = await this.#redis.storefrontRateLimitHit(
        hit.keyCounter,
        hit.ipCounter,
        hit.ipLimit,
        ttlMs,
      );
      const counts = countsOf(reply);
      this.#up();
      return counts;
    } catch (error) {
      // A connected Redis that errs or does not answer in time: give it a moment before the next try,
      // so a hung server costs at most one command timeout per pause, not one per request.
      this.#pausedUntil = hit.now + PAUSE_AFTER_FAILURE_MS;
      this.#down(error);
      return this.#fallback.hitNow(hit);
    }
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
    await this.#fallback.close();
  }

  #down(error: unknown): void {
    if (this.#healthy === false) return;
    this.#healthy = false;
    const unlogged = this.#outages.hit();
    if (unlogged === null) return;
    this.#log.warn(
      { err: error instanceof Error ? error.message : String(error), outagesMeanwhile: unlogged },
      'Redis for rate limits is unavailable: counting in process memory (per process) until it answers again',
    );
  }

  #up(): void {
    if (this.#healthy === true) return;
    if (this.#healthy === false) this.#log.info('Redis for rate limits answers again: counters are shared');
    this.#healthy = true;
  }
}

function countsOf(reply: unknown): HitCounts {
  if (Array.isArray(reply) && typeof reply[0] === 'number' && typeof reply[1] === 'number') {
    return { key: reply[0], ip: reply[1] };
  }
  throw new Error(`Unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
}
