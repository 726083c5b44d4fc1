import { sql, type Kysely } from 'kysely';

/**
 * Customers (decision `customer-accounts`): one row per buyer email and store. A checkout links its order to the
 * customer of its email (made then, as a guest, if none) or of its customer token; a verified
 * sign-in code turns a guest into an account (`verified_at`). Saved addresses, sessions (their
 * `ct_` tokens are credentials, stored as hashes), sign-in codes (bound to an HMAC of the email,
 * never the email) and the privacy log of exports and erasures.
 *
 * Existing orders get a customer per distinct email (guests, no events): the merchant's customer
 * list starts with everyone who has bought.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE customers (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      email text NOT NULL,
      name text,
      phone text,
      accepts_marketing boolean NOT NULL DEFAULT false,
      verified_at timestamptz(3),
      default_address_id uuid,
      last_order_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, email)
    )`.execute(db);
  // The admin list, newest first, and its searches: an email prefix, or part of a name or email.
  await sql`CREATE INDEX customers_created_idx ON customers (store_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX customers_email_prefix_idx ON customers (store_id, email text_pattern_ops)`.execute(
    db,
  );
  // The folded name and email, stored: the search reads it without folding every candidate row.
  await sql`
    ALTER TABLE customers ADD COLUMN search_text text
    GENERATED ALWAYS AS (storefront_search_fold(coalesce(name, '') || ' ' || email)) STORED`.execute(db);
  await sql`CREATE INDEX customers_search_idx ON customers USING gin (store_id, search_text gin_trgm_ops)`.execute(
    db,
  );

  await sql`
    CREATE TABLE customer_addresses (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      customer_id uuid NOT NULL,
      address jsonb NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, customer_id) REFERENCES customers (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX customer_addresses_customer_idx ON customer_addresses (store_id, customer_id, created_at)`.execute(
    db,
  );

  await sql`
    CREATE TABLE customer_sessions (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      customer_id uuid NOT NULL,
      expires_at timestamptz(3) NOT NULL,
      last_used_at timestamptz(3) NOT NULL DEFAULT now(),
      revoked_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, customer_id) REFERENCES customers (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX customer_sessions_customer_idx ON customer_sessions (store_id, customer_id)`.execute(
    db,
  );

  await sql`
    CREATE TABLE customer_sign_in_codes (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      email_hash text NOT NULL,
      client_hash text NOT NULL,
      code_hash text NOT NULL,
      expires_at timestamptz(3) NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      used_at timestamptz(3),
      voided_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`
    CREATE INDEX customer_sign_in_codes_email_idx ON customer_sign_in_codes (store_id, email_hash, created_at)`.execute(
    db,
  );

  await sql`
    CREATE TABLE privacy_log (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      action text NOT NULL CHECK (action IN ('export', 'erase')),
      customer_id uuid NOT NULL,
      actor text NOT NULL CHECK (actor IN ('staff', 'customer')),
      staff_id uuid,
      staff_email text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX privacy_log_created_idx ON privacy_log (store_id, created_at, id)`.execute(db);

  await sql`ALTER TABLE credentials DROP CONSTRAINT IF EXISTS credentials_kind_check`.execute(db);
  await sql`
    ALTER TABLE credentials ADD CONSTRAINT credentials_kind_check
    CHECK (kind IN ('publishable_key', 'staff_session', 'customer_session'))`.execute(db);

  await sql`ALTER TABLE orders ADD COLUMN customer_id uuid`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN erased_at timestamptz(3)`.execute(db);
  await sql`
    CREATE INDEX orders_customer_idx ON orders (store_id, customer_id, created_at)
    WHERE customer_id IS NOT NULL`.execute(db);

  // Everyone who has bought becomes a (guest) customer, their orders linked.
  await sql`
    INSERT INTO customers (store_id, email, created_at, updated_at, last_order_at)
    SELECT store_id, email, min(created_at), min(created_at), max(created_at)
    FROM orders GROUP BY store_id, email`.execute(db);
  await sql`
    UPDATE orders o SET customer_id = c.id
    FROM customers c WHERE c.store_id = o.store_id AND c.email = o.email`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS orders_customer_idx`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN IF EXISTS erased_at`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN IF EXISTS customer_id`.execute(db);
  await sql`DELETE FROM credentials WHERE kind = 'customer_session'`.execute(db);
  await sql`ALTER TABLE credentials DROP CONSTRAINT IF EXISTS credentials_kind_check`.execute(db);
  await sql`
    ALTER TABLE credentials ADD CONSTRAINT credentials_kind_check
    CHECK (kind IN ('publishable_key', 'staff_session'))`.execute(db);
  await sql`DROP TABLE IF EXISTS privacy_log`.execute(db);
  await sql`DROP TABLE IF EXISTS customer_sign_in_codes`.execute(db);
  await sql`DROP TABLE IF EXISTS customer_sessions`.execute(db);
  await sql`DROP TABLE IF EXISTS customer_addresses`.execute(db);
  await sql`DROP TABLE IF EXISTS customers`.execute(db);
}
