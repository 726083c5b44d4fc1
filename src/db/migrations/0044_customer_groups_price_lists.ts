import { sql, type Kysely } from 'kysely';

/**
 * Customer groups and price lists (decisions `customer-groups` and `price-lists`):
 *
 * - `customer_groups`: a store's groups of customers, a name unique in the store whatever its case.
 * - `customer_group_members`: which customers are in which groups; a customer or a group that goes
 *   takes its memberships with it.
 * - `price_lists`: a `sale` or an `override` of variants' prices, in force from `starts_at` (or
 *   always) until `ends_at` (or forever). `all_markets` and `all_groups` say that it applies in every
 *   market and to every buyer; a list given markets or groups keeps them false even when every one
 *   of them is deleted since, so that deleting a group never opens its prices to everyone.
 * - `price_list_markets`, `price_list_groups`: the markets and groups a list is limited to.
 * - `price_list_prices`: the list's price of a variant in a currency.
 *
 * Price lists change the prices the storefront shows, so a change of them drops the read caches as a
 * product's does (migration 0015's `storefront_read_changed`); a membership changes no cached body.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE customer_groups (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX customer_groups_name_idx ON customer_groups (store_id, lower(name))`.execute(
    db,
  );
  await sql`CREATE INDEX customer_groups_created_idx ON customer_groups (store_id, created_at, id)`.execute(
    db,
  );
  await sql`
    CREATE TABLE customer_group_members (
      store_id uuid NOT NULL,
      customer_id uuid NOT NULL,
      group_id uuid NOT NULL,
      PRIMARY KEY (store_id, customer_id, group_id),
      CONSTRAINT customer_group_members_customer_fkey FOREIGN KEY (store_id, customer_id)
        REFERENCES customers (store_id, id) ON DELETE CASCADE,
      CONSTRAINT customer_group_members_group_fkey FOREIGN KEY (store_id, group_id)
        REFERENCES customer_groups (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX customer_group_members_group_idx ON customer_group_members (store_id, group_id)`.execute(
    db,
  );

  await sql`
    CREATE TABLE price_lists (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      kind text NOT NULL CHECK (kind IN ('sale', 'override')),
      all_markets boolean NOT NULL DEFAULT true,
      all_groups boolean NOT NULL DEFAULT true,
      starts_at timestamptz,
      ends_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CONSTRAINT price_lists_dates_check CHECK (starts_at IS NULL OR ends_at IS NULL OR starts_at < ends_at)
    )`.execute(db);
  await sql`CREATE INDEX price_lists_created_idx ON price_lists (store_id, created_at, id)`.execute(db);
  await sql`
    CREATE TABLE price_list_markets (
      store_id uuid NOT NULL,
      price_list_id uuid NOT NULL,
      market_id uuid NOT NULL,
      PRIMARY KEY (store_id, price_list_id, market_id),
      FOREIGN KEY (store_id, price_list_id) REFERENCES price_lists (store_id, id) ON DELETE CASCADE,
      CONSTRAINT price_list_markets_market_fkey FOREIGN KEY (store_id, market_id)
        REFERENCES markets (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX price_list_markets_market_idx ON price_list_markets (store_id, market_id)`.execute(
    db,
  );
  await sql`
    CREATE TABLE price_list_groups (
      store_id uuid NOT NULL,
      price_list_id uuid NOT NULL,
      group_id uuid NOT NULL,
      PRIMARY KEY (store_id, price_list_id, group_id),
      FOREIGN KEY (store_id, price_list_id) REFERENCES price_lists (store_id, id) ON DELETE CASCADE,
      CONSTRAINT price_list_groups_group_fkey FOREIGN KEY (store_id, group_id)
        REFERENCES customer_groups (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX price_list_groups_group_idx ON price_list_groups (store_id, group_id)`.execute(db);
  await sql`
    CREATE TABLE price_list_prices (
      store_id uuid NOT NULL,
      price_list_id uuid NOT NULL,
      variant_id uuid NOT NULL,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      amount bigint NOT NULL CHECK (amount >= 0),
      PRIMARY KEY (store_id, price_list_id, variant_id, currency),
      FOREIGN KEY (store_id, price_list_id) REFERENCES price_lists (store_id, id) ON DELETE CASCADE,
      CONSTRAINT price_list_prices_variant_fkey FOREIGN KEY (store_id, variant_id)
        REFERENCES variants (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX price_list_prices_variant_idx ON price_list_prices (store_id, variant_id, currency)`.execute(
    db,
  );

  // Price lists price the catalog: a change drops the read caches as a product's does.
  for (const table of ['price_lists', 'price_list_markets', 'price_list_groups', 'price_list_prices']) {
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
  for (const table of [
    'price_list_prices',
    'price_list_groups',
    'price_list_markets',
    'price_lists',
    'customer_group_members',
    'customer_groups',
  ])
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
}
