import { sql, type Kysely } from 'kysely';

/**
 * Promotions (decision `promotions-resource`, docs/decisions/promotions.md): what a store
 * takes off an order, with a code or automatically, under conditions, within dates and limits.
 *
 * - `promotions`: `conditions` and `action` are JSON in the engine's own shape (percentages in basis
 *   points, amounts in minor units); `code` is upper case and unique in the store (a code is what a
 *   buyer types, whatever its case); a promotion has a code or is automatic, never both; `used_count`
 *   is its uses reserved by checkouts (given back on expiry and cancellation), which a revived order
 *   may take past `usage_limit`.
 *
 * Every discount code becomes a code promotion with the same id, code, dates, limit, use count and
 * times, and the same meaning (decision `discount-codes-are-promotions`): a percent code of p takes
 * p % (p × 100 basis points) off the order, a fixed one its amount; it combines with nothing, as a
 * cart held one code. The `discounts` table goes: the old endpoints read and write promotions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE promotions (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      code text CHECK (code ~ '^[A-Z0-9_-]{1,64}$'),
      automatic boolean NOT NULL DEFAULT false,
      conditions jsonb NOT NULL DEFAULT '{}',
      action jsonb NOT NULL CHECK (action->>'kind' IN ('percent', 'amount', 'free_shipping', 'buy_x_get_y')),
      combines_with jsonb NOT NULL DEFAULT '{"order": false, "items": false, "shipping": false}',
      starts_at timestamptz(3),
      ends_at timestamptz(3),
      usage_limit integer CHECK (usage_limit > 0),
      per_customer_limit integer CHECK (per_customer_limit > 0),
      used_count integer NOT NULL DEFAULT 0 CHECK (used_count >= 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CONSTRAINT promotions_code_key UNIQUE (store_id, code),
      CONSTRAINT promotions_code_or_automatic CHECK ((code IS NULL) = automatic),
      CONSTRAINT promotions_dates_check CHECK (starts_at IS NULL OR ends_at IS NULL OR starts_at < ends_at)
    )`.execute(db);
  await sql`CREATE INDEX promotions_created_idx ON promotions (store_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX promotions_automatic_idx ON promotions (store_id) WHERE automatic`.execute(db);

  await sql`
    INSERT INTO promotions (store_id, id, name, code, automatic, conditions, action, combines_with,
                            starts_at, ends_at, usage_limit, used_count, created_at, updated_at)
    SELECT store_id, id, code, code, false, '{}',
           CASE kind WHEN 'percent' THEN jsonb_build_object('kind', 'percent', 'target', 'order', 'bps', value * 100)
                     ELSE jsonb_build_object('kind', 'amount', 'target', 'order', 'amount', value) END,
           '{"order": false, "items": false, "shipping": false}',
           starts_at, ends_at, usage_limit, used_count, created_at, updated_at
    FROM discounts`.execute(db);
  await sql`DROP TABLE discounts`.execute(db);
}

/** Back to discount codes: the promotions a discount code can say (the rest are lost). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE discounts (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      code text NOT NULL CHECK (code ~ '^[A-Z0-9_-]{1,64}$'),
      kind text NOT NULL CHECK (kind IN ('percent', 'fixed')),
      value bigint NOT NULL CHECK (value > 0 AND (kind <> 'percent' OR value <= 100)),
      starts_at timestamptz(3),
      ends_at timestamptz(3),
      usage_limit integer CHECK (usage_limit > 0),
      used_count integer NOT NULL DEFAULT 0 CHECK (used_count >= 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, code),
      CHECK (usage_limit IS NULL OR used_count <= usage_limit)
    )`.execute(db);
  await sql`CREATE INDEX discounts_created_idx ON discounts (store_id, created_at, id)`.execute(db);
  await sql`
    INSERT INTO discounts (store_id, id, code, kind, value, starts_at, ends_at, usage_limit, used_count,
                           created_at, updated_at)
    SELECT store_id, id, code,
           CASE action->>'kind' WHEN 'percent' THEN 'percent' ELSE 'fixed' END,
           CASE action->>'kind' WHEN 'percent' THEN (action->>'bps')::bigint / 100 ELSE (action->>'amount')::bigint END,
           starts_at, ends_at, usage_limit,
           CASE WHEN usage_limit IS NULL THEN used_count ELSE least(used_count, usage_limit) END,
           created_at, updated_at
    FROM promotions
    WHERE code IS NOT NULL AND conditions = '{}' AND action->>'target' = 'order'
      AND (action->>'kind' = 'amount' OR (action->>'kind' = 'percent' AND (action->>'bps')::int % 100 = 0))`.execute(
    db,
  );
  await sql`DROP TABLE promotions`.execute(db);
}
