import { sql, type Kysely } from 'kysely';

/**
 * Unpaid checkouts cannot hoard (decision `pending-orders-per-client`): a pending order remembers the client that made it,
 * as a keyed hash of its address (`client_key`, never the address itself; cleared once the order
 * is no longer pending), so a store counts the pending orders of one client address and of one
 * email, through these partial indexes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders ADD COLUMN client_key text`.execute(db);
  await sql`CREATE INDEX orders_pending_client_idx ON orders (store_id, client_key) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX orders_pending_email_idx ON orders (store_id, email) WHERE status = 'pending'`.execute(
    db,
  );
}
