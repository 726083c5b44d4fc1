import { sql, type Kysely } from 'kysely';

/**
 * A search sorted by price (decision `price-sort-walks-an-index`) orders by the card price with
 * no price as 0, `coalesce(price_amount, 0)`, then the product's id: an index on exactly that
 * expression, in the default market (the product's own card price, its active products) and in
 * every other (the market's card rows), so that a page is read by walking the index in order and
 * stops after its rows, instead of pricing and sorting every product the filter keeps.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX products_active_price_sort_idx
    ON products (store_id, (coalesce(price_amount, 0)), id) WHERE status = 'active'`.execute(db);
  await sql`CREATE INDEX market_card_prices_sort_idx
    ON market_card_prices (store_id, market_id, (coalesce(price_amount, 0)), product_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS market_card_prices_sort_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS products_active_price_sort_idx`.execute(db);
}
