import { sql, type Kysely } from 'kysely';

/**
 * Markets and currencies (decisions `markets`, `market-prices` and `market-cards`,
 * docs/decisions/markets.md):
 *
 * - `markets`: a store's markets. The default market (`is_default`) is made with every store (a
 *   trigger on stores, and here for the stores that exist), in the store's currency, and holds every
 *   country no other market names. `exchange_rate` is the merchant's decimal rate from the store's
 *   currency; `digits` and `base_digits` are the ISO 4217 minor units of the market's and the store's
 *   currency (src/markets/currencies.ts), kept so that SQL converts without a lookup; the default
 *   market converts nothing and keeps neither. Its id is its store's.
 * - `market_countries`: a country belongs to at most one market (its primary key).
 * - `variant_prices`: a variant's explicit price in a currency other than the store's.
 * - `market_card_prices`: each product's card price (its lowest live variant's) in each market
 *   other than the default, kept as products.price_amount is for the default, so that search sorts
 *   and filters by price in a market on an index.
 * - `storefront_market_price`: the one conversion of a price from the store's currency into a
 *   market's, with its rounding rule, used by every read that prices in a market.
 * - Carts gain `country` (the market before an address is given); orders keep their `market_id`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE markets (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      digits smallint CHECK (digits BETWEEN 0 AND 4),
      base_digits smallint CHECK (base_digits BETWEEN 0 AND 4),
      exchange_rate numeric NOT NULL DEFAULT 1 CHECK (exchange_rate > 0),
      rounding text NOT NULL DEFAULT 'none' CHECK (rounding IN ('none', 'to_99', 'to_whole')),
      prices_include_tax boolean NOT NULL DEFAULT false,
      is_default boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CHECK (is_default OR (digits IS NOT NULL AND base_digits IS NOT NULL))
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX markets_default_idx ON markets (store_id) WHERE is_default`.execute(db);
  await sql`
    CREATE TABLE market_countries (
      store_id uuid NOT NULL,
      country text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
      market_id uuid NOT NULL,
      PRIMARY KEY (store_id, country),
      FOREIGN KEY (store_id, market_id) REFERENCES markets (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX market_countries_market_idx ON market_countries (store_id, market_id)`.execute(db);
  await sql`
    CREATE TABLE variant_prices (
      store_id uuid NOT NULL,
      variant_id uuid NOT NULL,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      amount bigint NOT NULL CHECK (amount >= 0),
      compare_at_amount bigint CHECK (compare_at_amount >= 0),
      PRIMARY KEY (store_id, variant_id, currency),
      FOREIGN KEY (store_id, variant_id) REFERENCES variants (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`
    CREATE TABLE market_card_prices (
      store_id uuid NOT NULL,
      market_id uuid NOT NULL,
      product_id uuid NOT NULL,
      price_amount bigint,
      compare_at_amount bigint,
      PRIMARY KEY (store_id, market_id, product_id),
      FOREIGN KEY (store_id, market_id) REFERENCES markets (store_id, id) ON DELETE CASCADE,
      FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX market_card_prices_price_idx
    ON market_card_prices (store_id, market_id, price_amount, product_id)`.execute(db);
  await sql`CREATE INDEX market_card_prices_product_idx ON market_card_prices (store_id, product_id)`.execute(
    db,
  );

  // The default market's name is kept on its store too, so that an archive (which leaves the row
  // out: the trigger below makes it) carries it; the service writes both.
  await sql`ALTER TABLE stores ADD COLUMN default_market_name text NOT NULL DEFAULT 'Default'`.execute(db);
  // The default market of every store, made when its store was (an archive's import makes it again
  // exactly as it was: the archive leaves it out). Its currency is the store's, which never changes.
  await sql`
    CREATE FUNCTION storefront_default_market() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO markets (store_id, id, name, currency, is_default, created_at, updated_at)
      VALUES (NEW.id, NEW.id, NEW.default_market_name, trim(NEW.currency), true, NEW.created_at, NEW.created_at)
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER stores_default_market AFTER INSERT ON stores
    FOR EACH ROW EXECUTE FUNCTION storefront_default_market()`.execute(db);
  await sql`INSERT INTO markets (store_id, id, name, currency, is_default, created_at, updated_at)
    SELECT id, id, 'Default', trim(currency), true, created_at, created_at FROM stores`.execute(db);

  // A price of the store's currency in a market's: × rate, into the market currency's minor units,
  // then its rounding rule. Exact (numeric); 0 stays 0; null stays null.
  await sql`
    CREATE FUNCTION storefront_market_price(amount bigint, rate numeric, digits integer, base_digits integer, rounding text)
    RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE
        WHEN amount IS NULL THEN NULL
        WHEN amount <= 0 THEN amount
        ELSE least(9007199254740991::numeric, CASE rounding
          WHEN 'to_whole' THEN ceil(amount * rate * power(10::numeric, digits - base_digits) / power(10::numeric, digits)) * power(10::numeric, digits)
          WHEN 'to_99' THEN CASE WHEN digits = 0
            THEN ceil(amount * rate * power(10::numeric, digits - base_digits))
            ELSE ceil((ceil(amount * rate * power(10::numeric, digits - base_digits)) + 1) / power(10::numeric, digits)) * power(10::numeric, digits) - 1 END
          ELSE round(amount * rate * power(10::numeric, digits - base_digits)) END)::bigint
      END
    $$`.execute(db);

  // A variant's price and compare-at in a market: its explicit price in the market's currency (with
  // its own compare-at, or none), else its store price converted. Every read that prices a variant
  // in a market asks these two (catalog cards, details, search, carts, checkout).
  await sql`
    CREATE FUNCTION storefront_variant_price(p_store uuid, p_variant uuid, p_amount bigint, p_currency text,
      p_rate numeric, p_digits integer, p_base_digits integer, p_rounding text)
    RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT coalesce(
        (SELECT vp.amount FROM variant_prices vp
         WHERE vp.store_id = p_store AND vp.variant_id = p_variant AND vp.currency = p_currency),
        storefront_market_price(p_amount, p_rate, p_digits, p_base_digits, p_rounding))
    $$`.execute(db);
  await sql`
    CREATE FUNCTION storefront_variant_compare_at(p_store uuid, p_variant uuid, p_compare_at bigint, p_currency text,
      p_rate numeric, p_digits integer, p_base_digits integer, p_rounding text)
    RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN e.found THEN e.compare_at
        ELSE storefront_market_price(p_compare_at, p_rate, p_digits, p_base_digits, p_rounding) END
      FROM (SELECT bool_or(true) AS found, max(vp.compare_at_amount) AS compare_at FROM variant_prices vp
            WHERE vp.store_id = p_store AND vp.variant_id = p_variant AND vp.currency = p_currency) e
    $$`.execute(db);

  await sql`ALTER TABLE carts ADD COLUMN country text`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN market_id uuid`.execute(db);

  // Markets and prices price the catalog: a change drops the read caches as a product's does.
  for (const table of ['markets', 'market_countries', 'variant_prices', 'market_card_prices']) {
    for (const [event, rows, done] of [
      ['INSERT', 'NEW', 'inserted'],
      ['UPDATE', 'NEW', 'updated'],
      ['DELETE', 'OLD', 'deleted'],
    ] as const) {
      await sql`
        CREATE TRIGGER ${sql.id(`${table}_read_${done}`)} AFTER ${sql.raw(event)} ON ${sql.table(table)}
        REFERENCING ${sql.raw(rows)} TABLE AS changed_rows
        FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders DROP COLUMN IF EXISTS market_id`.execute(db);
  await sql`ALTER TABLE stores DROP COLUMN IF EXISTS default_market_name`.execute(db);
  await sql`ALTER TABLE carts DROP COLUMN IF EXISTS country`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_market_price(bigint, numeric, integer, integer, text)`.execute(
    db,
  );
  await sql`DROP TRIGGER IF EXISTS stores_default_market ON stores`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_default_market()`.execute(db);
  for (const table of ['market_card_prices', 'variant_prices', 'market_countries', 'markets'])
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
}
