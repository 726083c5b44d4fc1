import { sql, type Kysely } from 'kysely';

/**
 * The price function (decision `price-function`, docs/decisions/markets.md), in the database, where
 * catalog reads sort, filter and count by it:
 *
 * - `storefront_list_sale` / `storefront_list_override`: a variant's lowest applicable sale price
 *   and newest applicable override in a currency, for a market, a set of customer groups and a time
 *   (a list applies while in force, in all markets or the given one, to everyone or to one of the
 *   given groups);
 * - `storefront_effective_price` / `storefront_effective_compare_at`: what the service shows and
 *   charges: the sale price when lower than the regular price (the newest override, else the
 *   market's price), with the regular price as its compare-at; else the override (no compare-at);
 *   else the market's price and compare-at.
 */
const APPLIES = `
  l.store_id = p_store AND l.id = e.price_list_id
  AND (l.starts_at IS NULL OR l.starts_at <= p_at) AND (l.ends_at IS NULL OR l.ends_at > p_at)
  AND (l.all_markets OR EXISTS (SELECT 1 FROM price_list_markets m
       WHERE m.store_id = p_store AND m.price_list_id = l.id AND m.market_id = p_market))
  AND (l.all_groups OR EXISTS (SELECT 1 FROM price_list_groups g
       WHERE g.store_id = p_store AND g.price_list_id = l.id AND g.group_id = ANY(p_groups)))`;

const ARGS =
  'p_store uuid, p_variant uuid, p_market uuid, p_currency text, p_groups uuid[], p_at timestamptz';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION storefront_list_sale(${sql.raw(ARGS)}) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT min(e.amount) FROM price_list_prices e JOIN price_lists l ON ${sql.raw(APPLIES)}
      WHERE e.store_id = p_store AND e.variant_id = p_variant AND e.currency = p_currency AND l.kind = 'sale'
    $$`.execute(db);
  await sql`
    CREATE FUNCTION storefront_list_override(${sql.raw(ARGS)}) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT e.amount FROM price_list_prices e JOIN price_lists l ON ${sql.raw(APPLIES)}
      WHERE e.store_id = p_store AND e.variant_id = p_variant AND e.currency = p_currency AND l.kind = 'override'
      ORDER BY l.created_at DESC, l.id DESC LIMIT 1
    $$`.execute(db);
  await sql`
    CREATE FUNCTION storefront_effective_price(${sql.raw(ARGS)}, p_price bigint) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN s.sale < s.regular THEN s.sale ELSE s.regular END
      FROM (SELECT storefront_list_sale(p_store, p_variant, p_market, p_currency, p_groups, p_at) AS sale,
                   coalesce(storefront_list_override(p_store, p_variant, p_market, p_currency, p_groups, p_at), p_price) AS regular) s
    $$`.execute(db);
  await sql`
    CREATE FUNCTION storefront_effective_compare_at(${sql.raw(ARGS)}, p_price bigint, p_compare_at bigint) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN s.sale < coalesce(s.override, p_price) THEN coalesce(s.override, p_price)
                  WHEN s.override IS NOT NULL THEN NULL ELSE p_compare_at END
      FROM (SELECT storefront_list_sale(p_store, p_variant, p_market, p_currency, p_groups, p_at) AS sale,
                   storefront_list_override(p_store, p_variant, p_market, p_currency, p_groups, p_at) AS override) s
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const args = 'uuid, uuid, uuid, text, uuid[], timestamptz';
  await sql`DROP FUNCTION IF EXISTS storefront_effective_compare_at(${sql.raw(args)}, bigint, bigint)`.execute(
    db,
  );
  await sql`DROP FUNCTION IF EXISTS storefront_effective_price(${sql.raw(args)}, bigint)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_list_override(${sql.raw(args)})`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_list_sale(${sql.raw(args)})`.execute(db);
}
