import { sql, type Kysely } from 'kysely';

/**
 * Cancellation (decision `order-cancellation`): an order can end `cancelled` (by staff: a pending order's reservation
 * released, a paid one's units restocked and its money refunded). The order keeps when and why.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_status_check`.execute(db);
  await sql`
    ALTER TABLE orders ADD CONSTRAINT orders_status_check
      CHECK (status IN ('pending', 'paid', 'expired', 'cancelled'))`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN cancelled_at timestamptz(3)`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN cancel_reason text CHECK (char_length(cancel_reason) <= 500)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders DROP COLUMN cancel_reason`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN cancelled_at`.execute(db);
  await sql`ALTER TABLE orders DROP CONSTRAINT orders_status_check`.execute(db);
  await sql`
    ALTER TABLE orders ADD CONSTRAINT orders_status_check
      CHECK (status IN ('pending', 'paid', 'expired'))`.execute(db);
}
