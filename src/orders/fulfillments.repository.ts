import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import type { Database } from '../db/tables.ts';
import type {
  FulfillmentRow,
  FulfillmentStatus,
  FulfillmentTable,
  ReturnRow,
  ReturnTable,
} from './orders.tables.ts';

/** All SQL on an order's fulfilments and returns, and the fulfilment status they give the order. */

type Db = Kysely<Database>;

/** An order's fulfilments, oldest first. */
export function orderFulfillments(db: Db, storeId: string, orderId: string): Promise<FulfillmentRow[]> {
  return db
    .selectFrom('fulfillments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function insertFulfillment(
  trx: Transaction<Database>,
  values: Insertable<FulfillmentTable>,
): Promise<FulfillmentRow> {
  return trx.insertInto('fulfillments').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateFulfillment(
  trx: Transaction<Database>,
  storeId: string,
  fulfillmentId: string,
  values: Updateable<FulfillmentTable>,
): Promise<FulfillmentRow> {
  return trx
    .updateTable('fulfillments')
    .set(values)
    .where('store_id', '=', storeId)
    .where('id', '=', fulfillmentId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Writes the order's fulfilment status (decision `fulfilments`), in the transaction that changed its fulfilments. */
export async function setFulfillmentStatus(
  trx: Transaction<Database>,
  storeId: string,
  orderId: string,
  status: FulfillmentStatus,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('orders')
    .set({ fulfillment_status: status, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', orderId)
    .execute();
}

/** An order's returns, oldest first. */
export function orderReturns(db: Db, storeId: string, orderId: string): Promise<ReturnRow[]> {
  return db
    .selectFrom('returns')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function insertReturn(
  trx: Transaction<Database>,
  values: Insertable<ReturnTable>,
): Promise<ReturnRow> {
  return trx.insertInto('returns').values(values).returningAll().executeTakeFirstOrThrow();
}
