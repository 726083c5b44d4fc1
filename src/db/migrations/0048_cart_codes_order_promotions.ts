import { sql, type Kysely } from 'kysely';

/**
 * Promotions priced by the engine (decisions `cart-promotions` and `promotion-limits`):
 *
 * - `carts.discount_codes`: the codes a cart holds (at most 5, upper case, in the order entered),
 *   replacing its one `discount_code`.
 * - `orders.promotions`: what an order applied, `[{id, name, code, amount}]` (amount: goods and
 *   shipping it took off, in the order's currency). Its uses are given back from it on expiry or
 *   cancellation, and a buyer's uses of a promotion are counted from it. Orders placed with a
 *   discount code before get theirs, named by the code's promotion.
 * - The read triggers of the catalog (migration 0015) on promotions: a change of a promotion, not of
 *   its use count, drops the cached promotions of its store.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE carts ADD COLUMN discount_codes text[] NOT NULL DEFAULT '{}'
    CHECK (cardinality(discount_codes) <= 5)`.execute(db);
  await sql`UPDATE carts SET discount_codes = ARRAY[discount_code] WHERE discount_code IS NOT NULL`.execute(
    db,
  );
  await sql`ALTER TABLE carts DROP COLUMN discount_code`.execute(db);

  await sql`ALTER TABLE orders ADD COLUMN promotions jsonb NOT NULL DEFAULT '[]'`.execute(db);
  await sql`
    UPDATE orders o SET promotions = jsonb_build_array(jsonb_build_object(
      'id', p.id, 'name', p.name, 'code', o.discount_code, 'amount', o.discount_amount))
    FROM promotions p
    WHERE o.discount_code IS NOT NULL AND p.store_id = o.store_id AND p.code = o.discount_code`.execute(db);
  // A buyer's uses by email (by customer id, orders_customer_idx serves).
  await sql`CREATE INDEX orders_promoted_email_idx ON orders (store_id, email) WHERE promotions <> '[]'::jsonb`.execute(
    db,
  );

  await sql`
    CREATE TRIGGER promotions_read_inserted AFTER INSERT ON promotions
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
  await sql`
    CREATE TRIGGER promotions_read_deleted AFTER DELETE ON promotions
    REFERENCING OLD TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
  await sql`
    CREATE TRIGGER promotions_read_updated AFTER UPDATE ON promotions FOR EACH ROW
    WHEN ((to_jsonb(OLD) - ARRAY['used_count', 'updated_at'])
          IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['used_count', 'updated_at']))
    EXECUTE FUNCTION storefront_read_row_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['promotions_read_inserted', 'promotions_read_deleted', 'promotions_read_updated'])
    await sql`DROP TRIGGER IF EXISTS ${sql.id(name)} ON promotions`.execute(db);
  await sql`DROP INDEX IF EXISTS orders_promoted_email_idx`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN promotions`.execute(db);
  await sql`ALTER TABLE carts ADD COLUMN discount_code text`.execute(db);
  await sql`UPDATE carts SET discount_code = discount_codes[1]`.execute(db);
  await sql`ALTER TABLE carts DROP COLUMN discount_codes`.execute(db);
}
