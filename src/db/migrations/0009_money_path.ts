import { sql, type Kysely } from 'kysely';

/**
 * The money path after review (decisions `catalog-owns-stock`, `sweeps-reschedule`, `refund-path` and `checkout-after-a-crash`):
 * - orders: `oversold` (a paid order whose stock was short, decision `catalog-owns-stock`); `idempotency_key` (the checkout
 *   key the order was made with, decision `checkout-after-a-crash`: a retry finds its order even when the stored answer never
 *   got written); `next_sweep_at` and `sweep_attempts` (the expiry sweep's own schedule and
 *   backoff, decision `sweeps-reschedule`, so an order it cannot settle now never blocks the ones behind it).
 * - payments: a `processing` status mirrors the provider's.
 * - refunds: `next_check_at`, `attempts`, `last_error` for reconciliation with backoff (decisions `sweeps-reschedule` and `refund-path`).
 * - idempotency_keys: `lease_token` fences the holder of an in-progress key (decision `idempotency-lease`).
 * - stores: a reply-to address is always set (decision `reply-to-required`); stores without one get their owner's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE orders
      ADD COLUMN oversold boolean NOT NULL DEFAULT false,
      ADD COLUMN idempotency_key uuid,
      ADD COLUMN next_sweep_at timestamptz(3),
      ADD COLUMN sweep_attempts integer NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE orders SET next_sweep_at = expires_at`.execute(db);
  await sql`ALTER TABLE orders ALTER COLUMN next_sweep_at SET NOT NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX orders_idempotency_key_idx ON orders (store_id, idempotency_key)`.execute(db);
  await sql`DROP INDEX IF EXISTS orders_pending_idx`.execute(db);
  await sql`CREATE INDEX orders_sweep_idx ON orders (store_id, next_sweep_at) WHERE status = 'pending'`.execute(
    db,
  );

  await sql`ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_status_check`.execute(db);
  await sql`
    ALTER TABLE payments ADD CONSTRAINT payments_status_check
      CHECK (status IN ('pending', 'processing', 'succeeded', 'failed', 'canceled'))`.execute(db);

  await sql`
    ALTER TABLE refunds
      ADD COLUMN next_check_at timestamptz(3) DEFAULT now(),
      ADD COLUMN attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN last_error text`.execute(db);
  await sql`UPDATE refunds SET next_check_at = created_at + interval '10 minutes' WHERE status = 'pending'`.execute(
    db,
  );
  await sql`DROP INDEX IF EXISTS refunds_pending_idx`.execute(db);
  await sql`CREATE INDEX refunds_pending_idx ON refunds (store_id, next_check_at) WHERE status = 'pending'`.execute(
    db,
  );

  await sql`ALTER TABLE idempotency_keys ADD COLUMN lease_token uuid`.execute(db);

  await sql`
    UPDATE stores s SET reply_to_email = (
      SELECT m.email FROM staff_members m
      WHERE m.store_id = s.id AND m.role = 'owner'
      ORDER BY m.created_at LIMIT 1
    )
    WHERE s.reply_to_email IS NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS lease_token`.execute(db);
  await sql`DROP INDEX IF EXISTS refunds_pending_idx`.execute(db);
  await sql`ALTER TABLE refunds DROP COLUMN IF EXISTS next_check_at, DROP COLUMN IF EXISTS attempts, DROP COLUMN IF EXISTS last_error`.execute(
    db,
  );
  await sql`CREATE INDEX refunds_pending_idx ON refunds (store_id, created_at) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`DROP INDEX IF EXISTS orders_sweep_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS orders_idempotency_key_idx`.execute(db);
  await sql`
    ALTER TABLE orders
      DROP COLUMN IF EXISTS oversold, DROP COLUMN IF EXISTS idempotency_key,
      DROP COLUMN IF EXISTS next_sweep_at, DROP COLUMN IF EXISTS sweep_attempts`.execute(db);
  await sql`CREATE INDEX orders_pending_idx ON orders (store_id, expires_at) WHERE status = 'pending'`.execute(
    db,
  );
}
