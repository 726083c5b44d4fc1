import { sql, type Kysely } from 'kysely';

/**
 * Carts, checkout and payments: discounts, per-country tax and shipping rates, idempotency keys,
 * the per-store order counter, orders with priced lines, payments, refunds, processed provider
 * events, and the built-in sandbox provider's own intents.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE carts (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      version integer NOT NULL DEFAULT 1,
      completed_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX carts_updated_idx ON carts (store_id, updated_at)`.execute(db);

  // A cart line references (store_id, variant_id): the database itself refuses a line that points
  // into another store, and deleting a variant removes it from every cart.
  await sql`
    CREATE TABLE cart_lines (
      store_id uuid NOT NULL,
      cart_id uuid NOT NULL,
      variant_id uuid NOT NULL,
      position integer NOT NULL,
      quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 999),
      PRIMARY KEY (store_id, cart_id, variant_id),
      FOREIGN KEY (store_id, cart_id) REFERENCES carts (store_id, id) ON DELETE CASCADE,
      FOREIGN KEY (store_id, variant_id) REFERENCES variants (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX cart_lines_variant_idx ON cart_lines (store_id, variant_id)`.execute(db);

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
    CREATE TABLE tax_rates (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      country char(2) NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
      tax_rate_bps integer NOT NULL CHECK (tax_rate_bps BETWEEN 0 AND 10000),
      shipping_amount bigint NOT NULL CHECK (shipping_amount >= 0),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, country)
    )`.execute(db);

  await sql`
    CREATE TABLE idempotency_keys (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      route text NOT NULL,
      key uuid NOT NULL,
      request_hash text NOT NULL,
      status text NOT NULL CHECK (status IN ('in_progress', 'done')),
      locked_until timestamptz(3),
      response_status integer,
      response_type text,
      response_body text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, route, key)
    )`.execute(db);
  await sql`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (store_id, created_at)`.execute(db);

  await sql`
    CREATE TABLE order_counters (
      store_id uuid PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
      last_number bigint NOT NULL
    )`.execute(db);

  await sql`
    CREATE TABLE orders (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      number bigint NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'paid', 'expired')),
      cart_id uuid NOT NULL,
      email text NOT NULL,
      country char(2),
      currency char(3) NOT NULL,
      subtotal_amount bigint NOT NULL CHECK (subtotal_amount >= 0),
      discount_amount bigint NOT NULL CHECK (discount_amount >= 0),
      tax_amount bigint NOT NULL CHECK (tax_amount >= 0),
      shipping_amount bigint NOT NULL CHECK (shipping_amount >= 0),
      total_amount bigint NOT NULL CHECK (total_amount >= 0),
      refunded_amount bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0 AND refunded_amount <= total_amount),
      discount_code text,
      expires_at timestamptz(3) NOT NULL,
      paid_at timestamptz(3),
      expired_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, number),
      UNIQUE (store_id, cart_id)
    )`.execute(db);
  await sql`CREATE INDEX orders_created_idx ON orders (store_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX orders_pending_idx ON orders (store_id, expires_at) WHERE status = 'pending'`.execute(
    db,
  );

  await sql`
    CREATE TABLE order_lines (
      store_id uuid NOT NULL,
      order_id uuid NOT NULL,
      position integer NOT NULL,
      variant_id uuid NOT NULL,
      product_id uuid NOT NULL,
      title text NOT NULL,
      variant_label text NOT NULL,
      sku text,
      quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 999),
      unit_price_amount bigint NOT NULL CHECK (unit_price_amount >= 0),
      line_total_amount bigint NOT NULL CHECK (line_total_amount >= 0),
      PRIMARY KEY (store_id, order_id, position),
      FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);

  await sql`
    CREATE TABLE payments (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      order_id uuid NOT NULL,
      provider text NOT NULL,
      ref text NOT NULL,
      client_secret text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
      amount bigint NOT NULL CHECK (amount >= 0),
      currency char(3) NOT NULL,
      last_error text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, provider, ref),
      FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX payments_order_idx ON payments (store_id, order_id)`.execute(db);

  await sql`
    CREATE TABLE refunds (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      order_id uuid NOT NULL,
      payment_id uuid NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      provider_ref text,
      reason text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      settled_at timestamptz(3),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX refunds_order_idx ON refunds (store_id, order_id)`.execute(db);

  // Provider webhook events already applied: the dedupe row commits with the effect.
  await sql`
    CREATE TABLE provider_events (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      provider text NOT NULL,
      event_id text NOT NULL,
      type text NOT NULL,
      received_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, provider, event_id)
    )`.execute(db);

  // The built-in sandbox payment provider keeps its intents here. It stands in for an external
  // provider, whose references are global, so this table is global (keyed by ref).
  await sql`
    CREATE TABLE sandbox_intents (
      ref text PRIMARY KEY,
      client_secret_hash text NOT NULL,
      amount bigint NOT NULL,
      currency char(3) NOT NULL,
      status text NOT NULL CHECK (status IN ('requires_payment_method', 'processing', 'succeeded', 'failed', 'canceled')),
      refunded_amount bigint NOT NULL DEFAULT 0,
      metadata jsonb NOT NULL,
      idempotency_key text UNIQUE,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'sandbox_intents',
    'provider_events',
    'refunds',
    'payments',
    'order_lines',
    'orders',
    'order_counters',
    'idempotency_keys',
    'tax_rates',
    'discounts',
    'cart_lines',
    'carts',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
