import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { reportIfOutage } from '../db/errors.ts';
import type { Log } from '../lib/log.ts';
import {
  CATALOG_CACHE_CONTROL,
  CATALOG_MAX_AGE,
  CATALOG_STALE_WHILE_REVALIDATE,
  CATALOG_VARY,
  etagOf,
  ifNoneMatches,
} from './caching.ts';
import { headersHoldUnsafeText } from './input-hygiene.ts';
import { readVersions, walPosition } from './read-cache.repository.ts';
import { replicaReplayedOfRequest } from '../db/bounds.ts';

/**
 * The read cache of (decision `read-cache-invalidation`): storefront catalog and content
 * GETs served from serialized bodies and their ETags kept in this process, keyed by store and URL.
 *
 * Invalidation: the database's triggers (migration 0015) bump a store's versions in the transaction
 * of every change and notify `storefront_read` at commit. A notification moves the store's local
 * epoch on (the catalog's, or one product's stock), and an entry is served only while the epochs it
 * was made under are current. Every connection of the pool listens, so the process that made a
 * change hears of it before its COMMIT returns; other processes a moment later. A notification can
 * be lost (a connection opened after it was sent, a dropped listener), so the versions of the
 * cached stores are also re-read every `recheckMs` (500 ms): no body is served more than about that
 * after its change committed. Memory is bounded by `maxBytes`, least recently used first.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** The storefront read cache (null when READ_CACHE_MB=0). */
    readCache: ReadCache | null;
  }
}

const STOCK_BUCKETS = 256;
/**
 * `productOf` for a body that shows the stock of any of the store's products (a search filtered by
 * stock, facets, a product found by handle): it goes stale when any stock of the store moves.
 */
export const ANY_STOCK = '*';
const ANY_BUCKET = STOCK_BUCKETS;
/** A store with nothing cached is forgotten (no more re-reads of its versions) after this long unused. */
const FORGET_AFTER_MS = 60_000;

interface Epochs {
  catalog: number;
  /** Every stock bucket at once (after a re-read found the stock version moved). */
  stockAll: number;
  stock: Map<number, number>;
  /** Moved with every stock change of the store (the epoch of ANY_STOCK bodies). */
  stockAny: number;
  /** The versions the last re-read saw; null until the first. */
  seen: { catalog: number; stock: number } | null;
  /**
   * With a replica (decision `replica-reads`): the primary's WAL position when the last re-read
   * read these versions, if no notification moved the epochs since (else Infinity). A body read from
   * the replica is kept only if the replica had replayed up to it.
   */
  lsn: number;
  /** Notifications for the store so far (a re-read sets `lsn` only if none came during it). */
  changes: number;
  entries: number;
  /** When it was last looked up (ms). */
  usedAt: number;
}

interface Entry {
  storeId: string;
  body: Buffer;
  etag: string;
  catalog: number;
  /** The stock epoch of its product, or -1 when the body shows no stock. */
  stock: number;
  bucket: number;
  bytes: number;
  /** When it was inserted or last moved to the newest end (`#seq`). */
  seq: number;
  /** When it stops being served (ms since the epoch): Infinity, or a price list's start or end. */
  expiresAt: number;
}

export interface Ticket {
  key: string;
  storeId: string;
  catalog: number;
  stock: number;
  bucket: number;
}

export interface ReadCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

/** A product's stock bucket: the last byte of its UUID (random in v4 and v7). */
function bucketOf(productId: string): number {
  const n = Number.parseInt(productId.slice(-2), 16);
  return Number.isNaN(n) ? 0 : n % STOCK_BUCKETS;
}

/** The stock epoch a body of `bucket` was made under: -1 (shows no stock), one bucket's, or any. */
function stockEpoch(epochs: Epochs, bucket: number): number {
  if (bucket < 0) return -1;
  if (bucket === ANY_BUCKET) return Math.max(epochs.stockAll, epochs.stockAny);
  return Math.max(epochs.stockAll, epochs.stock.get(bucket) ?? 0);
}

/** Bytes an entry holds beyond its body (key, object, map slot): an estimate for the bound. */
const ENTRY_OVERHEAD = 200;

export class ReadCache {
  readonly #maxBytes: number;
  readonly #maxEntryBytes: number;
  readonly #db: Kysely<Database>;
  readonly #recheckMs: number;
  readonly #log: Log;
  readonly #replica: boolean;
  readonly #entries = new Map<string, Entry>();
  readonly #stores = new Map<string, Epochs>();
  #tick = 0;
  /** Counts insertions and moves of entries (approximate LRU order). */
  #seq = 0;
  #bytes = 0;
  #stats = { hits: 0, misses: 0, evictions: 0 };
  #timer: NodeJS.Timeout | null = null;
  /** The re-read in progress, and the one waiting for it (which also covers stores added meanwhile). */
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  #unsubscribe: () => void;
  #closed = false;

