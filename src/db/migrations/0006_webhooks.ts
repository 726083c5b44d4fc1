import { sql, type Kysely } from 'kysely';

/**
 * Webhooks: endpoints (with their signing secrets encrypted at rest), delivery rows fanned out from
 * the events outbox, the NOTIFY trigger that wakes relays on commit, and the two event sources no
 * other module owns (themes and apps, decision `themes-and-apps`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
      description text CHECK (length(description) <= 500),
      events jsonb NOT NULL CHECK (jsonb_typeof(events) = 'array' AND jsonb_array_length(events) >= 1),
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text CHECK (disabled_reason IN ('manual', 'gone')),
      secret_ciphertext text NOT NULL,
      previous_secret_ciphertext text,
      previous_secret_expires_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL)),
      CHECK (enabled = (disabled_reason IS NULL))
    )`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_created_idx ON webhook_endpoints (store_id, created_at, id)`.execute(
    db,
  );

  // One row per (endpoint, event) to send. `event_seq` and `resource_key` carry the per-resource
  // ordering: a pending row is not claimed while an older pending row of the same endpoint and
  // resource exists. Events are kept while a delivery row references them (no cascade).
  await sql`
    CREATE TABLE webhook_deliveries (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      endpoint_id uuid NOT NULL,
      event_id uuid NOT NULL,
      event_seq bigint NOT NULL,
      resource_key text NOT NULL CHECK (length(resource_key) BETWEEN 1 AND 300),
      kind text NOT NULL CHECK (kind IN ('event', 'replay', 'test')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
      locked_until timestamptz(3),
      last_attempt_at timestamptz(3),
      last_status_code integer CHECK (last_status_code BETWEEN 100 AND 599),
      last_error text CHECK (length(last_error) <= 1000),
      delivered_at timestamptz(3),
      failed_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, endpoint_id) REFERENCES webhook_endpoints (store_id, id) ON DELETE CASCADE,
      FOREIGN KEY (store_id, event_id) REFERENCES events (store_id, id),
      CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
      CHECK ((status = 'failed') = (failed_at IS NOT NULL))
    )`.execute(db);
  // Fan-out inserts each (endpoint, event) once; replays and test pings add rows of their own kind.
  await sql`
    CREATE UNIQUE INDEX webhook_deliveries_fanout_idx ON webhook_deliveries (store_id, endpoint_id, event_id)
    WHERE kind = 'event'`.execute(db);
  // The relay's scans read only pending rows (a small set however many delivered rows are kept):
  // this index serves both its scan for due rows and the per-candidate "oldest pending delivery of
  // this endpoint and resource" probe. (A second pending-only index on next_attempt_at made the
  // planner probe with the wrong one.)
  await sql`
    CREATE INDEX webhook_deliveries_resource_idx
    ON webhook_deliveries (store_id, endpoint_id, resource_key, event_seq, id) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (store_id, created_at, id)`.execute(
    db,
  );
  await sql`
    CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (store_id, endpoint_id, created_at, id)`.execute(
    db,
  );
  await sql`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (store_id, event_id)`.execute(db);

  // Wake relays the moment events commit: NOTIFY is delivered at commit (never for a rolled-back
  // transaction) and repeated notifications of one transaction are folded into one.
  await sql`
    CREATE FUNCTION storefront_webhooks_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('storefront_webhooks', '');
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER events_notify_webhooks AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION storefront_webhooks_notify()`.execute(db);

  await sql`
    CREATE TABLE themes (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      settings jsonb NOT NULL CHECK (jsonb_typeof(settings) = 'object'),
      live boolean NOT NULL DEFAULT false,
      published_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CHECK (NOT live OR published_at IS NOT NULL)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX themes_live_idx ON themes (store_id) WHERE live`.execute(db);
  await sql`CREATE INDEX themes_created_idx ON themes (store_id, created_at, id)`.execute(db);

  await sql`
    CREATE TABLE apps (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      scopes jsonb NOT NULL CHECK (jsonb_typeof(scopes) = 'array'),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, name)
    )`.execute(db);
  await sql`CREATE INDEX apps_created_idx ON apps (store_id, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS events_notify_webhooks ON events`.execute(db);
  await sql`DROP FUNCTION IF EXISTS storefront_webhooks_notify()`.execute(db);
  for (const table of ['webhook_deliveries', 'webhook_endpoints', 'themes', 'apps']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
