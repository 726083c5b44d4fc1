import { sql, type Kysely } from 'kysely';

/**
 * Draft orders (decision `draft-orders`): an order staff put together for a customer, priced live by
 * checkout's quote, then invoiced (a pending order holding stock, paid through the pay link) or
 * completed with a payment taken outside (a paid order at once).
 *
 * - `draft_orders`: the draft, always of a customer (the one given, else the customer of the email,
 *   made as a guest): erasing the customer deletes their drafts with them (ON DELETE CASCADE).
 * - `draft_order_lines`: catalog lines (`variant_id`, a negotiated `unit_price` optional) and custom
 *   lines (`title`, `unit_price`, `tax_class`, `requires_shipping`; no variant).
 * - `orders.source` (`checkout` for every order before) and `orders.draft_order_id`: a draft makes
 *   at most one order (a unique index), so completing or invoicing twice never makes two; an order of
 *   a draft has no cart.
 * - `order_lines.custom`: a custom line of a draft (its variant and product ids are the draft line's
 *   own id; no stock is held or sold for it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE draft_orders (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'invoiced', 'completed')),
      customer_id uuid NOT NULL,
      email text NOT NULL,
      shipping_address jsonb,
      billing_address jsonb,
      shipping_method_id uuid,
      custom_shipping jsonb,
      discount jsonb,
      note text,
      reserve_until timestamptz(3),
      order_id uuid,
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, customer_id) REFERENCES customers (store_id, id) ON DELETE CASCADE,
      CHECK (shipping_method_id IS NULL OR custom_shipping IS NULL)
    )`.execute(db);
  await sql`CREATE INDEX draft_orders_created_idx ON draft_orders (store_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX draft_orders_customer_idx ON draft_orders (store_id, customer_id)`.execute(db);
  await sql`
    CREATE TABLE draft_order_lines (
      store_id uuid NOT NULL,
      draft_id uuid NOT NULL,
      position integer NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      variant_id uuid,
      title text,
      quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 999),
      unit_price bigint CHECK (unit_price >= 0),
      tax_class text,
      requires_shipping boolean,
      PRIMARY KEY (store_id, draft_id, position),
      FOREIGN KEY (store_id, draft_id) REFERENCES draft_orders (store_id, id) ON DELETE CASCADE,
      CHECK ((variant_id IS NULL) = (title IS NOT NULL)),
      CHECK (variant_id IS NOT NULL OR unit_price IS NOT NULL)
    )`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN source text NOT NULL DEFAULT 'checkout'
    CHECK (source IN ('checkout', 'draft'))`.execute(db);
  await sql`ALTER TABLE orders ADD COLUMN draft_order_id uuid`.execute(db);
  await sql`ALTER TABLE orders ALTER COLUMN cart_id DROP NOT NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX orders_draft_idx ON orders (store_id, draft_order_id)
    WHERE draft_order_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE order_lines ADD COLUMN custom boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE order_lines DROP COLUMN IF EXISTS custom`.execute(db);
  await sql`DROP INDEX IF EXISTS orders_draft_idx`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN IF EXISTS draft_order_id`.execute(db);
  await sql`ALTER TABLE orders DROP COLUMN IF EXISTS source`.execute(db);
  await sql`DROP TABLE IF EXISTS draft_order_lines`.execute(db);
  await sql`DROP TABLE IF EXISTS draft_orders`.execute(db);
}
