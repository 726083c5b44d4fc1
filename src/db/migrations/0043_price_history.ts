import { sql, type Kysely } from 'kysely';

/**
 * Price history (decision `prior-price`, docs/decisions/markets.md): every price and compare-at a
 * variant had in each market (the default market's id is its store's), from when it had it. Written
 * with every change of a card price and every market's new rate or rounding, only when the price
 * there moved; read for the lowest price of the 30 days before a sale began (the EU's Omnibus rule).
 * Two changes in one transaction keep the last (the key holds the transaction's time).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE price_history (
      store_id uuid NOT NULL,
      variant_id uuid NOT NULL,
      market_id uuid NOT NULL,
      recorded_at timestamptz NOT NULL,
      amount bigint NOT NULL,
      compare_at_amount bigint,
      PRIMARY KEY (store_id, variant_id, market_id, recorded_at),
      FOREIGN KEY (store_id, variant_id) REFERENCES variants (store_id, id) ON DELETE CASCADE,
      FOREIGN KEY (store_id, market_id) REFERENCES markets (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX price_history_market_idx ON price_history (store_id, market_id)`.execute(db);
  // What every variant costs now in its store's default market, as the first entry of its history.
  await sql`
    INSERT INTO price_history (store_id, variant_id, market_id, recorded_at, amount, compare_at_amount)
    SELECT v.store_id, v.id, v.store_id, v.updated_at, v.price_amount, v.compare_at_amount FROM variants v`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS price_history`.execute(db);
}
