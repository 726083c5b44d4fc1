import { sql, type Kysely } from 'kysely';

/**
 * Fulfilments (decision `fulfilments`): what left the warehouse for an order, when, with which carrier and
 * tracking. A fulfilment holds its lines (variant and quantity, a handful per parcel) as JSON; the
 * order keeps `fulfillment_status`, written with every fulfilment change in the same transaction,
 * so order lists filter and show it without reading fulfilments.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE orders ADD COLUMN fulfillment_status text NOT NULL DEFAULT 'unfulfilled'
      CHECK (fulfillment_status IN ('unfulfilled', 'partial', 'fulfilled'))`.execute(db);
  await sql`
    CREATE TABLE fulfillments (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      order_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('shipped', 'delivered', 'cancelled')),
      lines jsonb NOT NULL CHECK (jsonb_typeof(lines) = 'array'),
      carrier text CHECK (char_length(carrier) <= 100),
      tracking_number text CHECK (char_length(tracking_number) <= 100),
      tracking_url text CHECK (char_length(tracking_url) <= 2000),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      delivered_at timestamptz(3),
      cancelled_at timestamptz(3),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX fulfillments_order_idx ON fulfillments (store_id, order_id, created_at, id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS fulfillments`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN fulfillment_status`.execute(db);
}
