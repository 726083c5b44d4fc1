import { isIPv4, isIPv6 } from 'node:net';
import type { RateLimitConfig } from './ratelimit.config.ts';
import type { Log } from '../lib/log.ts';
import { MemoryCounterStore } from './ratelimit.memory-store.ts';
import type { CounterStore, HitCounts, WindowHit } from './ratelimit.store.ts';
import type { Clock } from '../lib/clock.ts';

/** Budget tiers (decision `budgets-per-key-and-client`): reads (catalog, content, cart reads) and writes (carts, checkout). */
export type Tier = 'public-read' | 'public-write';

/** The tier of a request method; null for preflights, which are never limited. */
export function tierOf(method: string): Tier | null {
  switch (method.toUpperCase()) {
    case 'OPTIONS':
      return null;
    case 'GET':
    case 'HEAD':
      return 'public-read';
    default:
      return 'public-write';
  }
}

/** Who is asking: a publishable key (with its own budget override, null = default) and a client IP. */
export interface RateLimitSubject {
  keyId: string;
  /** The key's store: the per-client sub-limit is counted per store, whichever of its keys is used (decision `per-client-budget`). */
  storeId: string;
  tier: Tier;
  /** The key's budget for this tier, or null for the configured default. */
  keyLimit: number | null;
  /** The client's budget, when not the tier's default (the admin sign-in routes). */
  clientLimit?: number;
  ip: string;
}

/** The outcome for one request, reporting the binding (most restrictive) budget. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Which budget binds: the key's, or the client's sub-limit under the key. */
  scope: 'key' | 'client';
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (≥ 0); also the Retry-After of a refusal. */
  resetSeconds: number;
}

const TIER_NAMES: Record<Tier, string> = { 'public-read': 'read', 'public-write': 'write' };

/**
 * Fixed-window budgets per publishable key and tier, plus a per-client sub-limit counted per store
 * (decision `per-client-budget`: whichever of the store's keys the client uses). Counting happens in a CounterStore; this class
 * only names the counters and turns counts into decisions. Requests never wait on each other.
 */
export class RateLimiter {
  readonly #config: RateLimitConfig;
  readonly #store: CounterStore;
  readonly #now: () => number;
  readonly #namespace: string;

  constructor(
    config: RateLimitConfig,
    store: CounterStore,
    now: () => number = Date.now,
    namespace = 'storefront:rl',
  ) {
    this.#config = config;
    this.#store = store;
    this.#now = now;
    this.#namespace = namespace;
  }

  /** The key's budget (counted per key) and the client's (counted per store) for a subject. */
  budgetsOf(subject: Pick<RateLimitSubject, 'tier' | 'keyLimit' | 'clientLimit'>): {
    key: number;
    client: number;
  } {
    const read = subject.tier === 'public-read';
    const key = subject.keyLimit ?? (read ? this.#config.publicRead : this.#config.publicWrite);
    const client = subject.clientLimit ?? (read ? this.#config.ipRead : this.#config.ipWrite);
    return { key, client };
  }

  /** Counts one request and decides whether it may proceed. */
  async hit(subject: RateLimitSubject): Promise<RateLimitDecision> {
    const budgets = this.budgetsOf(subject);
    const hit = this.#windowHit(subject, budgets.client);
    return this.#decide(budgets, hit, await this.#store.hit(hit));
  }

  /** `hit` without waiting, when the counters are in this process; null when they are not (Redis). */
  hitNow(subject: RateLimitSubject): RateLimitDecision | null {
    if (!this.#store.hitNow) return null;
    const budgets = this.budgetsOf(subject);
    const hit = this.#windowHit(subject, budgets.client);
    return this.#decide(budgets, hit, this.#store.hitNow(hit));
  }

  #windowHit(subject: RateLimitSubject, ipLimit: number): WindowHit {
    const now = this.#now();
    const { windowMs } = this.#config;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    // `{storeId}` is a Redis Cluster hash tag: both counters of one request live on one node. The
    // key's budget is counted per key; the client's per store, so a client cannot multiply its
    // budget by spreading requests over a store's many keys.
    const base = `${this.#namespace}:{${subject.storeId}}:${TIER_NAMES[subject.tier]}`;
    return {
      keyCounter: `${base}:key:${subject.keyId}:${windowStart}`,
      ipCounter: `${base}:ip:${clientBucketOf(subject.ip)}:${windowStart}`,
      ipLimit,
      windowEndsAt: windowStart + windowMs,
      now,
    };
  }

  #decide(budgets: { key: number; client: number }, hit: WindowHit, counts: HitCounts): RateLimitDecision {
    const resetSeconds = Math.max(0, Math.ceil((hit.windowEndsAt - hit.now) / 1000));
    const key = { scope: 'key' as const, limit: budgets.key, count: counts.key };
    const client = { scope: 'client' as const, limit: budgets.client, count: counts.ip };
    const over = [client, key].find((budget) => budget.count > budget.limit);
    const binding = over ?? (remaining(client) < remaining(key) ? client : key);
    return {
      allowed: over === undefined,
      scope: binding.scope,
      limit: binding.limit,
      remaining: remaining(binding),
      resetSeconds,
    };
  }

  start(): Promise<void> {
    return this.#store.start();
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}

function remaining(budget: { limit: number; count: number }): number {
  return Math.max(0, budget.limit - budget.count);
}

/**
 * The client bucket of an IP: an IPv4 address as is (also when IPv4-mapped), an IPv6 address by
 * its /64 prefix, since one subscriber usually holds a whole /64 and could rotate through it.
 */
export function clientBucketOf(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const groups = expandIPv6(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros. */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}

/**
 * The limiter of an app: counters in Redis when a URL is given, else in process memory. The Redis
 * client (ioredis) is loaded only then (decision `optional-packages-on-demand`).
 */
export async function createRateLimiter(
  config: RateLimitConfig,
  redisUrl: string | null,
  clock: Clock,
  log: Log,
): Promise<RateLimiter> {
  const store =
    redisUrl === null
      ? new MemoryCounterStore()
      : new (await import('./ratelimit.redis-store.ts')).RedisCounterStore(redisUrl, log);
  return new RateLimiter(config, store, () => clock.now().getTime());
}
