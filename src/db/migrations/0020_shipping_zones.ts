import { sql, type Kysely } from 'kysely';

/**
 * Shipping zones and methods (decision `shipping-zones-and-methods`). A zone is a set of areas (a country, `*` for the rest of
 * the world, optionally narrowed to ISO 3166-2 regions or postal-code prefixes), kept as JSON on the
 * zone: a store has few zones, and a destination is matched against all of them at once in code
 * (the most specific area wins). A method belongs to one zone and prices a parcel by its kind:
 * `flat`, `weight` (tiers by grams), `free_over` (free from a subtotal) or `pickup`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE shipping_zones (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
      areas jsonb NOT NULL CHECK (jsonb_typeof(areas) = 'array'),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX shipping_zones_created_idx ON shipping_zones (store_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE shipping_methods (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      zone_id uuid NOT NULL,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
      kind text NOT NULL CHECK (kind IN ('flat', 'weight', 'free_over', 'pickup')),
      amount bigint CHECK (amount >= 0),
      free_over_amount bigint CHECK (free_over_amount >= 0),
      weight_tiers jsonb,
      min_delivery_days integer CHECK (min_delivery_days >= 0),
      max_delivery_days integer CHECK (max_delivery_days >= 0),
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, zone_id) REFERENCES shipping_zones (store_id, id) ON DELETE CASCADE,
      CHECK (kind = 'weight' OR amount IS NOT NULL),
      CHECK (kind <> 'weight' OR jsonb_typeof(weight_tiers) = 'array'),
      CHECK (kind <> 'free_over' OR free_over_amount IS NOT NULL),
      CHECK (min_delivery_days IS NULL OR max_delivery_days IS NULL OR min_delivery_days <= max_delivery_days)
    )`.execute(db);
  await sql`CREATE INDEX shipping_methods_zone_idx ON shipping_methods (store_id, zone_id, created_at, id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS shipping_methods`.execute(db);
  await sql`DROP TABLE IF EXISTS shipping_zones`.execute(db);
}
