import type { Insertable, Kysely, SelectQueryBuilder, Transaction, Updateable } from 'kysely';
import type { Database } from '../db/tables.ts';
import type {
  DraftOrderLineRow,
  DraftOrderLineTable,
  DraftOrderRow,
  DraftOrderStatus,
  DraftOrderTable,
} from './draft-orders.tables.ts';

/** All SQL on draft orders and their lines (decision `draft-orders`). */

type Db = Kysely<Database>;

/** A draft's line as written: its position is its index. */
export type NewDraftLine = Omit<Insertable<DraftOrderLineTable>, 'store_id' | 'draft_id' | 'position'>;

export function draftsQuery(
  db: Db,
  storeId: string,
  status?: DraftOrderStatus,
): SelectQueryBuilder<Database, 'draft_orders', DraftOrderRow & { line_count: number }> {
  let query = db
    .selectFrom('draft_orders as d')
    .selectAll('d')
    .select((eb) =>
      eb
        .selectFrom('draft_order_lines as l')
        .select((c) => c.fn.countAll<number>().as('n'))
        .whereRef('l.store_id', '=', 'd.store_id')
        .whereRef('l.draft_id', '=', 'd.id')
        .as('line_count'),
    )
    .where('d.store_id', '=', storeId);
  if (status) query = query.where('d.status', '=', status);
  return query as unknown as SelectQueryBuilder<
    Database,
    'draft_orders',
    DraftOrderRow & { line_count: number }
  >;
}

export function findDraft(db: Db, storeId: string, id: string): Promise<DraftOrderRow | undefined> {
  return db
    .selectFrom('draft_orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The draft, locked until the transaction ends (a change, an invoice, a completion). */
export function lockDraft(
  trx: Transaction<Database>,
  storeId: string,
  id: string,
): Promise<DraftOrderRow | undefined> {
  return trx
    .selectFrom('draft_orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function draftLines(db: Db, storeId: string, draftId: string): Promise<DraftOrderLineRow[]> {
  return db
    .selectFrom('draft_order_lines')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('draft_id', '=', draftId)
    .orderBy('position')
    .execute();
}

export function insertDraft(db: Db, values: Insertable<DraftOrderTable>): Promise<DraftOrderRow> {
  return db.insertInto('draft_orders').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateDraft(
  db: Db,
  storeId: string,
  id: string,
  values: Updateable<DraftOrderTable>,
): Promise<DraftOrderRow> {
  return db
    .updateTable('draft_orders')
    .set(values)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Replaces a draft's lines with these, in order. */
export async function replaceDraftLines(
  db: Db,
  storeId: string,
  draftId: string,
  lines: readonly NewDraftLine[],
): Promise<void> {
  await db
    .deleteFrom('draft_order_lines')
    .where('store_id', '=', storeId)
    .where('draft_id', '=', draftId)
    .execute();
  if (lines.length === 0) return;
  await db
    .insertInto('draft_order_lines')
    .values(lines.map((line, position) => ({ ...line, store_id: storeId, draft_id: draftId, position })))
    .execute();
}

export async function deleteDraftRow(db: Db, storeId: string, id: string): Promise<void> {
  await db.deleteFrom('draft_orders').where('store_id', '=', storeId).where('id', '=', id).execute();
}

/** A customer's drafts, oldest first (their data export). */
export function draftsOfCustomer(db: Db, storeId: string, customerId: string): Promise<DraftOrderRow[]> {
  return db
    .selectFrom('draft_orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
