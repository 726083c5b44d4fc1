import type { Kysely } from 'kysely';
import { noteReplicaRead, replicaReplayedOfRequest } from './bounds.ts';
import type { Db } from './database.ts';
import type { Database } from './tables.ts';

/**
 * A store's settings that every cart and checkout prices with and a merchant rarely changes (its tax
 * rates, its shipping zones and methods), kept by the API process instead of read on every pricing
 * (decision `settings-cache`): a purchase priced them four times (its address, its options, its
 * method, its checkout), two statements each.
 *
 * Invalidation is the read cache's (decision `read-cache-invalidation`): the tables' triggers (migration 0034) notify
 * `storefront_read` with the store's catalog scope at commit, and every connection listens, so the
 * process that made a change has dropped the store's settings before its COMMIT returns; other
 * processes hear of it a moment later. A notification can be lost (a connection opened after it was
 * sent), so an entry is also used for at most `MAX_AGE_MS`. A load that was under way when a change
 * arrived is used by its caller but not kept. Only a database handle registered with `watch` caches
 * (the API's); any other (a transaction, a test's bare handle) reads every time. The catalog's
 * handle, when it reads from a replica (decision `replica-reads`), has a cache of its own: what it
 * reads may be as old as the replica's lag, and a cart or a checkout never prices with it.
 */

/** The longest an entry is used after its load, whatever the notifications say. */
const MAX_AGE_MS = 1000;
/** Stores kept per process (least recently loaded dropped first). */
const MAX_STORES = 10_000;

interface Entry {
  value: unknown;
  loadedAt: number;
  /** The product the value shows, when it goes stale with that product's stock (variantValues). */
  product: string | null;
  /**
   * Read from the replica, which had replayed the WAL up to here (decision `replica-reads`): a
   * request served from this entry counts as a read from the replica for the read cache.
   */
  replayed: number | undefined;
}

/** Products whose stock moved, remembered per store (beyond this, a stock change drops the store). */
const MAX_MOVED_PRODUCTS = 10_000;
/** Entries kept per store (beyond this, the store's entries are dropped and read again). */
const MAX_ENTRIES = 10_000;

interface Store {
  /** Moved on by every change of the store's catalog or settings (`c`). */
  catalog: number;
  /** Moved on by every stock change of one of its products (`s`). */
  stock: number;
  /** The `stock` count at each product's last stock change. */
  moved: Map<string, number>;
  entries: Map<string, Entry>;
  /** The keys of the entries of each product (what its stock change drops). */
  byProduct: Map<string, string[]>;
}

/** `entry`, noted as a read from the replica when it was read from one. */
function used(entry: Entry): Entry {
  if (entry.replayed !== undefined) noteReplicaRead(entry.replayed);
  return entry;
}

class StoreSettings {
  readonly #stores = new Map<string, Store>();

  /** A notification about the store: all of it (`c`), or one product's stock (`s`). */
  changed(storeId: string, product: string | null): void {
    const store = this.#stores.get(storeId);
    if (!store) return;
    if (product === null || store.moved.size >= MAX_MOVED_PRODUCTS) {
      store.catalog += 1;
      store.moved.clear();
      store.entries.clear();
      store.byProduct.clear();
      return;
    }
    store.stock += 1;
    store.moved.set(product, store.stock);
    for (const key of store.byProduct.get(product) ?? []) store.entries.delete(key);
    store.byProduct.delete(product);
  }

  #store(storeId: string): Store {
    let store = this.#stores.get(storeId);
    if (!store) {
      if (this.#stores.size >= MAX_STORES) this.#stores.delete(this.#stores.keys().next().value!);
      store = { catalog: 0, stock: 0, moved: new Map(), entries: new Map(), byProduct: new Map() };
      this.#stores.set(storeId, store);
    }
    return store;
  }

