import { sql, type Kysely } from 'kysely';

/**
 * The read cache's versions (decision `read-cache-invalidation`). Every committed
 * change to what the Storefront API reads (the store, products, variants, collections and their
 * products, menus, pages, published regions) bumps its store's version in the same transaction and
 * notifies `storefront_read` at commit, so API processes drop the bodies it made stale.
 *
 * Triggers, not application calls: a write that forgot to bump would serve stale bodies for as long
 * as the cache kept them, and bulk imports, cascades and seeds all go through the same tables.
 *
 * Two scopes per store: `c` (catalog and content: every cached body depends on it) and `s` (stock:
 * a variant's `available = on_hand − reserved`, which only product detail shows). A purchase moves
 * stock, not the catalog, so it leaves product lists and content cached; its notification names the
 * product, so only that product's detail is dropped.
 *
 * A version is the sum of up to 16 rows per store and scope, one per backend (`pg_backend_pid() %
 * 16`): concurrent checkouts of one store then bump different rows, and never wait for each other's
 * commit on a shared counter. Within one transaction a scope is bumped once (a transaction-local
 * setting remembers it); PostgreSQL folds repeated notifications of one transaction into one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE read_versions (
      store_id uuid NOT NULL,
      scope "char" NOT NULL CHECK (scope IN ('c', 's')),
      shard smallint NOT NULL,
      version bigint NOT NULL,
      PRIMARY KEY (store_id, scope, shard)
    )`.execute(db);

  await sql`
    CREATE FUNCTION storefront_read_bump(p_store uuid, p_scope "char", p_product uuid) RETURNS void
    LANGUAGE plpgsql AS $$
    DECLARE
      bumped text := coalesce(current_setting('storefront.read_bumped', true), '');
      mark text := p_scope::text || p_store::text;
    BEGIN
      IF strpos(bumped, mark) = 0 THEN
        PERFORM set_config('storefront.read_bumped', bumped || mark || ' ', true);
        INSERT INTO read_versions AS v (store_id, scope, shard, version)
        VALUES (p_store, p_scope, pg_backend_pid() % 16, 1)
        ON CONFLICT (store_id, scope, shard) DO UPDATE SET version = v.version + 1;
      END IF;
      PERFORM pg_notify('storefront_read', p_scope::text || ' ' || p_store::text || coalesce(' ' || p_product::text, ''));
    END
    $$`.execute(db);

  // Statement level: one bump per store per statement, however many rows (imports, cascades).
  await sql`
    CREATE FUNCTION storefront_read_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE s uuid;
    BEGIN
      FOR s IN SELECT DISTINCT store_id FROM changed_rows LOOP
        PERFORM storefront_read_bump(s, 'c', NULL);
      END LOOP;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE FUNCTION storefront_read_store_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE s uuid;
    BEGIN
      FOR s IN SELECT id FROM changed_rows LOOP
        PERFORM storefront_read_bump(s, 'c', NULL);
      END LOOP;
      RETURN NULL;
    END
    $$`.execute(db);
  // Row level, for updates that matter only in part (filtered by the triggers' WHEN).
  await sql`
    CREATE FUNCTION storefront_read_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM storefront_read_bump(NEW.store_id, 'c', NULL);
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE FUNCTION storefront_read_stock_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM storefront_read_bump(NEW.store_id, 's', NEW.product_id);
      RETURN NULL;
    END
    $$`.execute(db);

  // A trigger with transition tables covers one event, so each table gets one per event.
  for (const table of [
    'products',
    'variants',
    'collections',
    'collection_products',
    'menus',
    'pages',
    'regions',
  ]) {
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_read_inserted`)} AFTER INSERT ON ${sql.table(table)}
      REFERENCING NEW TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_read_deleted`)} AFTER DELETE ON ${sql.table(table)}
      REFERENCING OLD TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
  }
  for (const table of ['products', 'collections', 'collection_products', 'menus', 'pages']) {
    await sql`
      CREATE TRIGGER ${sql.id(`${table}_read_updated`)} AFTER UPDATE ON ${sql.table(table)}
      REFERENCING NEW TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
  }
  await sql`
    CREATE TRIGGER stores_read_updated AFTER UPDATE ON stores
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_store_changed()`.execute(db);
  // A region's draft is the builder's; the storefront reads only the published tree.
  await sql`
    CREATE TRIGGER regions_read_published AFTER UPDATE ON regions FOR EACH ROW
    WHEN (OLD.published_blocks IS DISTINCT FROM NEW.published_blocks
          OR OLD.published_at IS DISTINCT FROM NEW.published_at
          OR OLD.key IS DISTINCT FROM NEW.key)
    EXECUTE FUNCTION storefront_read_row_changed()`.execute(db);
  // Any variant column but its stock (and the time of the change) is catalog; stock is its own scope,
  // and only a change of the sellable figure counts (selling from reserved moves both and not it).
  await sql`
    CREATE TRIGGER variants_read_updated AFTER UPDATE ON variants FOR EACH ROW
    WHEN ((to_jsonb(OLD) - ARRAY['on_hand', 'reserved', 'updated_at'])
          IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['on_hand', 'reserved', 'updated_at']))
    EXECUTE FUNCTION storefront_read_row_changed()`.execute(db);
  await sql`
    CREATE TRIGGER variants_read_stock AFTER UPDATE ON variants FOR EACH ROW
    WHEN (greatest(OLD.on_hand - OLD.reserved, 0) IS DISTINCT FROM greatest(NEW.on_hand - NEW.reserved, 0))
    EXECUTE FUNCTION storefront_read_stock_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'products',
    'variants',
    'collections',
    'collection_products',
    'menus',
    'pages',
    'regions',
  ]) {
    for (const suffix of ['inserted', 'deleted', 'updated', 'published', 'stock']) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_read_${suffix}`)} ON ${sql.table(table)}`.execute(
        db,
      );
    }
  }
  await sql`DROP TRIGGER IF EXISTS stores_read_updated ON stores`.execute(db);
  for (const fn of [
    'storefront_read_changed()',
    'storefront_read_store_changed()',
    'storefront_read_row_changed()',
    'storefront_read_stock_changed()',
    'storefront_read_bump(uuid, "char", uuid)',
  ]) {
    await sql.raw(`DROP FUNCTION IF EXISTS ${fn}`).execute(db);
  }
  await sql`DROP TABLE IF EXISTS read_versions`.execute(db);
}
