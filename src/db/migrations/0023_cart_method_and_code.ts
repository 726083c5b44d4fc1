import { sql, type Kysely } from 'kysely';

/**
 * The cart's chosen shipping method and discount code (decision `cart-shipping-and-totals`), so that the cart can show the
 * totals its checkout will charge. The method is a reference only: when it is deleted, or stops
 * fitting the cart, the cart drops it and says so.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE carts ADD COLUMN shipping_method_id uuid, ADD COLUMN discount_code text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE carts DROP COLUMN shipping_method_id, DROP COLUMN discount_code`.execute(db);
}
