import { sql, type Kysely } from 'kysely';

/**
 * Gift cards sold as products (decision `gift-card-products`):
 *
 * - `products.gift_card`: paying for one of the product's variants issues a gift card per unit,
 *   of the line's unit price. Its variants are not shipped (the services keep `requires_shipping`
 *   false on them).
 * - `gift_cards.order_id`, `order_line`, `order_unit`: the order (and the position of its line, and
 *   which unit of it) that sold the card; null on cards staff issued. Unique per store, so a card
 *   is issued once per unit whatever runs twice, and the order's cards are found by the index.
 *   Orders are never deleted, so a card always names its order.
 * - `mail_outbox.html_body`: a mail's HTML part, besides its text (null: text only); sealed with
 *   the rest of a sealed mail (a gift card's code never rests in plaintext) and erased once sent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE products ADD COLUMN gift_card boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    ALTER TABLE gift_cards
      ADD COLUMN order_id uuid,
      ADD COLUMN order_line integer,
      ADD COLUMN order_unit integer,
      ADD CONSTRAINT gift_cards_order_fkey FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id),
      ADD CONSTRAINT gift_cards_sold_check CHECK (
        (order_id IS NULL AND order_line IS NULL AND order_unit IS NULL) OR
        (order_id IS NOT NULL AND order_line >= 0 AND order_unit >= 0))`.execute(db);
  await sql`
    CREATE UNIQUE INDEX gift_cards_sold_idx ON gift_cards (store_id, order_id, order_line, order_unit)
    WHERE order_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE mail_outbox ADD COLUMN html_body text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE mail_outbox DROP COLUMN IF EXISTS html_body`.execute(db);
  await sql`DROP INDEX IF EXISTS gift_cards_sold_idx`.execute(db);
  await sql`
    ALTER TABLE gift_cards
      DROP CONSTRAINT IF EXISTS gift_cards_sold_check,
      DROP CONSTRAINT IF EXISTS gift_cards_order_fkey,
      DROP COLUMN IF EXISTS order_unit,
      DROP COLUMN IF EXISTS order_line,
      DROP COLUMN IF EXISTS order_id`.execute(db);
  await sql`ALTER TABLE products DROP COLUMN IF EXISTS gift_card`.execute(db);
}
