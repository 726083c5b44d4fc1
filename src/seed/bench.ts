import {
  importProducts,
  productCount,
  refreshProductStatistics,
  type BulkProduct,
} from '../catalog/products/products.service.ts';
import { createStorefrontKey } from '../keys/keys.service.ts';
import { createStore } from '../onboarding/onboarding.service.ts';
import { ownerEmails } from '../staff/owner-notices.ts';
import { openStaffSession } from '../staff/staff.service.ts';
import { findStoreWithSlug } from '../stores/stores.service.ts';
import type { SeedDeps } from './demo.ts';

/** Products per import: one transaction of two statements (decision `bulk-import`). */
export const BENCH_BATCH = 5000;
/**
 * Imports in flight: while the database writes one batch, the next is built and sent (on
 * PostgreSQL, on a second connection; PGlite runs them one after the other).
 */
export const BENCH_PARALLEL = 2;

/** Words of the made-up vocabulary (`--words`): 4 to 9 letters, about 15 products each at 100k. */
export const BENCH_VOCABULARY = 20_000;
const CONSONANTS = 'bcdfghjklmnprstvwz';
const VOWELS = 'aeiou';

/**
 * Word `i` of the made-up vocabulary: 2 to 4 consonant-vowel syllables, every other word with a
 * final consonant; distinct for every `i` below BENCH_VOCABULARY.
 */
export function benchWord(i: number): string {
  const syllables = 2 + (i % 3);
  const rest = Math.floor(i / 6);
  const final = Math.floor(i / 3) % 2 === 1;
  let code = (rest * 1_000_003 + syllables * 4_999_999 + (final ? 123_457 : 0)) % 90 ** syllables;
  let word = '';
  for (let s = 0; s < syllables; s += 1) {
    word += CONSONANTS[code % 18]! + VOWELS[Math.floor(code / 18) % 5]!;
    code = Math.floor(code / 90);
  }
  return final ? word + CONSONANTS[rest % 18]! : word;
}

/** Three words of the vocabulary for product `n`, scattered over it, capitalised. */
function wordsTitle(n: number): string {
  return [0, 1, 2]
    .map((k) => benchWord((Math.imul(n * 3 + k + 1, 2654435761) >>> 0) % BENCH_VOCABULARY))
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** Product number `n` of a benchmark store: two variants, S and L, 5.00 apart. */
function benchProduct(n: number, createdAt: Date, words: boolean): BulkProduct {
  const price = 1000 + (n % 100) * 10;
  return {
    title: words ? wordsTitle(n) : `Bench Product ${n}`,
    description: `Benchmark product number ${n}.`,
    image: `https://images.storefront.test/bench/${n % 50}.jpg`,
    tags: [`group-${n % 10}`],
    createdAt,
    variants: ['S', 'L'].map((label, position) => ({
      label,
      sku: `B-${n}-${label}`,
      priceAmount: price + position * 500,
      onHand: 1_000_000,
    })),
  };
}

export interface BenchSeed {
  storeId: string;
  publishableKey: string;
  staffToken: string;
  products: number;
}

/**
 * A large catalog for load benchmarks: N active products with two variants each, inserted in
 * batches through the catalog's bulk import (no events: a benchmark store is not a merchant's).
 * Into an existing store, the new products are numbered after the ones it has, so their SKUs do
 * not collide. Progress is reported through `onProgress` after each batch (the CLI draws a bar).
 * With `words`, titles are three words of a made-up vocabulary, so the store's search dictionary
 * is as large as a real catalog's (typo searches). At the end the catalog's planner statistics are refreshed (decision `analyze-after-bulk-import`).
 */
export async function seedBench(
  deps: Omit<SeedDeps, 'keyring' | 'media'>,
  options: {
    products: number;
    slug: string;
    batch?: number;
    parallel?: number;
    /** Titles of three words of a made-up vocabulary (BENCH_VOCABULARY words) instead of "Bench Product N". */
    words?: boolean;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<BenchSeed> {
  const existing = await findStoreWithSlug(deps, options.slug);
  const storeId =
    existing?.id ??
    (
      await createStore(deps, {
        name: 'Benchmark Store',
        slug: options.slug,
        currency: 'USD',
        ownerEmail: `owner@${options.slug}.storefront.test`,
      })
    ).store.id;
  const [ownerEmail] = await ownerEmails(deps, storeId);

  const first = existing ? await productCount(deps, storeId) : 0;
  const batch = options.batch ?? BENCH_BATCH;
  const base = deps.clock.now().getTime() - options.products * 1000;
  options.onProgress?.(0, options.products);
  const parallel = options.parallel ?? BENCH_PARALLEL;
  let next = 0;
  let done = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < options.products && !failed) {
      const start = next;
      const size = Math.min(batch, options.products - start);
      next += size;
      const products = Array.from({ length: size }, (_, i) =>
        benchProduct(first + start + i, new Date(base + (start + i) * 1000), options.words === true),
      );
      try {
        await importProducts(deps, storeId, products);
      } catch (error) {
        failed = true; // the other imports stop after their batch
        throw error;
      }
      done += size;
      options.onProgress?.(done, options.products);
    }
  };
  const imports = await Promise.allSettled(Array.from({ length: parallel }, worker));
  const failure = imports.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  await refreshProductStatistics(deps);
  const key = await createStorefrontKey(deps, storeId, { label: 'Benchmark', allowedOrigins: [] });
  const session = await openStaffSession(deps, storeId, ownerEmail!);
  return { storeId, publishableKey: key.key, staffToken: session.token, products: options.products };
}
