import { sql, type Kysely } from 'kysely';

/**
 * Foundation schema: stores, staff, sessions, storefront keys, the global credential lookup,
 * the events outbox and platform secrets.
 *
 * Times are timestamptz(3): millisecond precision, exactly what a JavaScript Date holds, so a
 * keyset cursor built from a row's time matches the stored value.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE stores (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
      currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      reply_to_email text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE staff_members (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      email text NOT NULL CHECK (email = lower(email)),
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'staff')),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, email)
    )`.execute(db);

  await sql`
    CREATE TABLE staff_sessions (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      staff_id uuid NOT NULL,
      expires_at timestamptz(3) NOT NULL,
      last_used_at timestamptz(3) NOT NULL DEFAULT now(),
      revoked_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, staff_id) REFERENCES staff_members (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX staff_sessions_staff_idx ON staff_sessions (store_id, staff_id)`.execute(db);
  await sql`CREATE INDEX staff_sessions_expiry_idx ON staff_sessions (store_id, expires_at)`.execute(db);

  await sql`
    CREATE TABLE storefront_keys (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      label text NOT NULL CHECK (length(label) BETWEEN 1 AND 200),
      key_prefix text NOT NULL,
      allowed_origins jsonb NOT NULL DEFAULT '[]'::jsonb,
      rate_limit_read integer CHECK (rate_limit_read > 0),
      rate_limit_write integer CHECK (rate_limit_write > 0),
      revoked_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX storefront_keys_created_idx ON storefront_keys (store_id, created_at, id)`.execute(
    db,
  );

  // Global lookup from a secret's hash to its owner. Secrets carry no store hint (a `pk_` key is
  // opaque), so this is the one place a lookup is not scoped by store; it is keyed by the hash.
  await sql`
    CREATE TABLE credentials (
      hash text PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
      kind text NOT NULL CHECK (kind IN ('publishable_key', 'staff_session')),
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      subject_id uuid NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX credentials_subject_idx ON credentials (store_id, subject_id)`.execute(db);

  // The outbox. A relay claims undispatched rows with FOR UPDATE SKIP LOCKED and a lease
  // (locked_until), never with a position cursor.
  await sql`
    CREATE TABLE events (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      seq bigint GENERATED ALWAYS AS IDENTITY,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      dispatched_at timestamptz(3),
      locked_until timestamptz(3),
      claim_count integer NOT NULL DEFAULT 0,
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX events_pending_idx ON events (store_id, seq) WHERE dispatched_at IS NULL`.execute(
    db,
  );
  await sql`CREATE INDEX events_created_idx ON events (store_id, created_at, seq)`.execute(db);

  await sql`
    CREATE TABLE platform_secrets (
      name text PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'events',
    'credentials',
    'storefront_keys',
    'staff_sessions',
    'staff_members',
    'platform_secrets',
    'stores',
  ]) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
