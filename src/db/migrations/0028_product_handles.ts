import { sql, type Kysely } from 'kysely';

/**
 * Handles, SEO and the card's compare-at price (decision `product-handles`, first part).
 *
 * - `handle`: unique per store, made from the title when not given (accents folded, lower case,
 *   runs of anything but a–z and 0–9 turned into one `-`, at most 80 characters). A BEFORE INSERT
 *   trigger makes it for every insert that gives none (the Admin API, the bulk import, the demo
 *   seed), adding `-2`, `-3` for a title already taken, then a piece of the id. Existing products
 *   get theirs here, oldest first.
 * - `product_handle_redirects`: a product's earlier handles, which keep answering with a 301 to
 *   the current one.
 * - `seo_title`, `seo_description`: what a shop puts in <title> and the meta description.
 * - `compare_at_amount`: the compare-at price of the card price's variant (the cheapest, the first
 *   of equal ones) when it is higher than the price, else null; kept with `price_amount`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION storefront_handle_of(title text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(nullif(trim(both '-' from left(trim(both '-' from regexp_replace(
        lower(regexp_replace(normalize(title, NFKD), '[\\u0300-\\u036f]', '', 'g')),
        '[^a-z0-9]+', '-', 'g')), 80)), ''), 'product')
    $$`.execute(db);
  await sql`ALTER TABLE products ADD COLUMN handle text`.execute(db);
  await sql`ALTER TABLE products ADD COLUMN seo_title text CHECK (char_length(seo_title) <= 200)`.execute(db);
  await sql`ALTER TABLE products ADD COLUMN seo_description text CHECK (char_length(seo_description) <= 500)`.execute(
    db,
  );
  await sql`ALTER TABLE products ADD COLUMN compare_at_amount bigint CHECK (compare_at_amount >= 0)`.execute(
    db,
  );

  await sql`
    WITH ranked AS (
      SELECT store_id, id, storefront_handle_of(title) AS base,
             row_number() OVER (PARTITION BY store_id, storefront_handle_of(title) ORDER BY created_at, id) AS n
      FROM products
    )
    UPDATE products p SET handle = CASE WHEN r.n = 1 THEN r.base ELSE r.base || '-' || r.n END
    FROM ranked r WHERE p.store_id = r.store_id AND p.id = r.id`.execute(db);
  // "Mug 2" and the second "Mug" both became mug-2: the later one takes a piece of its id.
  await sql`
    UPDATE products p SET handle = p.handle || '-' || left(p.id::text, 8)
    WHERE EXISTS (
      SELECT 1 FROM products q
      WHERE q.store_id = p.store_id AND q.handle = p.handle AND (q.created_at, q.id) < (p.created_at, p.id))`.execute(
    db,
  );
  await sql`ALTER TABLE products ALTER COLUMN handle SET NOT NULL`.execute(db);
  await sql`ALTER TABLE products ADD CONSTRAINT products_handle_check CHECK (handle ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length(handle) <= 100)`.execute(
    db,
  );
  await sql`CREATE UNIQUE INDEX products_handle_idx ON products (store_id, handle)`.execute(db);

  await sql`
    CREATE FUNCTION products_assign_handle() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      base text;
      candidate text;
      n integer := 1;
    BEGIN
      IF NEW.handle IS NOT NULL THEN
        RETURN NEW;
      END IF;
      base := storefront_handle_of(NEW.title);
      candidate := base;
      WHILE EXISTS (SELECT 1 FROM products WHERE store_id = NEW.store_id AND handle = candidate) LOOP
        n := n + 1;
        -- Many products of one title (an import): a piece of the id instead of counting on.
        IF n > 3 THEN
          candidate := base || '-' || left(replace(NEW.id::text, '-', ''), 8 + n - 4);
        ELSE
          candidate := base || '-' || n;
        END IF;
      END LOOP;
      NEW.handle := candidate;
      RETURN NEW;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER products_handle BEFORE INSERT ON products
    FOR EACH ROW EXECUTE FUNCTION products_assign_handle()`.execute(db);

  await sql`
    UPDATE products p SET compare_at_amount = (
      SELECT CASE WHEN v.compare_at_amount > v.price_amount THEN v.compare_at_amount END
      FROM variants v WHERE v.store_id = p.store_id AND v.product_id = p.id
      ORDER BY v.price_amount, v.position LIMIT 1)
    WHERE EXISTS (
      SELECT 1 FROM variants v
      WHERE v.store_id = p.store_id AND v.product_id = p.id AND v.compare_at_amount IS NOT NULL)`.execute(db);

  await sql`
    CREATE TABLE product_handle_redirects (
      store_id uuid NOT NULL,
      handle text NOT NULL,
      product_id uuid NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, handle),
      FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX product_handle_redirects_product_idx ON product_handle_redirects (store_id, product_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS product_handle_redirects`.execute(db);
  await sql`DROP TRIGGER IF EXISTS products_handle ON products`.execute(db);
  await sql`DROP FUNCTION IF EXISTS products_assign_handle()`.execute(db);
  await sql`DROP INDEX IF EXISTS products_handle_idx`.execute(db);
  await sql`
    ALTER TABLE products DROP CONSTRAINT IF EXISTS products_handle_check,
      DROP COLUMN handle, DROP COLUMN seo_title, DROP COLUMN seo_description, DROP COLUMN compare_at_amount`.execute(
    db,
  );
  await sql`DROP FUNCTION IF EXISTS storefront_handle_of(text)`.execute(db);
}
