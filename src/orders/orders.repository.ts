import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Transaction } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { Database } from '../db/tables.ts';
import { eventInsert, type NewEvent } from '../events/events.ts';
import type {
  FulfillmentRow,
  OrderLineRow,
  OrderRow,
  OrderTable,
  PaymentRow,
  PaymentTable,
  ReturnRow,
} from './orders.tables.ts';

/**
 * All SQL on orders, their lines and the per-store order counter, but for the lists and counts
 * across a store's orders (order-lists.repository.ts). Payments and refunds have their own
 * repositories beside this one; `lockPaymentAndOrder` (payments.repository.ts) is the one lock order
 * of every money path (decision `refund-path`).
 */

type Db = Kysely<Database>;

export const FIRST_ORDER_NUMBER = 1001;

export function findOrder(
  db: Db,
  storeId: string,
  orderId: string,
  options: { forUpdate?: boolean } = {},
): Promise<OrderRow | undefined> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', orderId)
    .$if(options.forUpdate === true, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** The order a checkout with this Idempotency-Key made (decision `checkout-after-a-crash`). */
export async function findOrderIdByKey(db: Db, storeId: string, key: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', storeId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  return row?.id;
}

/** What an order view shows of a line (orders.views.ts). */
export type OrderLineFields = Pick<
  OrderLineRow,
  | 'position'
  | 'variant_id'
  | 'product_id'
  | 'title'
  | 'variant_label'
  | 'sku'
  | 'quantity'
  | 'unit_price_amount'
  | 'line_total_amount'
  | 'discount_amount'
  | 'tax_amount'
  | 'tax_rate_bps'
  | 'tax_class'
  | 'custom'
>;

/** The lines of the order `o` as a JSON array (a column of a statement on `orders as o`). */
function linesOf(eb: ExpressionBuilder<Database & { o: OrderTable }, 'o'>) {
  return jsonArrayFrom(
    eb
      .selectFrom('order_lines as l')
      .select([
        'l.position',
        'l.variant_id',
        'l.product_id',
        'l.title',
        'l.variant_label',
        'l.sku',
        'l.quantity',
        'l.unit_price_amount',
        'l.line_total_amount',
        'l.discount_amount',
        'l.tax_amount',
        'l.tax_rate_bps',
        'l.tax_class',
        'l.custom',
      ])
      .whereRef('l.store_id', '=', 'o.store_id')
      .whereRef('l.order_id', '=', 'o.id')
      .orderBy('l.position'),
  ).as('order_lines');
}

/**
 * Locks an order (after its payment, decision `one-lock-order`) and reads its lines in the same statement; lines never
 * change once the order exists.
 */
export async function lockOrderWithLines(
  trx: Transaction<Database>,
  storeId: string,
  orderId: string,
): Promise<{ order: OrderRow; lines: OrderLineFields[] }> {
  const { order_lines: lines, ...order } = await trx
    .selectFrom('orders as o')
    .selectAll('o')
    .select((eb) => [linesOf(eb)])
    .where('o.store_id', '=', storeId)
    .where('o.id', '=', orderId)
    .forUpdate('o')
    .executeTakeFirstOrThrow();
  return { order, lines };
}

export interface BuyerOrderRow {
  order: OrderRow;
  lines: OrderLineFields[];
  /** The order's current (latest) payment, as the buyer sees it. */
  payment: Pick<PaymentRow, 'provider' | 'ref' | 'status'> | null;
  /** Its fulfilments, oldest first (read as JSON: times as strings). */
  fulfillments: FulfillmentJson[];
  /** Its returns, oldest first (read as JSON). */
  returns: ReturnJson[];
}

/** A return as a JSON sub-select returns it: its time is a string. */
export type ReturnJson = Pick<ReturnRow, 'id' | 'lines' | 'refund_amount'> & { created_at: string | Date };

/** A fulfilment as a JSON sub-select returns it: its times are strings. */
export type FulfillmentJson = Omit<
  FulfillmentRow,
  'created_at' | 'updated_at' | 'delivered_at' | 'cancelled_at'
> & {
  created_at: string | Date;
  updated_at: string | Date;
  delivered_at: string | Date | null;
  cancelled_at: string | Date | null;
};

/**
 * An order with its lines and its latest payment in one statement (the buyer's polling read): one
 * statement sees one snapshot, so the status and the payment always agree (decision
 * `order-reads-one-snapshot`), and a poll costs one round trip instead of a transaction of three
 * reads.
 */
export async function findBuyerOrder(
  db: Db,
  storeId: string,
  orderId: string,
): Promise<BuyerOrderRow | undefined> {
  const row = await db
    .selectFrom('orders as o')
    .selectAll('o')
    .select((eb) => [
      linesOf(eb),
      jsonObjectFrom(
        eb
          .selectFrom('payments as p')
          .select(['p.provider', 'p.ref', 'p.status'])
          .whereRef('p.store_id', '=', 'o.store_id')
          .whereRef('p.order_id', '=', 'o.id')
          .orderBy('p.created_at', 'desc')
          .limit(1),
      ).as('latest_payment'),
      jsonArrayFrom(
        eb
          .selectFrom('fulfillments as f')
          .selectAll('f')
          .whereRef('f.store_id', '=', 'o.store_id')
          .whereRef('f.order_id', '=', 'o.id')
          .orderBy('f.created_at')
          .orderBy('f.id'),
      ).as('order_fulfillments'),
      jsonArrayFrom(
        eb
          .selectFrom('returns as r')
          .select(['r.id', 'r.lines', 'r.refund_amount', 'r.created_at'])
          .whereRef('r.store_id', '=', 'o.store_id')
          .whereRef('r.order_id', '=', 'o.id')
          .orderBy('r.created_at')
          .orderBy('r.id'),
      ).as('order_returns'),
    ])
    .where('o.store_id', '=', storeId)
    .where('o.id', '=', orderId)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    order_lines: lines,
    latest_payment: payment,
    order_fulfillments: fulfillments,
    order_returns: returns,
    ...order
  } = row;
  return { order, lines, payment, fulfillments, returns };
}

