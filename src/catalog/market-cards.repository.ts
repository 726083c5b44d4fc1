import { sql, type RawBuilder } from 'kysely';

/**
 * The SQL of a product card's prices in a market (decision `market-cards`), for every catalog read
 * that shows cards (products/, search/, collections/): the product's own columns in the default
 * market (`marketId` null), else its row of market_card_prices, over `products as p`.
 */
export function cardPrice(
  marketId: string | null,
  column: 'price_amount' | 'compare_at_amount',
): RawBuilder<number | null> {
  if (marketId === null) return sql<number | null>`${sql.ref(`p.${column}`)}`;
  return sql<number | null>`(SELECT ${sql.ref(`c.${column}`)} FROM market_card_prices c
    WHERE c.store_id = p.store_id AND c.market_id = ${marketId}::uuid AND c.product_id = p.id)`;
}

/** A card's `price_amount` and `compare_at_amount` columns in a market. */
export function cardPrices(marketId: string | null) {
  return [
    cardPrice(marketId, 'price_amount').as('price_amount'),
    cardPrice(marketId, 'compare_at_amount').as('compare_at_amount'),
  ] as const;
}