  #keep(store: Store, key: string, entry: Entry): void {
    if (!store.entries.has(key)) {
      if (store.entries.size >= MAX_ENTRIES) {
        store.entries.clear();
        store.byProduct.clear();
      }
      if (entry.product !== null) {
        const keys = store.byProduct.get(entry.product);
        if (keys) keys.push(key);
        else store.byProduct.set(entry.product, [key]);
      }
    }
    store.entries.set(key, entry);
  }

  #fresh(entry: Entry | undefined, now: number): entry is Entry {
    return entry !== undefined && now - entry.loadedAt < MAX_AGE_MS;
  }

  async get<T>(storeId: string, name: string, load: () => Promise<T>): Promise<T> {
    const store = this.#store(storeId);
    const now = performance.now();
    const entry = store.entries.get(name);
    if (this.#fresh(entry, now)) return used(entry).value as T;
    const catalog = store.catalog;
    const value = await load();
    if (store.catalog === catalog && this.#stores.get(storeId) === store)
      this.#keep(store, name, { value, loadedAt: now, product: null, replayed: replicaReplayedOfRequest() });
    return value;
  }

  async many<T>(
    storeId: string,
    keys: readonly string[],
    load: (missing: readonly string[]) => Promise<Map<string, { value: T; product: string }>>,
    refresh: boolean,
  ): Promise<Map<string, T>> {
    const store = this.#store(storeId);
    const now = performance.now();
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const key of keys) {
      const entry = refresh ? undefined : store.entries.get(`v:${key}`);
      if (this.#fresh(entry, now)) found.set(key, used(entry).value as T);
      else missing.push(key);
    }
    if (missing.length === 0) return found;
    const { catalog, stock } = store;
    const loaded = await load(missing);
    const replayed = replicaReplayedOfRequest();
    const current = store.catalog === catalog && this.#stores.get(storeId) === store;
    for (const [key, { value, product }] of loaded) {
      found.set(key, value);
      // Kept unless its product's stock (or the store's catalog) moved while it was read.
      if (current && (store.moved.get(product) ?? -1) <= stock)
        this.#keep(store, `v:${key}`, { value, loadedAt: now, product, replayed });
    }
    return found;
  }
}

const watched = new WeakMap<Kysely<Database>, StoreSettings>();

/**
 * Caches the settings read through `db` (the API process's handle), dropping a store's at each
 * catalog notification of it. Returns the unsubscribe.
 */
export function watchStoreSettings(db: Kysely<Database>, subscribe: Db['onReadChange']): () => void {
  const settings = new StoreSettings();
  watched.set(db, settings);
  const unsubscribe = subscribe((payload) => {
    // `c <store>` (catalog and settings) or `s <store> <product>` (one product's stock).
    if (payload.startsWith('c ')) settings.changed(payload.slice(2, 38), null);
    else if (payload.startsWith('s ')) settings.changed(payload.slice(2, 38), payload.slice(39, 75));
  });
  return () => {
    unsubscribe();
    watched.delete(db);
  };
}

/** The setting `name` of the store, from this process's cache when `db` is watched, else `load()`. */
export function storeSetting<T>(
  db: Kysely<Database>,
  storeId: string,
  name: string,
  load: () => Promise<T>,
): Promise<T> {
  const settings = watched.get(db);
  return settings ? settings.get(storeId, name, load) : load();
}

/**
 * Values by key (a variant's price and titles), each of one product, from this process's cache when
 * `db` is watched: dropped with the store's catalog, and with their product's stock (`s`
 * notifications), used for at most a second. `load` reads the keys not kept (a key it does not
 * answer is not kept either). With `refresh`, every key is read afresh and what is read is kept (a
 * caller that must not act on a cached value, whose read the next ones can use).
 */
export function variantValues<T>(
  db: Kysely<Database>,
  storeId: string,
  keys: readonly string[],
  load: (missing: readonly string[]) => Promise<Map<string, { value: T; product: string }>>,
  refresh = false,
): Promise<Map<string, T>> {
  const settings = watched.get(db);
  if (settings) return settings.many(storeId, keys, load, refresh);
  return load(keys).then((loaded) => new Map([...loaded].map(([key, { value }]) => [key, value])));
}
