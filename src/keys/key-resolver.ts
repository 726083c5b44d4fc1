import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { StorefrontPrincipal } from '../http/principals.ts';
import { resolveCredential } from '../credentials/credentials.service.ts';
import { findActiveKey } from './keys.repository.ts';

/** The shape of a publishable key: `pk_` and 32 base62 characters. */
export const PUBLISHABLE_KEY_PATTERN = /^pk_[0-9A-Za-z]{32}$/;

interface CacheEntry {
  value: StorefrontPrincipal | null;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/**
 * Resolves publishable keys to stores. Results (including "unknown key") are cached in process
 * memory for `ttlMs` (at most 1 s by configuration), so a key revoked on any process stops working
 * everywhere within that time without cross-process messaging; `forget` makes it immediate here.
 * Concurrent lookups of one key share a single query.
 */
export class KeyResolver {
  readonly #db: Kysely<Database>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inflight = new Map<string, Promise<StorefrontPrincipal | null>>();

  constructor(db: Kysely<Database>, ttlMs: number, now: () => number = Date.now) {
    this.#db = db;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /**
   * The cached answer for a key, without waiting: the principal, null for a key known to be
   * unknown or revoked, undefined when it must be looked up (`resolve`). Entries are keyed by the
   * key itself: a publishable key is public by design (it ships in browser code), and hashing it
   * on every request cost more than the rest of authentication. Only the database holds its hash.
   */
  cached(key: string): StorefrontPrincipal | null | undefined {
    const cached = this.#cache.get(key);
    return cached && cached.expiresAt > this.#now() ? cached.value : undefined;
  }

  async resolve(key: string): Promise<StorefrontPrincipal | null> {
    const cached = this.cached(key);
    if (cached !== undefined) return cached;
    if (!PUBLISHABLE_KEY_PATTERN.test(key)) return null;

    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = this.#lookup(key).finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    const value = await pending;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, { value, expiresAt: this.#now() + this.#ttlMs });
    return value;
  }

  /** Drops every cached entry of a store (called after a key of it is revoked or changed). */
  forgetStore(storeId: string): void {
    for (const [key, entry] of this.#cache) {
      if (entry.value?.storeId === storeId) this.#cache.delete(key);
    }
  }

  async #lookup(key: string): Promise<StorefrontPrincipal | null> {
    const credential = await resolveCredential({ db: this.#db }, key, 'publishable_key');
    if (!credential) return null;
    const row = await findActiveKey(this.#db, credential.storeId, credential.subjectId);
    if (!row) return null;
    return {
      storeId: row.store_id,
      keyId: row.id,
      allowedOrigins: row.allowed_origins,
      rateLimitRead: row.rate_limit_read,
      rateLimitWrite: row.rate_limit_write,
    };
  }
}
