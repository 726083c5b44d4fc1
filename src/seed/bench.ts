import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { createStorefrontKey } from '../keys/keys.service.ts';
import { openStaffSession } from '../staff/staff.service.ts';
import { findStoreBySlug } from '../stores/stores.repository.ts';
import { createStore } from '../stores/stores.service.ts';

const BATCH = 500;

export interface BenchSeed {
  storeId: string;
  publishableKey: string;
  staffToken: string;
  products: number;
}

/**
 * A large catalog for load benchmarks: N active products with two variants each, inserted in
 * batches straight into the tables (no events: a benchmark store is not a merchant's). Progress is
 * reported through `onProgress` (the CLI draws a bar on a TTY).
 */
export async function seedBench(
  db: Kysely<Database>,
  options: {
    products: number;
    slug: string;
    sessionTtlMs: number;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<BenchSeed> {
  const existing = await findStoreBySlug(db, options.slug);
  const storeId =
    existing?.id ??
    (
      await createStore(db, {
        name: 'Benchmark Store',
        slug: options.slug,
        currency: 'USD',
        ownerEmail: `owner@${options.slug}.storefront.test`,
      })
    ).store.id;
  const ownerEmail = existing
    ? (
        await db
          .selectFrom('staff_members')
          .select('email')
          .where('store_id', '=', storeId)
          .where('role', '=', 'owner')
          .executeTakeFirstOrThrow()
      ).email
    : `owner@${options.slug}.storefront.test`;

  const base = Date.now() - options.products * 1000;
  for (let done = 0; done < options.products; done += BATCH) {
    const size = Math.min(BATCH, options.products - done);
    const products = Array.from({ length: size }, (_, i) => {
      const n = done + i;
      return {
        store_id: storeId,
        id: randomUUID(),
        title: `Bench Product ${n}`,
        description: `Benchmark product number ${n}.`,
        status: 'active' as const,
        image: `https://images.storefront.test/bench/${n % 50}.jpg`,
        tags: [`group-${n % 10}`],
        price_amount: 1000 + (n % 100) * 10,
        created_at: new Date(base + n * 1000),
      };
    });
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('products').values(products).execute();
      await trx
        .insertInto('variants')
        .values(
          products.flatMap((p, i) =>
            ['S', 'L'].map((label, position) => ({
              store_id: storeId,
              product_id: p.id,
              position,
              sku: `B-${done + i}-${label}`,
              label,
              price_amount: p.price_amount + position * 500,
              compare_at_amount: null,
              on_hand: 1_000_000,
            })),
          ),
        )
        .execute();
    });
    options.onProgress?.(done + size, options.products);
  }
  const key = await createStorefrontKey(db, storeId, { label: 'Benchmark', allowedOrigins: [] });
  const session = await openStaffSession(db, storeId, ownerEmail, options.sessionTtlMs);
  return { storeId, publishableKey: key.key, staffToken: session.token, products: options.products };
}
