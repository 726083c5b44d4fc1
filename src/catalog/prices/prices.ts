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
import { currencyDigits } from '../../markets/currencies.ts';
import {
  allowLongStatements,
  analyzeMarketPrices,
  priceListBoundaries,
  priorPriceRows,
  recordPriceHistory,
  refreshMarketCardRows,
  replaceVariantPrices,
  variantMarketPriceRows,
  variantPriceRows,
} from './prices.repository.ts';

export type { Market } from '../../markets/markets.service.ts';
export type { ReadPricing } from '../market-cards.repository.ts';
import type { ReadPricing } from '../market-cards.repository.ts';
import { storeSetting } from '../../db/settings-cache.ts';
import { lockScopeShared } from '../../db/advisory-lock.ts';

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

/**
 * How a read prices for a buyer (decisions `markets` and `price-function`): in its market, with the
 * price lists that apply to its groups now. Null on the fast path: the default market of a store
 * without price lists, whose prices are the variants' and the cards' own columns.
 */
export async function readPricing(
  deps: { db: Kysely<Database> },
  storeId: string,
  market: Market,
  groupIds: readonly string[] = [],
  at: Date = new Date(),
): Promise<ReadPricing | null> {
  const boundaries = await storeSetting(deps.db, storeId, 'price-lists', () =>
    priceListBoundaries(deps.db, storeId),
  );
  if (market.pricing === null && boundaries === null) return null;
  const next = boundaries?.find((boundary) => boundary > at.getTime());
  return {
    marketId: market.id,
    currency: market.currency,
    conversion: market.pricing,
    lists:
      boundaries === null
        ? null
        : { groupIds: [...groupIds].sort(), at, until: next === undefined ? null : new Date(next) },
  };
}

/** Variants' prices as a read shows them (its market's, with its price lists), by variant id. */
export async function variantPricesIn(
  db: Kysely<Database>,
  storeId: string,
  pricing: ReadPricing,
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

/**
 * After a market's new rate, rounding or currency (the composition hands this to markets): its
 * card prices recomputed, and the prices that moved there entered in the price history.
 */
export async function refreshMarketCards(
  trx: Transaction<Database> | Kysely<Database>,
  storeId: string,
  markets: readonly MarketPricing[],
): Promise<void> {
  // Every product and variant of the store, in one transaction: a large catalog takes longer than
  // a request's statement timeout allows (100k products: about 40 s on PostgreSQL, bench/RESULTS.md).
  await allowLongStatements(trx);
  await refreshMarketCardRows(trx, storeId, markets);
  await recordPriceHistory(trx, storeId, markets);
  await analyzeMarketPrices(trx);
}

/** How the default market prices: the variants' own prices (converted by nothing). */
function defaultPricing(market: Market): MarketPricing {
  const digits = currencyDigits(market.currency) ?? 2;
  return {
    marketId: market.id,
    currency: market.currency,
    rate: '1',
    digits,
    baseDigits: digits,
    rounding: 'none',
  };
}

/**
 * The store's markets lock, shared (decision `market-cards`): the first thing a transaction that
 * writes products' card prices in the markets does, before it locks or writes any row of the
 * catalog. A market's creation, change or deletion holds it exclusively, so either that market's
 * transaction prices these products or this one sees that market.
 */
export function lockMarketsShared(trx: Kysely<Database>, storeId: string): Promise<void> {
  return lockScopeShared(trx, 'markets', storeId);
}

/**
 * After a change of products' variants or prices (the caller holding {@link lockMarketsShared}):
 * their card prices in every market of the store
 * other than the default (decision `market-cards`), and the prices that moved in any market entered
 * in the price history (decision `prior-price`).
 */
export async function refreshCardsInMarkets(
  trx: Transaction<Database>,
  storeId: string,
  productIds: readonly string[],
  /** The bench seed's bulk import keeps no history (its products have never had another price). */
  { history = true }: { history?: boolean } = {},
): Promise<void> {
  // The caller holds the store's markets lock, shared, taken before any row it locked
  // (`lockMarketsShared`): a market created or repriced meanwhile priced every product it could
  // see before it committed, and this read, after it, sees that market and prices these products
  // there (decision `market-cards`: every product has a card row in every market).
  const markets = await storeMarkets({ db: trx }, storeId);
  await refreshMarketCardRows(
    trx,
    storeId,
    markets.flatMap((market) => (market.pricing ? [market.pricing] : [])),
    productIds,
  );
  if (!history) return;
  await recordPriceHistory(
    trx,
    storeId,
    markets.map((market) => market.pricing ?? defaultPricing(market)),
    productIds,
  );
}

/**
 * The prior prices (decision `prior-price`) of products on sale in a market: per variant on sale,
 * and per product the lowest of its variants'.
 */
export async function priorPrices(
  db: Kysely<Database>,
  storeId: string,
  market: Pick<Market, 'id'>,
  productIds: readonly string[],
): Promise<{ byProduct: Map<string, number>; byVariant: Map<string, number> }> {
  const rows = await priorPriceRows(db, storeId, market.id, productIds);
  const byProduct = new Map<string, number>();
  const byVariant = new Map<string, number>();
  for (const row of rows) {
    byVariant.set(row.variant_id, row.prior);
    const lowest = byProduct.get(row.product_id);
    if (lowest === undefined || row.prior < lowest) byProduct.set(row.product_id, row.prior);
  }
  return { byProduct, byVariant };
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
