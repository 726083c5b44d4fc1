import { sql, type Kysely } from 'kysely';

/**
 * Tax done right (decisions `tax-classes`, `prices-include-tax` and `tax-arithmetic`,
 * docs/decisions/tax.md):
 *
 * - `tax_classes`: a store's classes. `standard` is made with every store (a trigger on stores, and
 *   here for the stores that exist) and cannot be deleted, so products, variants and shipping
 *   methods can name it like any other.
 * - `tax_class` on products (null: `standard`), variants (null: the product's) and shipping methods
 *   (null: the shipping follows the goods).
 * - Tax rates gain `class_rates` (a class's rate in the area; a class without one takes the
 *   standard rate) and `shipping_tax` (`none`, today's behaviour, or `follow_goods`).
 * - Stores gain `prices_include_tax` (off: today's behaviour).
 * - Orders keep how their tax was charged: `tax_included`, the shipping's tax, the invoice breakdown
 *   `tax_lines`, the destination's region, and per line its discount share, tax, rate and class.
 *   Orders from before keep null there (their tax was rounded on the whole order): they never change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tax_classes (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      code text NOT NULL,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, code)
    )`.execute(db);
  await sql`INSERT INTO tax_classes (store_id, code, name, created_at, updated_at)
    SELECT id, 'standard', 'Standard', created_at, created_at FROM stores`.execute(db);
  await sql`
    CREATE FUNCTION storefront_standard_tax_class() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Made when its store was: an archive's import makes it again exactly as it was.
      INSERT INTO tax_classes (store_id, code, name, created_at, updated_at)
      VALUES (NEW.id, 'standard', 'Standard', NEW.created_at, NEW.created_at)
      ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER stores_standard_tax_class AFTER INSERT ON stores
    FOR EACH ROW EXECUTE FUNCTION storefront_standard_tax_class()`.execute(db);
  // A class in use cannot go, and an unknown one cannot be set: the database says so. Null is the
  // default: `standard` on a product, its product's class on a variant, following the goods on a
  // method. NO ACTION, not RESTRICT, so deleting a store takes all at once.
  for (const table of ['products', 'variants', 'shipping_methods']) {
    await sql`ALTER TABLE ${sql.table(table)} ADD COLUMN tax_class text`.execute(db);
    await sql`
      ALTER TABLE ${sql.table(table)} ADD CONSTRAINT ${sql.id(`${table}_tax_class_fkey`)}
      FOREIGN KEY (store_id, tax_class) REFERENCES tax_classes (store_id, code)`.execute(db);
    await sql`CREATE INDEX ${sql.id(`${table}_tax_class_idx`)} ON ${sql.table(table)} (store_id, tax_class)
      WHERE tax_class IS NOT NULL`.execute(db);
  }
  await sql`ALTER TABLE tax_rates ADD COLUMN class_rates jsonb NOT NULL DEFAULT '{}'::jsonb`.execute(db);
  await sql`ALTER TABLE tax_rates ADD COLUMN shipping_tax text NOT NULL DEFAULT 'none'`.execute(db);
  await sql`ALTER TABLE stores ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN tax_included boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN shipping_tax_amount bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN tax_region text`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN tax_lines jsonb`.execute(db);
  await sql`ALTER TABLE order_lines ADD COLUMN discount_amount bigint`.execute(db);
  await sql`ALTER TABLE order_lines ADD COLUMN tax_amount bigint`.execute(db);
  await sql`ALTER TABLE order_lines ADD COLUMN tax_rate_bps integer`.execute(db);
  await sql`ALTER TABLE order_lines ADD COLUMN tax_class text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['tax_class', 'tax_rate_bps', 'tax_amount', 'discount_amount'])
    await sql`ALTER TABLE order_lines DROP COLUMN IF EXISTS ${sql.id(column)}`.execute(db);
  for (const column of ['tax_lines', 'tax_region', 'shipping_tax_amount', 'tax_included'])
    await sql`ALTER TABLE orders DROP COLUMN IF EXISTS ${sql.id(column)}`.execute(db);
  await sql`ALTER TABLE stores DROP COLUMN IF EXISTS prices_include_tax`.execute(db);
  await sql`ALTER TABLE tax_rates DROP COLUMN IF EXISTS shipping_tax`.execute(db);
  await sql`ALTER TABLE tax_rates DROP COLUMN IF EXISTS class_rates`.execute(db);
  for (const table of ['shipping_methods', 'variants', 'products'])
    await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN IF EXISTS tax_class`.execute(db);
  await sql`DROP TRIGGER IF EXISTS stores_standard_tax_class ON stores`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_standard_tax_class()`.execute(db);
  await sql`DROP TABLE IF EXISTS tax_classes`.execute(db);
}
