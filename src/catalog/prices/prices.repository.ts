import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/tables.ts';
import type { MarketPricing } from '../../markets/markets.service.ts';

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

/** Variants' prices in a market (explicit, else converted: `storefront_variant_price`). */
export async function variantMarketPriceRows(
  db: Db,
  storeId: string,
  m: MarketPricing,
  variantIds: readonly string[],
): Promise<{ id: string; price_amount: number; compare_at_amount: number | null }[]> {
  if (variantIds.length === 0) return [];
  const { rows } = await sql<{ id: string; price_amount: number; compare_at_amount: number | null }>`
    SELECT v.id,
      storefront_variant_price(v.store_id, v.id, v.price_amount, ${m.currency}, ${m.rate}::numeric, ${m.digits}::int, ${m.baseDigits}::int, ${m.rounding}) AS price_amount,
      storefront_variant_compare_at(v.store_id, v.id, v.compare_at_amount, ${m.currency}, ${m.rate}::numeric, ${m.digits}::int, ${m.baseDigits}::int, ${m.rounding}) AS compare_at_amount
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
  const productFilter = productIds ? sql`AND p.id = ANY(${[...productIds]}::uuid[])` : sql``;
  const rows = JSON.stringify(
    markets.map((m) => ({
      id: m.marketId,
      currency: m.currency,
      rate: m.rate,
      digits: m.digits,
      base_digits: m.baseDigits,
      rounding: m.rounding,
    })),
  );
  await sql`
    INSERT INTO market_card_prices AS c (store_id, market_id, product_id, price_amount, compare_at_amount)
    SELECT p.store_id, m.id, p.id, best.price, CASE WHEN best.compare_at > best.price THEN best.compare_at END
    FROM products p
    CROSS JOIN json_to_recordset(${rows}::json)
      AS m(id uuid, currency text, rate numeric, digits integer, base_digits integer, rounding text)
    LEFT JOIN LATERAL (
      SELECT storefront_variant_price(v.store_id, v.id, v.price_amount, m.currency, m.rate, m.digits, m.base_digits, m.rounding) AS price,
             storefront_variant_compare_at(v.store_id, v.id, v.compare_at_amount, m.currency, m.rate, m.digits, m.base_digits, m.rounding) AS compare_at
      FROM variants v
      WHERE v.store_id = p.store_id AND v.product_id = p.id AND v.archived_at IS NULL
      ORDER BY 1, v.position LIMIT 1
    ) best ON true
    WHERE p.store_id = ${storeId}::uuid ${productFilter}
    ON CONFLICT (store_id, market_id, product_id) DO UPDATE
    SET price_amount = EXCLUDED.price_amount, compare_at_amount = EXCLUDED.compare_at_amount
    WHERE c.price_amount IS DISTINCT FROM EXCLUDED.price_amount
       OR c.compare_at_amount IS DISTINCT FROM EXCLUDED.compare_at_amount`.execute(db);
}
