import { sql, type Kysely } from 'kysely';

/**
 * Gift cards as tender (decision `gift-card-tender`):
 *
 * - `carts.gift_card_ids`: the cards a buyer entered on the cart, by id (never the code), in the
 *   order entered, at most 5.
 * - `orders.gift_cards`: what the order holds or spent on each card at checkout,
 *   `[{id, last4, amount}]`; the provider charges the total less their sum (the payment's amount).
 * - `refunds.gift_cards`: a refund paid back to the order's gift cards (settled at once, never sent
 *   to the provider, not drawn on the provider's payment).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE carts ADD COLUMN gift_card_ids uuid[] NOT NULL DEFAULT '{}'
    CHECK (cardinality(gift_card_ids) <= 5)`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN gift_cards jsonb NOT NULL DEFAULT '[]'`.execute(db);
  await sql`ALTER TABLE refunds ADD COLUMN gift_cards boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE refunds DROP COLUMN IF EXISTS gift_cards`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN IF EXISTS gift_cards`.execute(db);
  await sql`ALTER TABLE carts DROP COLUMN IF EXISTS gift_card_ids`.execute(db);
}
