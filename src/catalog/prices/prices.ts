import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/tables.ts';
import { isKnownCountry } from '@storefront/address';
import { validationFailed } from '../../lib/errors.ts';
import {
  marketOfCountry,
  storeMarkets,
  type Market,
  type MarketPricing,
} from '../../markets/markets.service.ts';
import {
  refreshMarketCardRows,
  replaceVariantPrices,
  variantMarketPriceRows,
  variantPriceRows,
} from './prices.repository.ts';

export type { Market } from '../../markets/markets.service.ts';

/**
 * The market a storefront read is priced in (decision `markets`): the one holding `country`, the
 * default market without one. A country that is no ISO 3166-1 code is 400.
 */
export async function marketOfRead(
  deps: { db: Kysely<Database> },
  storeId: string,
  country: string | undefined,
): Promise<Market> {
  if (country !== undefined && !isKnownCountry(country.toUpperCase()))
    throw validationFailed('The country is not one.', [
      { pointer: '/country', detail: 'must be an ISO 3166-1 alpha-2 country code such as DE', in: 'query' },
    ]);
  return marketOfCountry(deps, storeId, country);
}

/** Variants' prices in a market other than the default (explicit, else converted), by variant id. */
export async function variantPricesIn(
  db: Kysely<Database>,
  storeId: string,
  pricing: MarketPricing,
  variantIds: readonly string[],
): Promise<Map<string, { priceAmount: number; compareAtAmount: number | null }>> {
  const rows = await variantMarketPriceRows(db, storeId, pricing, variantIds);
  return new Map(
    rows.map((row) => [row.id, { priceAmount: row.price_amount, compareAtAmount: row.compare_at_amount }]),
  );
}

/**
 * Prices in markets (decision `market-prices`): a variant's explicit prices in other currencies,
 * and each product's card price in each market other than the default, kept in step with every
 * change of its variants (as products.price_amount is for the default market).
 */

export interface VariantPrice {
  currency: string;
  amount: number;
  compareAtAmount: number | null;
}

/** The card prices of products (all, or some) in the given markets, recomputed. */
export function refreshMarketCards(
  trx: Transaction<Database> | Kysely<Database>,
  storeId: string,
  markets: readonly MarketPricing[],
  productIds?: readonly string[],
): Promise<void> {
  return refreshMarketCardRows(trx, storeId, markets, productIds);
}

/** After a change of products' variants or prices: their card prices in every market of the store. */
export async function refreshCardsInMarkets(
  trx: Transaction<Database> | Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<void> {
  const markets = (await storeMarkets({ db: trx }, storeId)).flatMap((market) =>
    market.pricing ? [market.pricing] : [],
  );
  await refreshMarketCardRows(trx, storeId, markets, productIds);
}

/** Explicit prices of variants, by variant id, in currency order. */
export async function pricesOfVariants(
  db: Kysely<Database>,
  storeId: string,
  variantIds: readonly string[],
): Promise<Map<string, VariantPrice[]>> {
  const rows = await variantPriceRows(db, storeId, variantIds);
  const out = new Map<string, VariantPrice[]>();
  for (const row of rows) {
    const list = out.get(row.variant_id) ?? [];
    list.push({
      currency: row.currency,
      amount: Number(row.amount),
      compareAtAmount: row.compare_at_amount === null ? null : Number(row.compare_at_amount),
    });
    out.set(row.variant_id, list);
  }
  return out;
}

/** Explicit prices as given (currency upper-cased, no compare-at: null). */
export function pricesOf(
  input: readonly { currency: string; amount: number; compareAtAmount?: number | null | undefined }[],
): VariantPrice[] {
  return input.map((price) => ({
    currency: price.currency.toUpperCase(),
    amount: price.amount,
    compareAtAmount: price.compareAtAmount ?? null,
  }));
}

/** Replaces a variant's explicit prices (the caller refreshes its product's cards). */
export function setVariantPrices(
  trx: Transaction<Database>,
  storeId: string,
  variantId: string,
  prices: readonly VariantPrice[],
): Promise<void> {
  return replaceVariantPrices(trx, storeId, variantId, prices);
}