export function orderLines(db: Db, order: Pick<OrderRow, 'store_id' | 'id'>): Promise<OrderLineRow[]> {
  return db
    .selectFrom('order_lines')
    .selectAll()
    .where('store_id', '=', order.store_id)
    .where('order_id', '=', order.id)
    .orderBy('position')
    .execute();
}

/**
 * Writes a new order with the store's next number (decision `order-numbers`), its lines, its payment and its event in one
 * statement. The store's counter row stays locked until commit, so numbers are strictly increasing
 * and a rollback leaves a gap at most; taking it in the transaction's last statement holds that lock,
 * which every checkout of the store waits for, for one round trip and the commit. The event's data
 * gets the order's `number`.
 */
export function insertNumberedOrder(
  trx: Transaction<Database>,
  values: Omit<Insertable<OrderTable>, 'number'>,
  lines: readonly OrderLineRow[],
  payment: Insertable<PaymentTable>,
  event: NewEvent,
): Promise<OrderRow> {
  return trx
    .with('next_number', (db) =>
      db
        .insertInto('order_counters')
        .values({ store_id: values.store_id, last_number: FIRST_ORDER_NUMBER })
        .onConflict((oc) =>
          oc
            .column('store_id')
            .doUpdateSet((eb) => ({ last_number: eb('order_counters.last_number', '+', 1) })),
        )
        .returning('last_number'),
    )
    .with('o', (db) =>
      db
        .insertInto('orders')
        .values({
          ...values,
          number: (eb) => eb.selectFrom('next_number').select('next_number.last_number'),
        })
        .returningAll(),
    )
    .with('l', (db) =>
      db
        .insertInto('order_lines')
        .values([...lines])
        .returning('order_id'),
    )
    .with('p', (db) => db.insertInto('payments').values(payment).returning('id'))
    .with('e', (db) =>
      eventInsert(db, event, { from: 'o', more: sql`jsonb_build_object('number', o.number)` }),
    )
    .selectFrom('o')
    .selectAll()
    .executeTakeFirstOrThrow();
}

/**
 * Marks a pending order paid, which also locks it, reads its lines and records `event` in the same
 * statement, with the order's `number` and `total` added to its data; undefined (and no event) when
 * the order is not pending (the caller locks it to see why).
 */
