import { sql, type Kysely } from 'kysely';

/**
 * The cart's shipping address (decision `cart-shipping-and-totals`), set by `PUT /storefront/v1/carts/:id/shipping-address`
 * and checked against the country's rules before it is kept. Personal data: carts are purged when
 * abandoned (CART_RETENTION) and an address never reaches a log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE carts ADD COLUMN shipping_address jsonb CHECK (jsonb_typeof(shipping_address) = 'object')`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE carts DROP COLUMN shipping_address`.execute(db);
}
