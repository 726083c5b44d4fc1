import type { Kysely } from 'kysely';
import { variantValues } from '../../db/settings-cache.ts';
import type { Database } from '../../db/tables.ts';
import { available } from './inventory.ts';
import { findSellableVariants } from './inventory.repository.ts';
import { variantPricesIn, type ReadPricing } from '../prices/prices.ts';

/** How carts and checkout price for a buyer (decisions `markets` and `price-function`). */
export { readPricing, type ReadPricing } from '../prices/prices.ts';

/**
 * What carts and checkout may sell: the current price and titles of a store's variants whose
 * product is active. The catalog answers; carts and orders never read its tables.
 */
export interface PricedVariant {
  variantId: string;
  productId: string;
  /** The product's title. */
  title: string;
  label: string;
  sku: string | null;
  priceAmount: number;
  /**
   * Units available now (`on_hand − reserved`, never negative), read without locks: a hint for a
   * pre-check (decision `checkout-after-a-crash`). Only a reservation decides (inventory.ts).
   */
  available: number;
  /** Grams, for weight-based shipping; null when not given. */
  weightGrams: number | null;
  /** Whether the variant is shipped (decision `shipping-zones-and-methods`). */
  requiresShipping: boolean;
  /** Decision `tax-classes`: its class, else its product's, else `standard`. */
  taxClass: string;
  /** Decision `gift-card-products`: its product sells gift cards (issued when the order is paid). */
  giftCard: boolean;
}

/**
 * Current prices of the store's sellable variants (active products only), by variant id: in the
 * market `pricing` prices in (decision `market-prices`), the default market's when null.
 */
export async function sellableVariants(
  deps: { db: Kysely<Database> },
  storeId: string,
  variantIds: readonly string[],
  pricing: ReadPricing | null = null,
): Promise<Map<string, PricedVariant>> {
  if (variantIds.length === 0) return new Map();
  const [rows, inMarket] = await Promise.all([
    findSellableVariants(deps.db, storeId, variantIds),
    pricing === null ? null : variantPricesIn(deps.db, storeId, pricing, variantIds),
  ]);
  return new Map(
    rows.map(({ onHand, reserved, ...row }) => [
      row.variantId,
      {
        ...row,
        priceAmount: inMarket?.get(row.variantId)?.priceAmount ?? row.priceAmount,
        available: available({ on_hand: onHand, reserved }),
      },
    ]),
  );
}

/**
 * Variants' prices in a market other than the default, read now (in the caller's transaction: a
 * checkout checks its quote with it under its reservations' locks).
 */
export function marketPricesNow(
  db: Kysely<Database>,
  storeId: string,
  pricing: ReadPricing,
  variantIds: readonly string[],
): Promise<Map<string, { priceAmount: number; compareAtAmount: number | null }>> {
  return variantPricesIn(db, storeId, pricing, variantIds);
}

/**
 * sellableVariants through the API process's cache of the variants carts read, dropped at every
 * catalog change of the store and every stock change of their product (decision `settings-cache`).
 * `cached` (showing a cart, its shipping options, a checkout's first quote) takes what is kept, at
 * most a second old; `fresh` (a new cart's check, a quote that refuses or is priced again) reads
 * the catalog and keeps what it read for the reads that follow.
 */
export async function cachedSellableVariants(
  deps: { db: Kysely<Database> },
  storeId: string,
  variantIds: readonly string[],
  read: 'cached' | 'fresh' = 'cached',
  pricing: ReadPricing | null = null,
): Promise<Map<string, PricedVariant>> {
  if (variantIds.length === 0) return new Map<string, PricedVariant>();
  if (pricing === null)
    return variantValues<PricedVariant>(
      deps.db,
      storeId,
      variantIds,
      async (missing) => {
        const found = await sellableVariants(deps, storeId, missing);
        return new Map(
          [...found].map(([id, variant]) => [id, { value: variant, product: variant.productId }]),
        );
      },
      read === 'fresh',
    );
  // With price lists, each read prices afresh: a list's start or end moves a price without a write.
  if (pricing.lists !== null) return sellableVariants(deps, storeId, variantIds, pricing);
  // Kept per market: the same variant has another price in each (`<market> <variant>`).
  const prefix = `${pricing.marketId} `;
  const found = await variantValues<PricedVariant>(
    deps.db,
    storeId,
    variantIds.map((id) => prefix + id),
    async (missing) => {
      const read = await sellableVariants(
        deps,
        storeId,
        missing.map((key) => key.slice(prefix.length)),
        pricing,
      );
      return new Map(
        [...read].map(([id, variant]) => [prefix + id, { value: variant, product: variant.productId }]),
      );
    },
    read === 'fresh',
  );
  return new Map([...found].map(([key, variant]) => [key.slice(prefix.length), variant]));
}
