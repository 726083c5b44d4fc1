import { sql, type Kysely } from 'kysely';

/**
 * Typo tolerance for storefront search (decision `typos-from-the-store-dictionary`): each store's
 * dictionary of the words its active products are named by, to correct a query's unknown words.
 *
 * - `search_words`: one row per store and word (folded, 4–50 characters, no digit) of an active
 *   product's title, tags or option values, with the number of active products that have it. Kept
 *   by triggers on `products` in the transaction that writes them: statement-level ones for inserts
 *   and deletes (a bulk import counts its words once per statement), a row-level one only for
 *   updates that name the title, tags, options or status and change the words or the status.
 *   Counts change in word order, so two writes of one store wait for each other on a shared word
 *   but never deadlock within a statement; a word whose count drops to 0 is deleted.
 * - An index on (store, first letter, length): a query word's candidates are the words with its
 *   first letter and a length within two of its own; the distance check is done on those.
 * - Backfilled from every store's active products.
 * - The folded title's trigram index of 0030 goes: words no longer match by trigram similarity.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE search_words (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      word text COLLATE "C" NOT NULL,
      products integer NOT NULL,
      PRIMARY KEY (store_id, word)
    )`.execute(db);
  await sql`
    CREATE INDEX search_words_shape_idx ON search_words (store_id, left(word, 1), char_length(word))`.execute(
    db,
  );
  // The words as the search document splits them (0030's storefront_search_words), without numbers
  // (sizes, SKUs: never corrected) and without words too short to correct or to be a correction.
  await sql`
    CREATE FUNCTION storefront_search_dictionary_words(title text, tags text[], options jsonb) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(w ORDER BY w), '{}')
      FROM unnest(tsvector_to_array(to_tsvector('simple'::regconfig, storefront_search_words(
        title || ' ' || array_to_string(tags, ' ') || ' ' || coalesce((
          SELECT string_agg(v.value, ' ')
          FROM jsonb_array_elements(options) AS o(option), jsonb_array_elements_text(o.option -> 'values') AS v(value)
        ), ''))))) AS w
      WHERE char_length(w) BETWEEN 4 AND 50 AND w !~ '[0-9]'
    $$`.execute(db);
  // Adds the deltas (+1 or -1 per product and word) to the words' counts, in word order, and
  // deletes the words no product has any more. A store being deleted is skipped: its products go by
  // cascade, and so do its words.
  await sql`
    CREATE FUNCTION storefront_search_words_apply(stores uuid[], words text[], deltas integer[]) RETURNS void
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO search_words AS d (store_id, word, products)
      SELECT s, w, sum(n) FROM unnest(stores, words, deltas) AS c(s, w, n)
      WHERE EXISTS (SELECT 1 FROM stores WHERE stores.id = c.s)
      GROUP BY s, w HAVING sum(n) <> 0 ORDER BY s, w
      ON CONFLICT (store_id, word) DO UPDATE SET products = d.products + excluded.products;
      DELETE FROM search_words d USING unnest(stores, words) AS c(s, w)
      WHERE d.store_id = c.s AND d.word = c.w AND d.products <= 0;
    END $$`.execute(db);
  await sql`
    CREATE FUNCTION products_search_words_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM storefront_search_words_apply(array_agg(c.store_id), array_agg(w),
        array_agg(CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END))
      FROM changed c CROSS JOIN LATERAL unnest(storefront_search_dictionary_words(c.title, c.tags, c.options)) AS w
      WHERE c.status = 'active';
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER products_insert_search_words AFTER INSERT ON products
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION products_search_words_changed()`.execute(
    db,
  );
  await sql`
    CREATE TRIGGER products_delete_search_words AFTER DELETE ON products
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION products_search_words_changed()`.execute(
    db,
  );
  await sql`
    CREATE FUNCTION products_search_word_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM storefront_search_words_apply(array_agg(NEW.store_id), array_agg(w), array_agg(n))
      FROM (
        SELECT w, -1 AS n FROM unnest(storefront_search_dictionary_words(OLD.title, OLD.tags, OLD.options)) AS w
        WHERE OLD.status = 'active'
        UNION ALL
        SELECT w, 1 AS n FROM unnest(storefront_search_dictionary_words(NEW.title, NEW.tags, NEW.options)) AS w
        WHERE NEW.status = 'active'
      ) both_sides;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER products_update_search_words AFTER UPDATE OF title, tags, options, status ON products
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR (NEW.status = 'active' AND (
      OLD.title IS DISTINCT FROM NEW.title OR OLD.tags IS DISTINCT FROM NEW.tags OR OLD.options IS DISTINCT FROM NEW.options)))
    EXECUTE FUNCTION products_search_word_updated()`.execute(db);

  await sql`DROP INDEX IF EXISTS products_title_trgm_idx`.execute(db);
  await sql`
    INSERT INTO search_words (store_id, word, products)
    SELECT p.store_id, w, count(*)::int
    FROM products p CROSS JOIN LATERAL unnest(storefront_search_dictionary_words(p.title, p.tags, p.options)) AS w
    WHERE p.status = 'active'
    GROUP BY p.store_id, w`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX IF NOT EXISTS products_title_trgm_idx ON products
    USING gin (store_id, storefront_search_fold(title) gin_trgm_ops) WHERE status = 'active'`.execute(db);
  await sql`DROP TRIGGER IF EXISTS products_update_search_words ON products`.execute(db);
  await sql`DROP TRIGGER IF EXISTS products_delete_search_words ON products`.execute(db);
  await sql`DROP TRIGGER IF EXISTS products_insert_search_words ON products`.execute(db);
  await sql`DROP FUNCTION IF EXISTS products_search_word_updated()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS products_search_words_changed()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_search_words_apply(uuid[], text[], integer[])`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_search_dictionary_words(text, text[], jsonb)`.execute(db);
  await sql`DROP TABLE IF EXISTS search_words`.execute(db);
}
