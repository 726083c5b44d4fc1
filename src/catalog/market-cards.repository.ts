import { sql, type RawBuilder } from 'kysely';
import type { MarketPricing } from '../markets/markets.service.ts';

/**
 * The SQL of prices as a storefront read shows them (decisions `market-cards` and
 * `price-function`), for every catalog read that prices (products/, search/, collections/,
 * prices/): a variant `v`'s price in a market, with the price lists that apply to the buyer, and a
 * product `p`'s card price.
 */

/** How a read prices. */
export interface ReadPricing {
  /** The market (the default market's id is its store's). */
  marketId: string;
  currency: string;
  /** Its conversion of the store's prices; null in the default market (the variants' own). */
  conversion: MarketPricing | null;
  /**
   * The price lists to apply, for these groups at this time, which holds `until` the next moment a
   * list starts or ends (null: none does); null when the store has none.
   */
  lists: { groupIds: readonly string[]; at: Date; until?: Date | null } | null;
}

/** A variant `v`'s price (or compare-at) in the market, before price lists. */
export function marketPrice(
  pricing: ReadPricing,
  column: 'price_amount' | 'compare_at_amount',
): RawBuilder<number | null> {
  const m = pricing.conversion;
  if (m === null) return sql<number | null>`${sql.ref(`v.${column}`)}`;
  const fn = column === 'price_amount' ? 'storefront_variant_price' : 'storefront_variant_compare_at';
  return sql<
    number | null
  >`${sql.raw(fn)}(v.store_id, v.id, ${sql.ref(`v.${column}`)}, ${m.currency}, ${m.rate}::numeric, ${m.digits}::int, ${m.baseDigits}::int, ${m.rounding})`;
}

/** A variant `v`'s price as shown and charged: the market's, with the price lists that apply. */
export function variantPrice(pricing: ReadPricing): RawBuilder<number> {
  const price = marketPrice(pricing, 'price_amount');
  const lists = pricing.lists;
  if (lists === null) return sql<number>`${price}`;
  return sql<number>`storefront_effective_price(v.store_id, v.id, ${pricing.marketId}::uuid, ${pricing.currency}, ${[...lists.groupIds]}::uuid[], ${lists.at}::timestamptz, ${price})`;
}

/** A variant `v`'s compare-at as shown: the regular price during a list's sale, none under an override. */
export function variantCompareAt(pricing: ReadPricing): RawBuilder<number | null> {
  const compareAt = marketPrice(pricing, 'compare_at_amount');
  const lists = pricing.lists;
  if (lists === null) return compareAt;
  return sql<
    number | null
  >`storefront_effective_compare_at(v.store_id, v.id, ${pricing.marketId}::uuid, ${pricing.currency}, ${[...lists.groupIds]}::uuid[], ${lists.at}::timestamptz, ${marketPrice(pricing, 'price_amount')}, ${compareAt})`;
}

/**
 * A product `p`'s card price (or compare-at): its own columns in the default market, its row of
 * market_card_prices in another; with price lists, its lowest live variant's price as shown (and
 * that variant's compare-at when higher), computed for the read.
 */
export function cardPrice(
  pricing: ReadPricing | null,
  column: 'price_amount' | 'compare_at_amount',
  { joined = false }: { joined?: boolean } = {},
): RawBuilder<number | null> {
  if (pricing === null || (pricing.conversion === null && pricing.lists === null))
    return sql<number | null>`${sql.ref(`p.${column}`)}`;
  if (pricing.lists === null && joined) return sql<number | null>`${sql.ref(`mc.${column}`)}`;
  if (pricing.lists === null)
    return sql<number | null>`(SELECT ${sql.ref(`c.${column}`)} FROM market_card_prices c
      WHERE c.store_id = p.store_id AND c.market_id = ${pricing.marketId}::uuid AND c.product_id = p.id)`;
  const live = sql`FROM variants v WHERE v.store_id = p.store_id AND v.product_id = p.id AND v.archived_at IS NULL`;
  if (column === 'price_amount') return sql<number | null>`(SELECT min(${variantPrice(pricing)}) ${live})`;
  return sql<number | null>`(SELECT CASE WHEN x.compare_at > x.price THEN x.compare_at END FROM (
    SELECT ${variantPrice(pricing)} AS price, ${variantCompareAt(pricing)} AS compare_at, v.position ${live}
    ORDER BY 1, 3 LIMIT 1) x)`;
}

/**
 * The market whose stored card rows a read of products `p` can join as `mc` (`cardPrice(…,
 * {joined: true})`): a market other than the default, without price lists; else null. A join makes
 * the card price a column the planner can sort on, where a subquery per product must price every
 * product first (bench/RESULTS.md: a whole-catalog price sort in a market).
 */
export function joinedCardMarket(pricing: ReadPricing | null): string | null {
  return pricing !== null && pricing.conversion !== null && pricing.lists === null ? pricing.marketId : null;
}

/** A card's `price_amount` and `compare_at_amount` columns as the read shows them. */
export function cardPrices(pricing: ReadPricing | null) {
  return [
    cardPrice(pricing, 'price_amount').as('price_amount'),
    cardPrice(pricing, 'compare_at_amount').as('compare_at_amount'),
  ] as const;
}
