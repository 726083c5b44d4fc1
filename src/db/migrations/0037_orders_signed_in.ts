import { sql, type Kysely } from 'kysely';

/**
 * Orders show in a customer's account only when they are theirs (decision
 * `account-shows-own-or-paid-orders`, docs/decisions/customers.md): `signed_in` notes an order
 * placed with its customer's token; a guest order with the customer's email shows once it is paid.
 * Orders from before keep `false` (paid ones show, as before). The pending orders of an email are
 * no longer counted (decision `pending-orders-per-client`), so their index goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders ADD COLUMN signed_in boolean NOT NULL DEFAULT false`.execute(db);
  await sql`DROP INDEX IF EXISTS orders_pending_email_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS orders_pending_email_idx ON orders (store_id, email) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`ALTER TABLE orders DROP COLUMN IF EXISTS signed_in`.execute(db);
}
