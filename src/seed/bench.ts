import { importProducts } from '../catalog/products.service.ts';
import { createStorefrontKey } from '../keys/keys.service.ts';
import { createStore } from '../onboarding/onboarding.service.ts';
import { ownerEmails } from '../staff/owner-notices.ts';
import { openStaffSession } from '../staff/staff.service.ts';
import { findStoreWithSlug } from '../stores/stores.service.ts';
import type { SeedDeps } from './demo.ts';

const BATCH = 500;

export interface BenchSeed {
  storeId: string;
  publishableKey: string;
  staffToken: string;
  products: number;
}

/**
 * A large catalog for load benchmarks: N active products with two variants each, inserted in
 * batches through the catalog's bulk import (no events: a benchmark store is not a merchant's). Progress is
 * reported through `onProgress` (the CLI draws a bar on a TTY).
 */
export async function seedBench(
  deps: Omit<SeedDeps, 'keyring'>,
  options: {
    products: number;
    slug: string;
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

  const base = deps.clock.now().getTime() - options.products * 1000;
  for (let done = 0; done < options.products; done += BATCH) {
    const size = Math.min(BATCH, options.products - done);
    await importProducts(
      deps,
      storeId,
      Array.from({ length: size }, (_, i) => {
        const n = done + i;
        const price = 1000 + (n % 100) * 10;
        return {
          title: `Bench Product ${n}`,
          description: `Benchmark product number ${n}.`,
          image: `https://images.storefront.test/bench/${n % 50}.jpg`,
          tags: [`group-${n % 10}`],
          createdAt: new Date(base + n * 1000),
          variants: ['S', 'L'].map((label, position) => ({
            label,
            sku: `B-${n}-${label}`,
            priceAmount: price + position * 500,
            onHand: 1_000_000,
          })),
        };
      }),
    );
    options.onProgress?.(done + size, options.products);
  }
  const key = await createStorefrontKey(deps, storeId, { label: 'Benchmark', allowedOrigins: [] });
  const session = await openStaffSession(deps, storeId, ownerEmail!);
  return { storeId, publishableKey: key.key, staffToken: session.token, products: options.products };
}