export async function payPendingOrder(
  trx: Transaction<Database>,
  storeId: string,
  orderId: string,
  now: Date,
  event: NewEvent,
): Promise<{ order: OrderRow; lines: OrderLineFields[] } | undefined> {
  const row = await trx
    .with('o', (db) =>
      db
        .updateTable('orders as o')
        .set({ status: 'paid', paid_at: now, updated_at: now, client_key: null })
        .where('o.store_id', '=', storeId)
        .where('o.id', '=', orderId)
        .where('o.status', '=', 'pending')
        .returningAll('o')
        .returning((eb) => [linesOf(eb)]),
    )
    .with('e', (db) =>
      eventInsert(db, event, {
        from: 'o',
        more: sql`jsonb_build_object('number', o.number, 'total',
          jsonb_build_object('amount', o.total_amount, 'currency', btrim(o.currency)))`,
      }),
    )
    .selectFrom('o')
    .selectAll()
    .executeTakeFirst();
  if (!row) return undefined;
  const { order_lines: lines, ...order } = row;
  return { order, lines };
}

/** Flags a paid order whose stock was short when its payment arrived (decision `catalog-owns-stock`). */
export async function markOversold(
  trx: Transaction<Database>,
  order: Pick<OrderRow, 'store_id' | 'id'>,
): Promise<void> {
  await trx
    .updateTable('orders')
    .set({ oversold: true })
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .execute();
}

export function markOrderPaid(
  trx: Transaction<Database>,
  order: Pick<OrderRow, 'store_id' | 'id'>,
  oversold: boolean,
  now: Date,
): Promise<OrderRow> {
  return trx
    .updateTable('orders')
    .set({ status: 'paid', paid_at: now, updated_at: now, oversold, client_key: null })
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function markOrderExpired(
  trx: Transaction<Database>,
  order: Pick<OrderRow, 'store_id' | 'id'>,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('orders')
    .set({ status: 'expired', expired_at: now, updated_at: now, client_key: null })
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .execute();
}

/** Marks an order cancelled by staff (decision `order-cancellation`), with the reason they gave; returns the row as it is now. */
export function markOrderCancelled(
  trx: Transaction<Database>,
  order: Pick<OrderRow, 'store_id' | 'id'>,
  reason: string | null,
  now: Date,
): Promise<OrderRow> {
  return trx
    .updateTable('orders')
    .set({ status: 'cancelled', cancelled_at: now, cancel_reason: reason, updated_at: now, client_key: null })
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Adds a settled refund to the order's refunded amount, never past its total (the CHECK would refuse it). */
export function addRefunded(
  trx: Transaction<Database>,
  order: Pick<OrderRow, 'store_id' | 'id'>,
  amount: number,
  now: Date,
): Promise<OrderRow> {
  return trx
    .updateTable('orders')
    .set((eb) => ({
      refunded_amount: eb.fn('least', [eb('refunded_amount', '+', amount), eb.ref('total_amount')]),
      updated_at: now,
    }))
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The pending orders of one client (by its key) in a store, and the first of them to expire. */
export interface PendingOrdersOf {
  byClient: number;
  firstExpiry: Date | null;
}

/** What the count of a client's pending orders gives (a timestamp in JSON is its text). */
interface PendingOrdersJson {
  byClient: number;
  firstExpiry: string | null;
}

/**
 * A client's pending orders in a store (decision `pending-orders-per-client`), counted through their partial index, and when the
 * first of them expires.
 */
export async function pendingOrdersOf(db: Db, storeId: string, clientKey: string): Promise<PendingOrdersOf> {
  const { rows } = await sql<{ held: PendingOrdersJson }>`
    SELECT json_build_object('byClient', count(*), 'firstExpiry', min(expires_at)) AS held
    FROM orders
    WHERE store_id = ${storeId} AND status = 'pending' AND client_key = ${clientKey}`.execute(db);
  const held = rows[0]!.held;
  return {
    byClient: held.byClient,
    firstExpiry: held.firstExpiry === null ? null : new Date(held.firstExpiry),
  };
}
