import { sql, type Kysely } from 'kysely';

/**
 * Media (decision `media-uploads`): uploaded images, and the images of products.
 *
 * - `media`: one row per distinct file of a store (unique by its SHA-256), never changed: the file
 *   lives in the media storage under the store and the hash, and its URL is made from them.
 * - `product_images`: a product's images in order, each a media of the same store with its alt
 *   text. The product's card `image` keeps the first one's URL (one-table card reads).
 * - `variants.image_id`: the image a variant shows, one of its product's images; it is cleared when
 *   the image leaves the product.
 * - The read cache's triggers (migration 0015) cover `product_images` as they cover products.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE media (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
      content_type text NOT NULL
        CHECK (content_type IN ('image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif')),
      width integer NOT NULL CHECK (width > 0),
      height integer NOT NULL CHECK (height > 0),
      bytes integer NOT NULL CHECK (bytes > 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, hash)
    )`.execute(db);

  await sql`
    CREATE TABLE product_images (
      store_id uuid NOT NULL,
      product_id uuid NOT NULL,
      media_id uuid NOT NULL,
      position integer NOT NULL CHECK (position >= 0),
      alt text CHECK (char_length(alt) <= 500),
      PRIMARY KEY (store_id, product_id, media_id),
      FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE,
      FOREIGN KEY (store_id, media_id) REFERENCES media (store_id, id)
    )`.execute(db);

  await sql`ALTER TABLE variants ADD COLUMN image_id uuid`.execute(db);
  // One of its product's images; removing the image from the product clears it.
  await sql`
    ALTER TABLE variants ADD CONSTRAINT variants_image_fkey
      FOREIGN KEY (store_id, product_id, image_id) REFERENCES product_images (store_id, product_id, media_id)
      ON DELETE SET NULL (image_id)`.execute(db);

  await sql`
    CREATE TRIGGER product_images_read_inserted AFTER INSERT ON product_images
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
  await sql`
    CREATE TRIGGER product_images_read_deleted AFTER DELETE ON product_images
    REFERENCING OLD TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
  await sql`
    CREATE TRIGGER product_images_read_updated AFTER UPDATE ON product_images
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE variants DROP CONSTRAINT IF EXISTS variants_image_fkey`.execute(db);
  await sql`ALTER TABLE variants DROP COLUMN IF EXISTS image_id`.execute(db);
  await sql`DROP TABLE IF EXISTS product_images`.execute(db);
  await sql`DROP TABLE IF EXISTS media`.execute(db);
}
