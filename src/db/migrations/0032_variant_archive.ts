import { sql, type Kysely } from 'kysely';

/**
 * Archived variants (decision `product-options`): a variant whose option value the merchant removed is archived,
 * never deleted (its orders, returns and history keep pointing at it). An archived variant is not
 * sold, not shown on the storefront, not searched and not in the card price; its combination no
 * longer holds the product's unique one, so a new variant may take it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE variants ADD COLUMN archived_at timestamptz`.execute(db);
  await sql`DROP INDEX IF EXISTS variants_options_idx`.execute(db);
  await sql`
    CREATE UNIQUE INDEX variants_options_idx ON variants (store_id, product_id, options)
    WHERE options <> '{}'::jsonb AND archived_at IS NULL`.execute(db);
  // Search (0030): an archived variant's SKU no longer finds its product.
  await sql`
    CREATE OR REPLACE FUNCTION storefront_products_skus(store uuid, product uuid) RETURNS text
    LANGUAGE sql STABLE AS $$
      SELECT coalesce(string_agg(sku, ' ' ORDER BY position), '')
      FROM variants WHERE store_id = store AND product_id = product AND sku IS NOT NULL AND archived_at IS NULL
    $$`.execute(db);
  await sql`DROP TRIGGER variants_update_sku ON variants`.execute(db);
  await sql`
    CREATE TRIGGER variants_update_sku AFTER UPDATE OF sku, archived_at ON variants
    FOR EACH ROW WHEN (OLD.sku IS DISTINCT FROM NEW.sku OR OLD.archived_at IS DISTINCT FROM NEW.archived_at)
    EXECUTE FUNCTION variants_updated_sku()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER variants_update_sku ON variants`.execute(db);
  await sql`
    CREATE TRIGGER variants_update_sku AFTER UPDATE OF sku ON variants
    FOR EACH ROW WHEN (OLD.sku IS DISTINCT FROM NEW.sku) EXECUTE FUNCTION variants_updated_sku()`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION storefront_products_skus(store uuid, product uuid) RETURNS text
    LANGUAGE sql STABLE AS $$
      SELECT coalesce(string_agg(sku, ' ' ORDER BY position), '')
      FROM variants WHERE store_id = store AND product_id = product AND sku IS NOT NULL
    $$`.execute(db);
  await sql`DROP INDEX IF EXISTS variants_options_idx`.execute(db);
  await sql`
    CREATE UNIQUE INDEX variants_options_idx ON variants (store_id, product_id, options)
    WHERE options <> '{}'::jsonb`.execute(db);
  await sql`ALTER TABLE variants DROP COLUMN archived_at`.execute(db);
}