  constructor(options: {
    db: Kysely<Database>;
    maxBytes: number;
    /** Subscribes to the `storefront_read` notifications (Db.onReadChange); null to rely on re-reads. */
    subscribe: ((handler: (payload: string) => void) => () => void) | null;
    log: Log;
    recheckMs?: number;
    /** Some bodies are read from a replica (decision `replica-reads`): re-reads also read the WAL position. */
    replica?: boolean;
  }) {
    this.#replica = options.replica ?? false;
    this.#db = options.db;
    this.#maxBytes = options.maxBytes;
    this.#maxEntryBytes = Math.max(1024, Math.floor(options.maxBytes / 16));
    this.#recheckMs = options.recheckMs ?? 500;
    this.#log = options.log;
    this.#unsubscribe = options.subscribe?.((payload) => this.changed(payload)) ?? (() => undefined);
  }

  /** Starts the periodic re-read of the cached stores' versions. */
  start(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => {
      if (!this.#running && !this.#queued) void this.recheck();
    }, this.#recheckMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#queued;
    await this.#running;
    this.#entries.clear();
    this.#stores.clear();
    this.#bytes = 0;
  }

  stats(): ReadCacheStats {
    return { entries: this.#entries.size, bytes: this.#bytes, ...this.#stats };
  }

  /**
   * The fresh entry for `key`, or a ticket to store the body about to be made. `productId` names the
   * product whose stock the body shows (product detail), if any.
   */
  lookup(storeId: string, key: string, productId: string | null): { entry: Entry } | { ticket: Ticket } {
    const epochs = this.#epochs(storeId);
    epochs.usedAt = Date.now();
    const bucket = productId === null ? -1 : productId === ANY_STOCK ? ANY_BUCKET : bucketOf(productId);
    const stock = stockEpoch(epochs, bucket);
    const entry = this.#entries.get(key);
    if (entry) {
      if (entry.catalog === epochs.catalog && entry.stock === stock && Date.now() < entry.expiresAt) {
        // Most recently used last (a Map iterates in insertion order); an entry already in the
        // newer half stays where it is, so a hot entry is not moved on every hit.
        if (this.#seq - entry.seq > this.#entries.size >> 1) {
          entry.seq = ++this.#seq;
          this.#entries.delete(key);
          this.#entries.set(key, entry);
        }
        this.#stats.hits++;
        return { entry };
      }
      this.#remove(key, entry);
    }
    this.#stats.misses++;
    return { ticket: { key, storeId, catalog: epochs.catalog, stock, bucket } };
  }

  /**
   * Keeps a body made under `ticket`, unless the store changed meanwhile (then it may be stale),
   * until `expiresAt` (ms since the epoch) at the latest. `replicaReplayed`: the body was read from
   * the replica, which had replayed the WAL up to there; it is kept only if that covers the versions
   * the epochs stand for, so a replica behind never stores old data under a newer epoch.
   */
  store(ticket: Ticket, body: Buffer, etag: string, expiresAt = Infinity, replicaReplayed?: number): void {
    if (this.#closed || Date.now() >= expiresAt) return;
    const epochs = this.#stores.get(ticket.storeId);
    // Nothing is kept for a store before its versions were first read (see `recheck`).
    if (!epochs || epochs.seen === null || epochs.catalog !== ticket.catalog) return;
    if (replicaReplayed !== undefined && replicaReplayed < epochs.lsn) return;
    if (stockEpoch(epochs, ticket.bucket) !== ticket.stock) return;
    const bytes = body.length + ticket.key.length * 2 + ENTRY_OVERHEAD;
    if (bytes > this.#maxEntryBytes) return;
    const previous = this.#entries.get(ticket.key);
    if (previous) this.#remove(ticket.key, previous);
    this.#entries.set(ticket.key, {
      storeId: ticket.storeId,
      body,
      etag,
      catalog: ticket.catalog,
      stock: ticket.stock,
      bucket: ticket.bucket,
      bytes,
      seq: ++this.#seq,
      expiresAt,
    });
    epochs.entries++;
    this.#bytes += bytes;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#remove(key, entry);
      this.#stats.evictions++;
    }
  }

  /** A `storefront_read` payload: `c <storeId>` or `s <storeId> <productId>`. */
  changed(payload: string): void {
    const [scope, storeId, productId] = payload.split(' ');
    const epochs = storeId === undefined ? undefined : this.#stores.get(storeId);
    if (!epochs) return; // nothing cached and nothing being made for it
    epochs.lsn = Infinity;
    epochs.changes++;
    if (scope === 's' && productId) epochs.stock.set(bucketOf(productId), (epochs.stockAny = ++this.#tick));
    else if (scope === 's') epochs.stockAll = ++this.#tick;
    else epochs.catalog = ++this.#tick;
  }

  /**
   * Re-reads the versions of every store this process knows and moves on the epochs of those that
   * changed since the last re-read. The first read of a store is its baseline: nothing is kept for
   * it before, and the bodies being made meanwhile are not kept either (their epochs move on), since
   * a change with a lost notification could fall between their read and the baseline. Stores with
   * nothing cached and not asked for in the last minute are forgotten. Calls queue: the returned promise covers every store known now.
   */
  recheck(): Promise<void> {
    if (this.#queued) return this.#queued;
    const start = async (): Promise<void> => {
      await this.#running;
      this.#queued = null;
      const running = this.#recheck();
      this.#running = running;
      try {
        await running;
      } finally {
        if (this.#running === running) this.#running = null;
      }
    };
    const queued = start();
    this.#queued = queued;
    return queued;
  }

  async #recheck(): Promise<void> {
    for (const [storeId, epochs] of this.#stores) {
      if (epochs.entries === 0 && Date.now() - epochs.usedAt > FORGET_AFTER_MS) this.#stores.delete(storeId);
    }
    const storeIds = [...this.#stores.keys()];
    try {
      for (let i = 0; i < storeIds.length && !this.#closed; i += 1000) {
        const changes = new Map(storeIds.slice(i, i + 1000).map((id) => [id, this.#stores.get(id)?.changes]));
        const versions = await readVersions(this.#db, storeIds.slice(i, i + 1000));
        // Read after the versions: every change they show was written to the WAL before it.
        const lsn = this.#replica ? await walPosition(this.#db) : Infinity;
        for (const version of versions) {
          const epochs = this.#stores.get(version.storeId);
          if (!epochs) continue;
          if (epochs.changes === changes.get(version.storeId)) epochs.lsn = lsn;
          const seen = epochs.seen;
          if (seen === null || seen.catalog !== version.catalog) epochs.catalog = ++this.#tick;
          if (seen === null || seen.stock !== version.stock) epochs.stockAll = ++this.#tick;
          epochs.seen = { catalog: version.catalog, stock: version.stock };
        }
      }
    } catch (error) {
      // Unsure what changed: serve nothing cached until a re-read succeeds.
      for (const epochs of this.#stores.values()) {
        epochs.catalog = ++this.#tick;
        epochs.seen = null;
        epochs.lsn = Infinity;
      }
      if (!this.#closed && !reportIfOutage(this.#log, error))
        this.#log.warn({ err: (error as Error).message }, 'read cache: re-reading versions failed');
    }
  }

  #epochs(storeId: string): Epochs {
    let epochs = this.#stores.get(storeId);
    if (!epochs) {
      const tick = ++this.#tick;
      epochs = {
        catalog: tick,
        stockAll: tick,
        stock: new Map(),
        stockAny: tick,
        seen: null,
        lsn: Infinity,
        changes: 0,
        entries: 0,
        usedAt: Date.now(),
      };
      this.#stores.set(storeId, epochs);
      // Its baseline now rather than at the next period, so caching starts at once.
      if (this.#timer) void this.recheck();
    }
    return epochs;
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    const epochs = this.#stores.get(entry.storeId);
    if (epochs) epochs.entries--;
  }
}

// ---------------------------------------------------------------------------------------------
// Fastify route options

const tickets = new WeakMap<FastifyRequest, Ticket>();
const cacheableHooks = new WeakSet<object>();
/** Reads whose body is this buyer's or this moment's (decision `price-function`): never kept, never shared. */
const personal = new WeakSet<FastifyRequest>();
/** Reads whose body holds only until a moment (ms since the epoch): a price list starts or ends then. */
const expiries = new WeakMap<FastifyRequest, number>();

/**
 * Marks a read's body as not for the shared cache: priced with price lists (which start and end
 * without a write), or for a signed-in customer (their groups' prices). Its answer is not kept, and
 * says `Cache-Control: private, no-store`.
 */
export function markPersonal(request: FastifyRequest): void {
  personal.add(request);
}

/**
 * Marks a read's body as good until `until` only (decision `price-function`): priced with the price
 * lists in force, which change at that moment without a write. It is shared and kept until then, and
 * its `Cache-Control` lets no cache serve it after. Null: no list starts or ends later.
 */
export function cacheUntil(request: FastifyRequest, until: Date | null): void {
  if (until !== null) expiries.set(request, until.getTime());
}

/** A request with a customer token (`Bearer ct_…`): priced for that customer's groups. */
function forACustomer(request: FastifyRequest): boolean {
  const authorization = request.headers.authorization;
  return typeof authorization === 'string' && /^Bearer\s+ct_/i.test(authorization);
}

/** Whether a route's onSend hook is a cacheable read's (the OpenAPI document marks those). */
export function isCacheableOnSend(hook: unknown): boolean {
  return typeof hook === 'function' && cacheableHooks.has(hook);
}
function setCacheHeaders(reply: FastifyReply, etag: string, expiresAt = Infinity): void {
  void reply.header('etag', etag);
  void reply.header('cache-control', cacheControlUntil(expiresAt));
  void reply.header('vary', CATALOG_VARY);
}

/**
 * The catalog's `Cache-Control`, shortened so that no cache serves a body after `expiresAt` (ms
 * since the epoch): fresh for at most the seconds left, stale-while-revalidate within them too.
 */
export function cacheControlUntil(expiresAt: number): string {
  const left = Math.floor((expiresAt - Date.now()) / 1000);
  if (left >= CATALOG_MAX_AGE + CATALOG_STALE_WHILE_REVALIDATE) return CATALOG_CACHE_CONTROL;
  if (left <= 0) return 'public, no-cache';
  const maxAge = Math.min(CATALOG_MAX_AGE, left);
  const stale = left - maxAge;
  return stale > 0
    ? `public, max-age=${maxAge}, stale-while-revalidate=${stale}`
    : `public, max-age=${maxAge}`;
}

type Done = (error?: Error) => void;

/**
 * Route options for a cacheable storefront read (catalog, content, store): the body from the read
 * cache when fresh, else made by the handler and kept; always a strong ETag, `Cache-Control`/`Vary`
 * per decision `etags`, and 304 when If-None-Match matches. `productOf` names the product whose live stock the
 * body shows. Without a cache (READ_CACHE_MB=0), only the headers and the 304.
 *
 * A fresh entry is answered from the route's onRequest hook, right after the scope's
 * authentication and rate limit: the entry was made by a request with the same URL that passed
 * validation and the input checks and answered 200, so those would pass again; only the headers,
 * which the URL does not fix, are checked for unsafe text (a request with any is left to the
 * normal path and its 400).
 */
export function readCached(
  cache: ReadCache | null,
  productOf?: (request: FastifyRequest) => string | null,
): {
  onRequest?: (request: FastifyRequest, reply: FastifyReply, done: Done) => void;
  onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;
} {
  const onSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    // Answered from the cache (its ETag is set before the answer): nothing more to do.
    if (reply.getHeader('etag') !== undefined) return Promise.resolve(payload);
    if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      return Promise.resolve(payload);
    }
    const etag = etagOf(payload);
    const ticket = tickets.get(request);
    if (personal.has(request) || forACustomer(request)) {
      // Not kept, and only for this client: still tagged, so a revalidation may answer 304.
      void reply.header('etag', etag);
      void reply.header('cache-control', 'private, no-store');
    } else {
      const expiresAt = expiries.get(request);
      if (ticket && cache && request.method === 'GET') {
        const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
        cache.store(ticket, body, etag, expiresAt, replicaReplayedOfRequest());
      }
      setCacheHeaders(reply, etag, expiresAt);
    }
    const ifNoneMatch = request.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && ifNoneMatches(ifNoneMatch, etag)) {
      void reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      return Promise.resolve('');
    }
    return Promise.resolve(payload);
  };
  cacheableHooks.add(onSend);
  if (!cache) return { onSend };

  const onRequest = (request: FastifyRequest, reply: FastifyReply, done: Done): void => {
    const storeId = request.storefront?.storeId;
    if (!storeId || (request.method !== 'GET' && request.method !== 'HEAD') || forACustomer(request)) {
      done();
      return;
    }
    const found = cache.lookup(storeId, `${storeId} ${request.url}`, productOf?.(request) ?? null);
    if ('ticket' in found) {
      tickets.set(request, found.ticket);
      done();
      return;
    }
    if (headersHoldUnsafeText(request)) {
      done();
      return;
    }
    const { entry } = found;
    setCacheHeaders(reply, entry.etag);
    const ifNoneMatch = request.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && ifNoneMatches(ifNoneMatch, entry.etag)) {
      void reply.code(304).send();
      return;
    }
    void reply.type('application/json; charset=utf-8').send(entry.body);
  };
  return { onRequest, onSend };
}
