import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/tables.ts';
import type { MarketPricing } from '../../markets/markets.service.ts';
import { variantCompareAt, variantPrice, type ReadPricing } from '../market-cards.repository.ts';

/** All SQL on prices in markets: variants' explicit prices, and card prices per market. */

type Db = Kysely<Database> | Transaction<Database>;

export function variantPriceRows(db: Db, storeId: string, variantIds: readonly string[]) {
  if (variantIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('variant_prices')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('variant_id', 'in', [...variantIds])
    .orderBy('currency')
    .execute();
}

/** Replaces a variant's explicit prices. */
export async function replaceVariantPrices(
  db: Db,
  storeId: string,
  variantId: string,
  prices: readonly { currency: string; amount: number; compareAtAmount?: number | null | undefined }[],
): Promise<void> {
  await db
    .deleteFrom('variant_prices')
    .where('store_id', '=', storeId)
    .where('variant_id', '=', variantId)
    .execute();
  if (prices.length === 0) return;
  await db
    .insertInto('variant_prices')
    .values(
      prices.map((price) => ({
        store_id: storeId,
        variant_id: variantId,
        currency: price.currency,
        amount: price.amount,
        compare_at_amount: price.compareAtAmount ?? null,
      })),
    )
    .execute();
}

/** Variants' prices as a read shows them: in its market, with the price lists that apply. */
export async function variantMarketPriceRows(
  db: Db,
  storeId: string,
  pricing: ReadPricing,
  variantIds: readonly string[],
): Promise<{ id: string; price_amount: number; compare_at_amount: number | null }[]> {
  if (variantIds.length === 0) return [];
  const { rows } = await sql<{ id: string; price_amount: number; compare_at_amount: number | null }>`
    SELECT v.id, ${variantPrice(pricing)} AS price_amount, ${variantCompareAt(pricing)} AS compare_at_amount
    FROM variants v
    WHERE v.store_id = ${storeId}::uuid AND v.id = ANY(${[...variantIds]}::uuid[])`.execute(db);
  return rows;
}

/**
 * Recomputes the card prices of products (all the store's, or some) in the given markets (not the
 * default): the lowest live variant's market price (`storefront_variant_price`: its explicit price
 * in the market's currency, else its store price converted), and that variant's compare-at when
 * higher, as `refreshCardPrice` does for the default market. One statement for every market.
 */
export async function refreshMarketCardRows(
  db: Db,
  storeId: string,
  markets: readonly MarketPricing[],
  productIds?: readonly string[],
): Promise<void> {
  if (markets.length === 0 || productIds?.length === 0) return;
  const ids = productIds && [...productIds];
  const rows = marketsJson(markets);
  // The lowest live variant of each product in each market: one sort of the variants' prices,
  // written out over a join to their explicit prices (a lookup per product and a function call per
  // variant took 8.2 s at 100k products on PostgreSQL, this 5.7 s: bench/RESULTS.md).
  await sql`
    INSERT INTO market_card_prices AS c (store_id, market_id, product_id, price_amount, compare_at_amount)
    SELECT p.store_id, m.id, p.id, best.price, CASE WHEN best.compare_at > best.price THEN best.compare_at END
    FROM products p
    CROSS JOIN json_to_recordset(${rows}::json) AS m(id uuid)
    LEFT JOIN (
      SELECT DISTINCT ON (v.product_id, m.id) v.product_id, m.id AS market_id, x.price, x.compare_at
      FROM variants v
      ${marketPricesOfVariants(rows)}
      WHERE v.store_id = ${storeId}::uuid AND v.archived_at IS NULL
        ${ids ? sql`AND v.product_id = ANY(${ids}::uuid[])` : sql``}
      ORDER BY v.product_id, m.id, x.price, v.position
    ) best ON best.product_id = p.id AND best.market_id = m.id
    WHERE p.store_id = ${storeId}::uuid ${ids ? sql`AND p.id = ANY(${ids}::uuid[])` : sql``}
    ON CONFLICT (store_id, market_id, product_id) DO UPDATE
    SET price_amount = EXCLUDED.price_amount, compare_at_amount = EXCLUDED.compare_at_amount
    WHERE c.price_amount IS DISTINCT FROM EXCLUDED.price_amount
       OR c.compare_at_amount IS DISTINCT FROM EXCLUDED.compare_at_amount`.execute(db);
}

/**
 * Each variant `v` in each market `m` of `rows` (marketsJson), with `x.price` and `x.compare_at`:
 * `storefront_variant_price` and `storefront_variant_compare_at` written out over a join to the
 * variant's explicit price `vp` (PostgreSQL inlines no SQL function with a subquery; the join reads
 * the explicit prices once, by hash).
 */
function marketPricesOfVariants(rows: string) {
  return sql`CROSS JOIN json_to_recordset(${rows}::json)
      AS m(id uuid, currency text, rate numeric, digits integer, base_digits integer, rounding text)
    LEFT JOIN variant_prices vp ON vp.store_id = v.store_id AND vp.variant_id = v.id AND vp.currency = m.currency
    CROSS JOIN LATERAL (SELECT
      coalesce(vp.amount, storefront_market_price(v.price_amount, m.rate, m.digits, m.base_digits, m.rounding)) AS price,
      CASE WHEN vp.variant_id IS NOT NULL THEN vp.compare_at_amount
        ELSE storefront_market_price(v.compare_at_amount, m.rate, m.digits, m.base_digits, m.rounding) END AS compare_at
    ) x`;
}

/** The markets of a statement as one JSON parameter (read back by json_to_recordset as `m`). */
const marketsJson = (markets: readonly MarketPricing[]) =>
  JSON.stringify(
    markets.map((m) => ({
      id: m.marketId,
      currency: m.currency,
      rate: m.rate,
      digits: m.digits,
      base_digits: m.baseDigits,
      rounding: m.rounding,
    })),
  );

/**
 * Appends to the price history (decision `prior-price`) each variant's price and compare-at in each
 * market where they differ from its last entry there: of some products' variants, or of all the
 * store's. One statement.
 */
export async function recordPriceHistory(
  db: Db,
  storeId: string,
  markets: readonly MarketPricing[],
  productIds?: readonly string[],
): Promise<void> {
  if (markets.length === 0 || productIds?.length === 0) return;
  const productFilter = productIds ? sql`AND v.product_id = ANY(${[...productIds]}::uuid[])` : sql``;
  await sql`
    INSERT INTO price_history AS h (store_id, variant_id, market_id, recorded_at, amount, compare_at_amount)
    SELECT v.store_id, v.id, m.id, now(), x.price, x.compare_at
    FROM variants v
    ${marketPricesOfVariants(marketsJson(markets))}
    WHERE v.store_id = ${storeId}::uuid ${productFilter}
      AND ROW(x.price, x.compare_at) IS DISTINCT FROM (
        SELECT ROW(l.amount, l.compare_at_amount) FROM price_history l
        WHERE l.store_id = v.store_id AND l.variant_id = v.id AND l.market_id = m.id
        ORDER BY l.recorded_at DESC LIMIT 1)
    ON CONFLICT (store_id, variant_id, market_id, recorded_at) DO UPDATE
    SET amount = EXCLUDED.amount, compare_at_amount = EXCLUDED.compare_at_amount`.execute(db);
}

/**
 * The prior price (decision `prior-price`) of each variant on a compare-at sale in the market: the
 * lowest price it had in the 30 days before the sale began (the first entry of the last unbroken run
 * of entries whose compare-at is above the price), from its history. A variant not on sale, or with
 * no entry from before the sale, has none.
 */
export async function priorPriceRows(
  db: Db,
  storeId: string,
  marketId: string,
  productIds: readonly string[],
): Promise<{ product_id: string; variant_id: string; prior: number }[]> {
  if (productIds.length === 0) return [];
  const { rows } = await sql<{ product_id: string; variant_id: string; prior: number }>`
    SELECT v.product_id, v.id AS variant_id, p.prior
    FROM variants v
    CROSS JOIN LATERAL (
      SELECT min(h.recorded_at) AS began FROM price_history h
      WHERE h.store_id = v.store_id AND h.variant_id = v.id AND h.market_id = ${marketId}::uuid
        AND h.recorded_at > coalesce((
          SELECT max(o.recorded_at) FROM price_history o
          WHERE o.store_id = v.store_id AND o.variant_id = v.id AND o.market_id = ${marketId}::uuid
            AND NOT coalesce(o.compare_at_amount > o.amount, false)), '-infinity')
    ) sale
    CROSS JOIN LATERAL (
      SELECT min(h.amount) AS prior FROM price_history h
      WHERE h.store_id = v.store_id AND h.variant_id = v.id AND h.market_id = ${marketId}::uuid
        AND h.recorded_at < sale.began
        AND h.recorded_at >= coalesce((
          SELECT max(b.recorded_at) FROM price_history b
          WHERE b.store_id = v.store_id AND b.variant_id = v.id AND b.market_id = ${marketId}::uuid
            AND b.recorded_at <= sale.began - interval '30 days'), '-infinity')
    ) p
    WHERE v.store_id = ${storeId}::uuid AND v.product_id = ANY(${[...productIds]}::uuid[])
      AND v.archived_at IS NULL AND sale.began IS NOT NULL AND p.prior IS NOT NULL`.execute(db);
  return rows;
}

/** Whether the store has any price list (decision `price-function`: without one, no read applies any). */
/**
 * Null when the store has no price list; else the moments (ms since the epoch, ascending) at which
 * one of its lists starts or ends: between two of them, the lists in force do not change.
 */
export async function priceListBoundaries(db: Db, storeId: string): Promise<number[] | null> {
  const { rows } = await sql<{ lists: number; boundaries: Date[] | null }>`
    SELECT count(*)::int AS lists,
      (SELECT array_agg(DISTINCT b ORDER BY b) FROM price_lists l,
        LATERAL (VALUES (l.starts_at), (l.ends_at)) AS t(b)
        WHERE l.store_id = ${storeId}::uuid AND b IS NOT NULL) AS boundaries
    FROM price_lists WHERE store_id = ${storeId}::uuid`.execute(db);
  const row = rows[0];
  if (!row || row.lists === 0) return null;
  return (row.boundaries ?? []).map((at) => new Date(at).getTime());
}

/** Lifts the statement timeout for the rest of the caller's transaction (a whole catalog's prices). */
export async function allowLongStatements(db: Db): Promise<void> {
  await sql`SET LOCAL statement_timeout = '10min'`.execute(db);
}

/**
 * Refreshes the planner's statistics of the tables a market's pricing of a whole catalog just
 * filled (decision `analyze-after-bulk-import`): until autovacuum's next ANALYZE (PGlite runs none)
 * the planner would take them for nearly empty and join the market's cards badly (a search in the
 * new market 17× slower than in the default one on PostgreSQL at 100k products). In the writing
 * transaction, ANALYZE counts its rows; the statistics show at its commit.
 */
export async function analyzeMarketPrices(db: Db): Promise<void> {
  await sql`ANALYZE market_card_prices, price_history`.execute(db);
}
