import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { StorefrontPrincipal } from '../http/principals.ts';
import { sha256Hex } from '../lib/crypto.ts';
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

  async resolve(key: string): Promise<StorefrontPrincipal | null> {
    if (!PUBLISHABLE_KEY_PATTERN.test(key)) return null;
    const hash = sha256Hex(key);
    const cached = this.#cache.get(hash);
    if (cached && cached.expiresAt > this.#now()) return cached.value;

    let pending = this.#inflight.get(hash);
    if (!pending) {
      pending = this.#lookup(key).finally(() => this.#inflight.delete(hash));
      this.#inflight.set(hash, pending);
    }
    const value = await pending;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(hash, { value, expiresAt: this.#now() + this.#ttlMs });
    return value;
  }

  /** Drops every cached entry of a store (called after a key of it is revoked or changed). */
  forgetStore(storeId: string): void {
    for (const [hash, entry] of this.#cache) {
      if (entry.value?.storeId === storeId) this.#cache.delete(hash);
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
