import { sql, type ExpressionBuilder, type Kysely, type Selectable, type Updateable } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { purgeOlderThan } from '../db/purge.ts';
import type { Database } from '../db/tables.ts';
import type { CartItem, CartRow, CartTable } from './carts.tables.ts';

/** All SQL on carts and their lines. */

/** A new cart with its lines, in one statement (so without a transaction of its own). */
export async function insertCartWithLines(
  db: Kysely<Database>,
  storeId: string,
  items: readonly CartItem[],
  now: Date,
  country: string | null = null,
): Promise<CartRow> {
  const { rows } = await sql<Selectable<CartTable>>`
    WITH cart AS (
      INSERT INTO carts (store_id, country, created_at, updated_at) VALUES (${storeId}, ${country}, ${now}, ${now}) RETURNING *
    ), lines AS (
      INSERT INTO cart_lines (store_id, cart_id, variant_id, position, quantity)
      SELECT cart.store_id, cart.id, line.variant_id, (line.ordinal - 1)::int, line.quantity
      FROM cart, unnest(${items.map((i) => i.variantId)}::uuid[], ${items.map((i) => i.quantity)}::int[])
        WITH ORDINALITY AS line(variant_id, quantity, ordinal)
    )
    SELECT * FROM cart`.execute(db);
  const cart = rows[0];
  if (!cart) throw new Error('insert into carts returned no row');
  return { ...cart, items: [...items] };
}

/** A cart's lines (`c`) in the order they were added, as its row's `items`. */
function linesOf(eb: ExpressionBuilder<Database & { c: CartTable }, 'c'>) {
  return jsonArrayFrom(
    eb
      .selectFrom('cart_lines as l')
      .select(['l.variant_id as variantId', 'l.quantity'])
      .whereRef('l.store_id', '=', 'c.store_id')
      .whereRef('l.cart_id', '=', 'c.id')
      .orderBy('l.position'),
  ).as('items');
}

/** The cart (`c`) with its lines in the order they were added, as its row's `items`. */
function cartWithLines(db: Kysely<Database>, storeId: string, cartId: string) {
  return db
    .selectFrom('carts as c')
    .selectAll('c')
    .select((eb) => linesOf(eb))
    .where('c.store_id', '=', storeId)
    .where('c.id', '=', cartId);
}

/** The cart with its lines (one statement); `forUpdate` locks the cart row. */
export async function findCartRow(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  forUpdate = false,
): Promise<CartRow | undefined> {
  const query = cartWithLines(db, storeId, cartId);
  return (forUpdate ? query.forUpdate('c') : query).executeTakeFirst();
}

/**
 * Completes the cart (checkout, in its transaction) if it is open and still at `version`, which
 * also locks it until the transaction ends; false otherwise.
 */
export async function completeIfUnchanged(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  version: number,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('carts')
    .set({ completed_at: now, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', cartId)
    .where('completed_at', 'is', null)
    .where('version', '=', version)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function writeLines(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  items: readonly CartItem[],
): Promise<void> {
  await db.deleteFrom('cart_lines').where('store_id', '=', storeId).where('cart_id', '=', cartId).execute();
  if (items.length === 0) return;
  await db
    .insertInto('cart_lines')
    .values(
      items.map((item, position) => ({
        store_id: storeId,
        cart_id: cartId,
        variant_id: item.variantId,
        position,
        quantity: item.quantity,
      })),
    )
    .execute();
}

/** What a cart write may change besides its lines. */
export type CartChanges = Pick<
  Updateable<CartTable>,
  'shipping_address' | 'shipping_method_id' | 'discount_codes' | 'gift_card_ids' | 'country'
>;

/**
 * Changes an open cart and moves it to its next version, only while it is still at `version` when
 * one is given (If-Match); undefined when it is completed or at another version.
 */
export function updateCart(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  changes: CartChanges,
  now: Date,
  version: number | null,
) {
  return db
    .updateTable('carts')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('id', '=', cartId)
    .where('completed_at', 'is', null)
    .$if(version !== null, (qb) => qb.where('version', '=', version!))
    .returningAll()
    .executeTakeFirst();
}

/**
 * updateCart of an open cart at any version, returning it with its lines (one statement: a write
 * that did not read the cart first); undefined when there is no open cart with that id.
 */
export async function updateOpenCart(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  changes: CartChanges,
  now: Date,
): Promise<CartRow | undefined> {
  return db
    .updateTable('carts as c')
    .set((eb) => ({ ...changes, version: eb('c.version', '+', 1), updated_at: now }))
    .where('c.store_id', '=', storeId)
    .where('c.id', '=', cartId)
    .where('c.completed_at', 'is', null)
    .returningAll('c')
    .returning((eb) => linesOf(eb))
    .executeTakeFirst();
}

/** Drops the cart's shipping method at this version (it no longer fits the cart), without a new version. */
export async function dropShippingMethod(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  version: number,
): Promise<void> {
  await db
    .updateTable('carts')
    .set({ shipping_method_id: null })
    .where('store_id', '=', storeId)
    .where('id', '=', cartId)
    .where('version', '=', version)
    .execute();
}

export function deleteCartsUntouchedSince(db: Kysely<Database>, cutoff: Date): Promise<number> {
  return purgeOlderThan(db, { table: 'carts', keyColumns: ['id'], timeColumn: 'updated_at', cutoff });
}

/** Clears the shipping address of some carts (an erasure of their buyer). */
export async function clearShippingAddresses(
  db: Kysely<Database>,
  storeId: string,
  cartIds: readonly string[],
): Promise<void> {
  if (cartIds.length === 0) return;
  await db
    .updateTable('carts')
    .set({ shipping_address: null })
    .where('store_id', '=', storeId)
    .where('id', 'in', [...cartIds])
    .where('shipping_address', 'is not', null)
    .execute();
}
