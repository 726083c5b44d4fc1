import type { Kysely } from 'kysely';
import { purgeOlderThan } from '../db/purge.ts';
import type { Database } from '../db/tables.ts';
import type { CartItem, CartRow } from './carts.tables.ts';

/** All SQL on carts and their lines. */

export async function insertCart(db: Kysely<Database>, storeId: string, now: Date): Promise<CartRow> {
  const cart = await db
    .insertInto('carts')
    .values({ store_id: storeId, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...cart, items: [] };
}

/** The cart with its lines in the order they were added; `forUpdate` locks the cart row. */
export async function findCartRow(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  forUpdate = false,
): Promise<CartRow | undefined> {
  const query = db.selectFrom('carts').selectAll().where('store_id', '=', storeId).where('id', '=', cartId);
  const row = await (forUpdate ? query.forUpdate() : query).executeTakeFirst();
  if (!row) return undefined;
  const lines = await db
    .selectFrom('cart_lines')
    .select(['variant_id', 'quantity'])
    .where('store_id', '=', storeId)
    .where('cart_id', '=', cartId)
    .orderBy('position')
    .execute();
  return { ...row, items: lines.map((line) => ({ variantId: line.variant_id, quantity: line.quantity })) };
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

/**
 * Moves an open cart to its next version, only while it is still at `version` when one is given
 * (If-Match); undefined when it is completed or at another version.
 */
export async function bumpVersion(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  now: Date,
  version: number | null,
) {
  return db
    .updateTable('carts')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('id', '=', cartId)
    .where('completed_at', 'is', null)
    .$if(version !== null, (qb) => qb.where('version', '=', version!))
    .returningAll()
    .executeTakeFirst();
}

export async function markCompleted(
  db: Kysely<Database>,
  storeId: string,
  cartId: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('carts')
    .set({ completed_at: now, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', cartId)
    .execute();
}

export function deleteCartsUntouchedSince(db: Kysely<Database>, cutoff: Date): Promise<number> {
  return purgeOlderThan(db, { table: 'carts', keyColumns: ['id'], timeColumn: 'updated_at', cutoff });
}
