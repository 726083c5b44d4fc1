import { sql, type Kysely } from 'kysely';
import { productCollections } from '../catalog/collections/collections.service.ts';
import type { Database } from '../db/tables.ts';
import type { BuyerKey, PromotionHistory } from '../promotions/offer.ts';

/**
 * What promotions ask of a buyer's past orders and of the catalog (decisions
 * `per-customer-uses-from-orders` and `cart-promotions`), handed to the promotions' offer: orders
 * own the orders table, the catalog its collections.
 */

type Db = Kysely<Database>;

/**
 * A buyer's uses of promotions (decision `per-customer-uses-from-orders`): the orders of the
 * customer (else of the email) that applied each, not expired or cancelled.
 */
async function buyerUses(
  db: Db,
  storeId: string,
  buyer: BuyerKey,
  promotionIds: readonly string[],
): Promise<Map<string, number>> {
  const whose =
    'customerId' in buyer
      ? sql`o.customer_id = ${buyer.customerId}`
      : sql`o.email = ${buyer.email} AND o.promotions <> '[]'::jsonb`;
  const { rows } = await sql<{ id: string; uses: string }>`
    SELECT p.id::text AS id, count(*) AS uses
    FROM orders o, jsonb_to_recordset(o.promotions) AS p(id uuid)
    WHERE o.store_id = ${storeId} AND ${whose} AND o.status IN ('pending', 'paid')
      AND p.id = ANY(${[...promotionIds]}::uuid[])
    GROUP BY p.id`.execute(db);
  return new Map(rows.map((row) => [row.id, Number(row.uses)]));
}

/** Whether the buyer (customer, else email) has an order that was not expired or cancelled. */
async function buyerHasOrder(db: Db, storeId: string, buyer: BuyerKey): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', storeId)
    .where((eb) =>
      'customerId' in buyer ? eb('customer_id', '=', buyer.customerId) : eb('email', '=', buyer.email),
    )
    .where('status', 'in', ['pending', 'paid'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The promotions' view of orders and of the catalog's collections. */
export const promotionHistory: PromotionHistory = {
  uses: buyerUses,
  hasOrder: buyerHasOrder,
  collections: productCollections,
};
