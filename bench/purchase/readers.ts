/** Readers (--readers): shoppers browsing while the buyers buy. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { tally } from './format.ts';
import { call, closePool, expectAnswer, field, newPool } from './http.ts';
import type { CatalogProduct, Target } from './target.ts';

type ReadKind = 'page' | 'detail' | 'search' | 'filtered';
const READ_KINDS: readonly ReadKind[] = ['page', 'detail', 'search', 'filtered'];
type SearchFilter = 'none' | 'price' | 'available';

/** The reads of one span of buying (a warm-up or a recorded round). */
export interface Reads {
  /** Reads answered 2xx or 304. */
  ok: number;
  /** Failed reads by kind and status (`search 500`; status 0: a connection error or timeout). */
  failures: Record<string, number>;
  /** From the readers' start to the last read's answer. */
  seconds: number;
}

export const failedReads = (reads: Reads): number => Object.values(reads.failures).reduce((a, n) => a + n, 0);

function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}

/** The headers of reader `n`: the store's key and its own address, apart from the buyers' (10.0.x.y). */
function readerOf(target: Target, n: number): Record<string, string> {
  return { ...target.key, 'x-forwarded-for': `10.200.${(n >> 8) & 255}.${n & 255}` };
}

/**
 * A search (decision `storefront-search`, docs/search.md) that finds `product`: a word of its title (each word of `q` must
 * begin a word of the title, a SKU, …), with a filter it meets too: a price range around one of its
 * variants' prices, or `available=true` (`seed bench` puts 1,000,000 units on hand).
 */
function searchRoute(product: CatalogProduct, filter: SearchFilter, word: string): string {
  const query = new URLSearchParams({ q: word, limit: '20' });
  const price = pick(product.prices);
  if (filter === 'price' && price !== undefined) {
    query.set('minPrice', String(Math.max(0, price - 500)));
    query.set('maxPrice', String(price + 500));
  } else if (filter !== 'none') {
    query.set('available', 'true');
  }
  return `/storefront/v1/products?${query.toString()}`;
}

function readRoute(target: Target, kind: ReadKind): string {
  const product = pick(target.products);
  const word = product ? pick(product.words) : undefined;
  if (kind === 'page' || product === undefined) return '/storefront/v1/products?limit=20';
  if (kind === 'detail' || word === undefined) return `/storefront/v1/products/${product.id}`;
  return searchRoute(product, kind === 'search' ? 'none' : Math.random() < 0.5 ? 'price' : 'available', word);
}

/** Before any load: the readers' searches find something (or the bench would measure empty results). */
export async function checkSearches(target: Target): Promise<void> {
  const product = target.products.find((p) => p.words.length > 0);
  if (product === undefined) throw new Error('--readers: no seeded product has a title word to search for');
  const pool = newPool(target.server.url, 1);
  try {
    for (const word of product.words) {
      for (const filter of ['none', 'price', 'available'] as const) {
        const route = searchRoute(product, filter, word);
        const found = field(
          await expectAnswer(call(pool, 'GET', route, target.key), 200, `GET ${route}`),
          'items',
        );
        if (!Array.isArray(found) || found.length === 0)
          throw new Error(
            `--readers: GET ${route} found no products; the readers' searches would find nothing`,
          );
      }
    }
  } finally {
    await closePool(pool);
  }
}

/** Reader `n`: a read picked at random, again and again, until `stopped()`. */
async function browse(
  pool: Pool,
  target: Target,
  n: number,
  reads: Reads,
  stopped: () => boolean,
): Promise<void> {
  const headers = readerOf(target, n);
  while (!stopped()) {
    const kind = pick(READ_KINDS) ?? 'page';
    const answer = await call(pool, 'GET', readRoute(target, kind), headers);
    if ((answer.status >= 200 && answer.status < 300) || answer.status === 304) {
      reads.ok += 1;
    } else {
      tally(reads.failures, `${kind} ${answer.status}`);
      await sleep(50);
    }
  }
}

/** Runs `work` (the buyers) with `readers` shoppers browsing exactly as long; their reads (null: none). */
export async function withReaders<T>(
  pool: Pool | null,
  target: Target,
  readers: number,
  work: () => Promise<T>,
): Promise<{ result: T; reads: Reads | null }> {
  if (pool === null || readers === 0) return { result: await work(), reads: null };
  let stopped = false;
  const reads: Reads = { ok: 0, failures: {}, seconds: 0 };
  const started = performance.now();
  const loops = Promise.all(
    Array.from({ length: readers }, (_, n) => browse(pool, target, n, reads, () => stopped)),
  );
  let result: T;
  try {
    result = await work();
  } finally {
    stopped = true;
    await loops;
  }
  reads.seconds = (performance.now() - started) / 1000;
  return { result, reads };
}
