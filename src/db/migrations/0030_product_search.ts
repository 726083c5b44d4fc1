import { sql, type Kysely } from 'kysely';

/**
 * Storefront search (decision `search-in-the-database`): PostgreSQL full-text plus pg_trgm and btree_gin, the same on
 * PostgreSQL and PGlite (which loads the extensions when it opens the database), no outside service.
 *
 * - `storefront_search_fold(text)`: lower case with accents folded ("Café" → "cafe"); the query is
 *   folded the same way before it is matched.
 * - `products.search_skus`: the product's SKUs, kept by triggers on `variants` (a statement-level
 *   one for inserts and deletes, so a bulk import pays once per statement, and writes only rows
 *   whose SKUs differ: the bulk import gives them with the product; a row-level one only when an
 *   UPDATE names `sku`, so the purchase path's stock updates never fire it).
 * - `products.search`: a stored generated tsvector, weighted: title and SKUs A, tags and option
 *   values B, description C. The `simple` configuration: no stemming, any language.
 * - GIN indexes on it and on the folded title's trigrams (typos: "hodie" finds "Hoodie"), both
 *   partial on active products, the only ones the storefront can find, and both led by the store's
 *   id (btree_gin), so one store's search never reads another's entries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  await sql`CREATE EXTENSION IF NOT EXISTS btree_gin`.execute(db);
  await sql`
    CREATE FUNCTION storefront_search_fold(value text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT lower(regexp_replace(normalize(coalesce(value, ''), NFKD), '[\\u0300-\\u036f]', '', 'g'))
    $$`.execute(db);
  // Words as the query splits them: ASCII punctuation is a space ("MUG-1" is "mug" and "1").
  await sql`
    CREATE FUNCTION storefront_search_words(value text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT regexp_replace(storefront_search_fold(value), '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+', ' ', 'g')
    $$`.execute(db);
  await sql`
    CREATE FUNCTION storefront_search_document(title text, skus text, tags text[], options jsonb, description text)
    RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT setweight(to_tsvector('simple'::regconfig, storefront_search_words(title || ' ' || skus)), 'A')
          || setweight(to_tsvector('simple'::regconfig, storefront_search_words(array_to_string(tags, ' ') || ' ' || coalesce((
               SELECT string_agg(v.value, ' ')
               FROM jsonb_array_elements(options) AS o(option), jsonb_array_elements_text(o.option -> 'values') AS v(value)
             ), ''))), 'B')
          || setweight(to_tsvector('simple'::regconfig, storefront_search_words(left(description, 20000))), 'C')
    $$`.execute(db);
  await sql`ALTER TABLE products ADD COLUMN search_skus text NOT NULL DEFAULT ''`.execute(db);
  await sql`
    UPDATE products p SET search_skus = s.skus
    FROM (SELECT store_id, product_id, string_agg(sku, ' ' ORDER BY position) AS skus
          FROM variants WHERE sku IS NOT NULL GROUP BY store_id, product_id) s
    WHERE p.store_id = s.store_id AND p.id = s.product_id`.execute(db);
  await sql`
    ALTER TABLE products ADD COLUMN search tsvector GENERATED ALWAYS AS
      (storefront_search_document(title, search_skus, tags, options, description)) STORED`.execute(db);
  // With the store's id in each (btree_gin): a small store's search reads its own entries, not
  // those of a large store that shares the table.
  await sql`
    CREATE INDEX products_search_idx ON products USING gin (store_id, search) WHERE status = 'active'`.execute(
    db,
  );
  await sql`
    CREATE INDEX products_title_trgm_idx ON products USING gin (store_id, storefront_search_fold(title) gin_trgm_ops)
    WHERE status = 'active'`.execute(db);
  // The sorts' keyset orders within a store's active products (by creation: products_active_idx).
  await sql`
    CREATE INDEX products_active_price_idx ON products (store_id, price_amount, id) WHERE status = 'active'`.execute(
    db,
  );
  await sql`
    CREATE INDEX products_active_title_idx ON products (store_id, (storefront_search_fold(title) COLLATE "C"), id)
    WHERE status = 'active'`.execute(db);

  await sql`
    CREATE FUNCTION storefront_products_skus(store uuid, product uuid) RETURNS text
    LANGUAGE sql STABLE AS $$
      SELECT coalesce(string_agg(sku, ' ' ORDER BY position), '')
      FROM variants WHERE store_id = store AND product_id = product AND sku IS NOT NULL
    $$`.execute(db);
  await sql`
    CREATE FUNCTION variants_inserted_skus() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE products p SET search_skus = storefront_products_skus(p.store_id, p.id)
      WHERE (p.store_id, p.id) IN (
        SELECT c.store_id, c.product_id FROM changed c JOIN products q ON q.store_id = c.store_id AND q.id = c.product_id
        WHERE c.sku IS NOT NULL AND (TG_OP = 'DELETE') = (position(' ' || c.sku || ' ' IN ' ' || q.search_skus || ' ') > 0));
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER variants_insert_skus AFTER INSERT ON variants
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION variants_inserted_skus()`.execute(
    db,
  );
  await sql`
    CREATE TRIGGER variants_delete_skus AFTER DELETE ON variants
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION variants_inserted_skus()`.execute(
    db,
  );
  await sql`
    CREATE FUNCTION variants_updated_sku() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE products SET search_skus = storefront_products_skus(NEW.store_id, NEW.product_id)
      WHERE store_id = NEW.store_id AND id = NEW.product_id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER variants_update_sku AFTER UPDATE OF sku ON variants
    FOR EACH ROW WHEN (OLD.sku IS DISTINCT FROM NEW.sku) EXECUTE FUNCTION variants_updated_sku()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS variants_update_sku ON variants`.execute(db);
  await sql`DROP TRIGGER IF EXISTS variants_delete_skus ON variants`.execute(db);
  await sql`DROP TRIGGER IF EXISTS variants_insert_skus ON variants`.execute(db);
  await sql`DROP FUNCTION IF EXISTS variants_updated_sku()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS variants_inserted_skus()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_products_skus(uuid, uuid)`.execute(db);
  await sql`DROP INDEX IF EXISTS products_active_title_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS products_active_price_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS products_title_trgm_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS products_search_idx`.execute(db);
  await sql`ALTER TABLE products DROP COLUMN search`.execute(db);
  await sql`ALTER TABLE products DROP COLUMN search_skus`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_search_document(text, text, text[], jsonb, text)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_search_words(text)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_search_fold(text)`.execute(db);
}
