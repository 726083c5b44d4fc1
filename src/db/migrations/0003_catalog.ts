import { sql, type Kysely } from 'kysely';

/**
 * Catalog: products, variants, collections and their membership.
 *
 * `products.price_amount` is the card price (the lowest variant price, decision `card-price`), kept in step with the
 * variants in the same transaction, so product cards and price rules never need a join or N+1.
 * Smart collections are materialised into `collection_products` whenever a product or the rules
 * change, so reading a collection is one indexed range scan for either kind.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE products (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      title text NOT NULL CHECK (length(title) BETWEEN 1 AND 500),
      description text NOT NULL DEFAULT '',
      status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
      image text,
      tags text[] NOT NULL DEFAULT '{}',
      price_amount bigint CHECK (price_amount >= 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CHECK (status <> 'active' OR price_amount IS NOT NULL)
    )`.execute(db);
  await sql`CREATE INDEX products_created_idx ON products (store_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX products_active_idx ON products (store_id, created_at, id) WHERE status = 'active'`.execute(
    db,
  );

  await sql`
    CREATE TABLE variants (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      product_id uuid NOT NULL,
      position integer NOT NULL,
      sku text CHECK (length(sku) BETWEEN 1 AND 100),
      label text NOT NULL CHECK (length(label) BETWEEN 1 AND 200),
      price_amount bigint NOT NULL CHECK (price_amount >= 0),
      compare_at_amount bigint CHECK (compare_at_amount >= 0),
      on_hand integer NOT NULL CHECK (on_hand >= 0),
      reserved integer NOT NULL DEFAULT 0 CHECK (reserved >= 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, sku),
      FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX variants_product_idx ON variants (store_id, product_id, position)`.execute(db);

  await sql`
    CREATE TABLE collections (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
      slug text NOT NULL CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$'),
      kind text NOT NULL CHECK (kind IN ('manual', 'smart')),
      rules jsonb,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, slug),
      CHECK ((kind = 'smart') = (rules IS NOT NULL))
    )`.execute(db);
  await sql`CREATE INDEX collections_created_idx ON collections (store_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE collection_products (
      store_id uuid NOT NULL,
      collection_id uuid NOT NULL,
      product_id uuid NOT NULL,
      position bigint NOT NULL,
      PRIMARY KEY (store_id, collection_id, product_id),
      FOREIGN KEY (store_id, collection_id) REFERENCES collections (store_id, id) ON DELETE CASCADE,
      FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX collection_products_order_idx ON collection_products (store_id, collection_id, position, product_id)`.execute(
    db,
  );
  await sql`CREATE INDEX collection_products_product_idx ON collection_products (store_id, product_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['collection_products', 'collections', 'variants', 'products']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
