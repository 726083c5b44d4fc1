import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/tables.ts';
import type { EmittedData } from '../../events/events.schemas.ts';
import { recordEvent } from '../../events/events.ts';
import { notFound } from '../../lib/errors.ts';
import type { ProductCreatedData, ProductDeletedData, ProductUpdatedData } from '../catalog.events.ts';
import type { ProductRow, ProductStatus } from '../catalog.tables.ts';
import { lockProduct, refreshCardPrice as refreshCardPriceRow } from './products.repository.ts';
import { lockMarketsShared, refreshCardsInMarkets } from '../prices/prices.ts';

/**
 * What every change to a product or to its variants goes through, in its transaction: the product
 * locked first, its card price recomputed, and the storefront told (product.created, .updated or
 * .deleted as its visibility changed). products.service.ts and variants/ call these.
 */

export const noProduct = () => notFound('No product with that id in this store.');

export const isVisible = (status: ProductStatus): boolean => status === 'active';

/**
 * The product, locked for the change, after the store's markets lock (shared): a change that
 * reprices the product in every market (refreshCardPrice) takes that lock, and a market's creation
 * holds it while its card rows and price history reference the products and variants. Taken before
 * any row of the catalog, it can never be waited for by a transaction that waits for those rows
 * (decision `market-cards`).
 */
export async function lockExistingProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<ProductRow> {
  await lockMarketsShared(db, storeId);
  const row = await lockProduct(db, storeId, productId);
  if (!row) throw noProduct();
  return row;
}

/**
 * Recomputes the card price (the lowest variant price, null without variants) and its compare-at
 * (the cheapest variant's, first by position, when higher than its price), in the default market and
 * in every other, and returns the default market's.
 */
export async function refreshCardPrice(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
): Promise<number | null> {
  const price = await refreshCardPriceRow(trx, storeId, productId);
  // And in every other market (decision `market-cards`).
  await refreshCardsInMarkets(trx, storeId, [productId]);
  return price;
}

/** Emits the storefront-visibility event of a product change (created, updated or deleted). */
export async function recordVisibilityChange(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
  was: ProductStatus,
  now: ProductStatus,
  changed: boolean,
): Promise<void> {
  if (!isVisible(was) && isVisible(now)) {
    await recordEvent(trx, {
      storeId,
      type: 'product.created',
      resource: `product:${productId}`,
      data: { productId } satisfies EmittedData<typeof ProductCreatedData>,
    });
  } else if (isVisible(was) && !isVisible(now)) {
    await recordEvent(trx, {
      storeId,
      type: 'product.deleted',
      resource: `product:${productId}`,
      data: { productId, reason: now as 'draft' | 'archived' } satisfies EmittedData<
        typeof ProductDeletedData
      >,
    });
  } else if (isVisible(now) && changed) {
    await recordEvent(trx, {
      storeId,
      type: 'product.updated',
      resource: `product:${productId}`,
      data: { productId } satisfies EmittedData<typeof ProductUpdatedData>,
    });
  }
}
