import { sql, type Kysely } from 'kysely';

/**
 * Options (decision `product-options`): a product names up to three options with their values (`[{name, values}]`)
 * and each variant its value of each (`{"Size": "M", "Colour": "Blue"}`); one combination per
 * variant of a product, held by a unique index. Products without options keep `[]` and `{}`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE products ADD COLUMN options jsonb NOT NULL DEFAULT '[]'
      CHECK (jsonb_typeof(options) = 'array' AND jsonb_array_length(options) <= 3)`.execute(db);
  await sql`
    ALTER TABLE variants ADD COLUMN options jsonb NOT NULL DEFAULT '{}'
      CHECK (jsonb_typeof(options) = 'object')`.execute(db);
  await sql`
    CREATE UNIQUE INDEX variants_options_idx ON variants (store_id, product_id, options)
    WHERE options <> '{}'::jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS variants_options_idx`.execute(db);
  await sql`ALTER TABLE variants DROP COLUMN options`.execute(db);
  await sql`ALTER TABLE products DROP COLUMN options`.execute(db);
}
