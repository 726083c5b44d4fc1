import { sql, type Kysely, type Transaction } from 'kysely';
import { nextBatch } from '../db/keyset.ts';
import { purgeOlderThan } from '../db/purge.ts';
import type { Database } from '../db/tables.ts';
import type { OrderRow, PaymentRow, PaymentStatus } from './orders.tables.ts';

/**
 * All SQL on the payments of orders and on the dedupe records of provider events. Every write path
 * that needs both a payment and its order locks them in one order, payment first and then order
 * (decision `one-lock-order`), through `lockPaymentAndOrder`, so no two of them can deadlock.
 */

type Db = Kysely<Database>;

export interface Locked {
  payment: PaymentRow;
  order: OrderRow;
}

/** Locks a payment (found by provider and ref, or the latest of an order) and then its order. */
export async function lockPaymentAndOrder(
  trx: Transaction<Database>,
  storeId: string,
  by: { provider: string; ref: string } | { orderId: string },
): Promise<Locked | null> {
  let query = trx.selectFrom('payments').selectAll().where('store_id', '=', storeId);
  query =
    'ref' in by
      ? query.where('provider', '=', by.provider).where('ref', '=', by.ref)
      : query.where('order_id', '=', by.orderId).orderBy('created_at', 'desc').limit(1);
  const payment = await query.forUpdate().executeTakeFirst();
  if (!payment) return null;
  const order = await trx
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', payment.order_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { payment, order };
}

/** A provider event's dedupe record (decision `payment-providers`). */
export interface SeenEvent {
  storeId: string;
  provider: string;
  eventId: string;
  type: string;
}

/**
 * A payment's success, once: records the event as seen (recordProviderEvent) and, only when it is
 * new (`fresh`), marks the payment with this provider reference succeeded, in one statement. That
 * also locks the payment: the first half of the lock order of `lockPaymentAndOrder` (the caller
 * locks the order next). `payment` is undefined when the event was seen already or there is no
 * such payment.
 */
export async function succeedPaymentOnce(
  trx: Transaction<Database>,
  event: SeenEvent,
  by: { provider: string; ref: string },
  now: Date,
): Promise<{ fresh: boolean; payment: PaymentRow | undefined }> {
  const row = await trx
    .with('seen', (db) =>
      db
        .insertInto('provider_events')
        .values({
          store_id: event.storeId,
          provider: event.provider,
          event_id: event.eventId,
          type: event.type,
        })
        .onConflict((oc) => oc.columns(['store_id', 'provider', 'event_id']).doNothing())
        .returning('event_id'),
    )
    .with('paid', (db) =>
      db
        .updateTable('payments')
        .set({ status: 'succeeded', last_error: null, updated_at: now })
        .where('store_id', '=', event.storeId)
        .where('provider', '=', by.provider)
        .where('ref', '=', by.ref)
        .where((eb) => eb.exists(eb.selectFrom('seen').select('event_id')))
        .returningAll(),
    )
    .selectFrom(sql<{ fresh: boolean }>`(SELECT EXISTS (SELECT 1 FROM seen) AS fresh)`.as('s'))
    .leftJoin('paid', (join) => join.onTrue())
    .select('s.fresh')
    .selectAll('paid')
    .executeTakeFirstOrThrow();
  const { fresh, ...payment } = row;
  return { fresh, payment: payment.id === null ? undefined : (payment as PaymentRow) };
}

export function orderPayments(db: Db, storeId: string, orderId: string): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .execute();
}

/** Has another payment of this payment's order succeeded (decision `draft-orders`: a manual one)? */
export async function paidByAnother(
  db: Db,
  payment: Pick<PaymentRow, 'store_id' | 'id' | 'order_id'>,
): Promise<boolean> {
  const row = await db
    .selectFrom('payments')
    .select('id')
    .where('store_id', '=', payment.store_id)
    .where('order_id', '=', payment.order_id)
    .where('id', '!=', payment.id)
    .where('status', '=', 'succeeded')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The manual payment of an order a draft's invoice made, marked paid by staff (decision
 * `draft-orders`); its reference is unique per order, so an order gets one at most.
 */
export function insertPayment(trx: Transaction<Database>, payment: PaymentRow): Promise<PaymentRow> {
  return trx.insertInto('payments').values(payment).returningAll().executeTakeFirstOrThrow();
}

/** The order's current (latest) payment. */
export function latestPayment(db: Db, storeId: string, orderId: string): Promise<PaymentRow | undefined> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function paymentOrderId(db: Db, storeId: string, paymentId: string): Promise<string> {
  const row = await db
    .selectFrom('payments')
    .select('order_id')
    .where('store_id', '=', storeId)
    .where('id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return row.order_id;
}

/**
 * Moves the payment with this provider reference to `status` if it is in one of `from`; false when
 * no such payment is in such a state.
 */
export async function movePayment(
  trx: Transaction<Database>,
  storeId: string,
  by: { provider: string; ref: string },
  from: readonly PaymentStatus[],
  to: { status: PaymentStatus; lastError?: string },
  now: Date,
): Promise<boolean> {
  const updated = await trx
    .updateTable('payments')
    .set({
      status: to.status,
      updated_at: now,
      ...(to.lastError !== undefined ? { last_error: to.lastError } : {}),
    })
    .where('store_id', '=', storeId)
    .where('provider', '=', by.provider)
    .where('ref', '=', by.ref)
    .where('status', 'in', from)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** An expired order's payments that can no longer succeed here are canceled. */
export async function cancelOpenPayments(
  trx: Transaction<Database>,
  order: Pick<OrderRow, 'store_id' | 'id'>,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('payments')
    .set({ status: 'canceled', updated_at: now })
    .where('store_id', '=', order.store_id)
    .where('order_id', '=', order.id)
    .where('status', 'in', ['pending', 'failed'])
    .execute();
}

export type PaymentSecretRow = Pick<PaymentRow, 'store_id' | 'id' | 'provider' | 'ref' | 'client_secret'>;

/** A batch of payments' client secrets in key order, after `after` (for `secrets rotate`). */
export function paymentSecretsAfter(
  db: Db,
  after: Pick<PaymentRow, 'store_id' | 'id'> | undefined,
  limit: number,
): Promise<PaymentSecretRow[]> {
  return nextBatch(
    db.selectFrom('payments').select(['store_id', 'id', 'provider', 'ref', 'client_secret']),
    after,
    limit,
  );
}

export async function setClientSecret(
  db: Db,
  payment: Pick<PaymentRow, 'store_id' | 'id'>,
  sealed: string,
): Promise<void> {
  await db
    .updateTable('payments')
    .set({ client_secret: sealed })
    .where('store_id', '=', payment.store_id)
    .where('id', '=', payment.id)
    .execute();
}

/** Records a provider event as seen; false when it was seen already (its effect is then skipped). */
export async function recordProviderEvent(
  trx: Transaction<Database>,
  event: { storeId: string; provider: string; eventId: string; type: string },
): Promise<boolean> {
  const fresh = await trx
    .insertInto('provider_events')
    .values({ store_id: event.storeId, provider: event.provider, event_id: event.eventId, type: event.type })
    .onConflict((oc) => oc.columns(['store_id', 'provider', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return fresh !== undefined;
}

export function deleteProviderEventsBefore(db: Db, cutoff: Date): Promise<number> {
  return purgeOlderThan(db, {
    table: 'provider_events',
    keyColumns: ['provider', 'event_id'],
    timeColumn: 'received_at',
    cutoff,
  });
}
