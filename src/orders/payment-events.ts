import type { Kysely, Transaction } from 'kysely';
import type { Log } from '../lib/log.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { Clock } from '../http/context.ts';
import { AppError, notFound } from '../http/errors.ts';
import { MAIL_LOOP } from '../mail/mail-worker.loop.ts';
import {
  ProviderError,
  providerUnavailable,
  type PaymentProvider,
  type ProviderEvent,
  type RefundInput,
} from '../payments/provider.ts';
import type { WorkerSignals } from '../workers/runner.ts';
import { queueOrderConfirmation, queueRefundNotice } from './order-mail.ts';
import type { OrderLineRow, OrderRow, RefundRow } from './orders.tables.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PaymentDeps {
  db: Kysely<Database>;
  clock: Clock;
  provider: PaymentProvider;
  log: Log;
  signals: WorkerSignals;
}

export type ApplyResult = 'applied' | 'duplicate' | 'ignored';

/** Work to do once the transaction has committed (provider calls never run inside one). */
type AfterCommit = (() => Promise<void>)[];

const byVariant = (a: OrderLineRow, b: OrderLineRow): number =>
  a.variant_id < b.variant_id ? -1 : a.variant_id > b.variant_id ? 1 : 0;

async function storeName(trx: Transaction<Database>, storeId: string): Promise<string> {
  return (await trx.selectFrom('stores').select('name').where('id', '=', storeId).executeTakeFirstOrThrow())
    .name;
}

async function orderLines(trx: Transaction<Database>, order: OrderRow): Promise<OrderLineRow[]> {
  return trx
    .selectFrom('order_lines')
    .selectAll()
    .where('store_id', '=', order.store_id)
    .where('order_id', '=', order.id)
    .orderBy('position')
    .execute();
}

async function markPaid(
  trx: Transaction<Database>,
  order: OrderRow,
  lines: OrderLineRow[],
  now: Date,
): Promise<OrderRow> {
  const paid = await trx
    .updateTable('orders')
    .set({ status: 'paid', paid_at: now, updated_at: now })
    .where('store_id', '=', order.store_id)
    .where('id', '=', order.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordEvent(trx, {
    storeId: order.store_id,
    type: 'order.paid',
    data: {
      orderId: order.id,
      number: order.number,
      total: { amount: order.total_amount, currency: order.currency.trim() },
    },
  });
  await queueOrderConfirmation(trx, await storeName(trx, order.store_id), paid, lines);
  return paid;
}

/**
 * A payment succeeded. A pending order becomes paid and its reservation becomes a sale (on_hand and
 * reserved both drop, so available stock does not change). An order that had expired is revived if
 * its goods are still in stock, otherwise the payment is refunded in full: money is never kept
 * without goods.
 */
async function paymentSucceeded(
  trx: Transaction<Database>,
  deps: PaymentDeps,
  storeId: string,
  ref: string,
  after: AfterCommit,
): Promise<ApplyResult> {
  const now = deps.clock.now();
  const payment = await trx
    .selectFrom('payments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('provider', '=', deps.provider.name)
    .where('ref', '=', ref)
    .forUpdate()
    .executeTakeFirst();
  if (!payment) return 'ignored';
  const order = await trx
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', payment.order_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('payments')
    .set({ status: 'succeeded', last_error: null, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', payment.id)
    .execute();
  if (order.status === 'paid') return 'applied';
  const lines = (await orderLines(trx, order)).sort(byVariant);

  if (order.status === 'pending') {
    for (const line of lines) {
      await trx
        .updateTable('variants')
        .set((eb) => ({
          on_hand: eb('on_hand', '-', line.quantity),
          reserved: eb('reserved', '-', line.quantity),
          updated_at: now,
        }))
        .where('store_id', '=', storeId)
        .where('id', '=', line.variant_id)
        .execute();
    }
    await markPaid(trx, order, lines, now);
    return 'applied';
  }

  // Expired: take the goods again if every line is still available, else refund everything.
  const stock = await trx
    .selectFrom('variants')
    .select(['id', 'product_id', 'on_hand', 'reserved'])
    .where('store_id', '=', storeId)
    .where(
      'id',
      'in',
      lines.map((l) => l.variant_id),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
  const available = new Map(stock.map((v) => [v.id, v.on_hand - v.reserved]));
  if (lines.every((line) => (available.get(line.variant_id) ?? 0) >= line.quantity)) {
    for (const line of lines) {
      const row = await trx
        .updateTable('variants')
        .set((eb) => ({ on_hand: eb('on_hand', '-', line.quantity), updated_at: now }))
        .where('store_id', '=', storeId)
        .where('id', '=', line.variant_id)
        .returning(['on_hand', 'reserved', 'product_id'])
        .executeTakeFirstOrThrow();
      await recordEvent(trx, {
        storeId,
        type: 'inventory.updated',
        data: {
          variantId: line.variant_id,
          productId: row.product_id,
          available: Math.max(0, row.on_hand - row.reserved),
        },
      });
    }
    await markPaid(trx, order, lines, now);
    deps.log.info({ orderId: order.id }, 'late payment for an expired order: stock taken again, order paid');
    return 'applied';
  }
  const refund = await trx
    .insertInto('refunds')
    .values({
      store_id: storeId,
      order_id: order.id,
      payment_id: payment.id,
      amount: order.total_amount,
      status: 'pending',
      provider_ref: null,
      reason: 'expired_out_of_stock',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  deps.log.warn(
    { orderId: order.id },
    'late payment for an expired order whose stock is gone: refunding in full',
  );
  after.push(() => sendRefund(deps, order, payment.ref, refund));
  return 'applied';
}

async function paymentFailed(
  trx: Transaction<Database>,
  deps: PaymentDeps,
  storeId: string,
  ref: string,
  reason: string,
): Promise<ApplyResult> {
  const updated = await trx
    .updateTable('payments')
    .set({ status: 'failed', last_error: reason.slice(0, 500), updated_at: deps.clock.now() })
    .where('store_id', '=', storeId)
    .where('provider', '=', deps.provider.name)
    .where('ref', '=', ref)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return updated ? 'applied' : 'ignored';
}

async function refundSettled(
  trx: Transaction<Database>,
  deps: PaymentDeps,
  storeId: string,
  event: Extract<ProviderEvent, { kind: 'refund.succeeded' | 'refund.failed' }>,
): Promise<ApplyResult> {
  const now = deps.clock.now();
  let query = trx.selectFrom('refunds').selectAll().where('store_id', '=', storeId);
  const refundId = event.metadata.refundId;
  query =
    refundId && UUID.test(refundId)
      ? query.where('id', '=', refundId)
      : query.where('provider_ref', '=', event.refundRef);
  const refund = await query.forUpdate().executeTakeFirst();
  if (!refund || refund.status !== 'pending') return 'ignored';
  if (event.kind === 'refund.failed') {
    await trx
      .updateTable('refunds')
      .set({ status: 'failed', settled_at: now, provider_ref: event.refundRef })
      .where('store_id', '=', storeId)
      .where('id', '=', refund.id)
      .execute();
    return 'applied';
  }
  await trx
    .updateTable('refunds')
    .set({ status: 'succeeded', settled_at: now, provider_ref: event.refundRef })
    .where('store_id', '=', storeId)
    .where('id', '=', refund.id)
    .execute();
  const order = await trx
    .updateTable('orders')
    .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', refund.amount), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('id', '=', refund.order_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const currency = order.currency.trim();
  await recordEvent(trx, {
    storeId,
    type: 'order.refunded',
    data: {
      orderId: order.id,
      number: order.number,
      refundId: refund.id,
      amount: { amount: refund.amount, currency },
      refunded: { amount: order.refunded_amount, currency },
    },
  });
  await queueRefundNotice(trx, await storeName(trx, storeId), order, refund.amount);
  return 'applied';
}

/**
 * Applies one verified provider event. The dedupe row (provider event id) commits in the same
 * transaction as the effect, so an event delivered twice has one effect, and an effect is never
 * recorded without its dedupe row or the other way round.
 */
export async function applyProviderEvent(deps: PaymentDeps, event: ProviderEvent): Promise<ApplyResult> {
  if (event.kind === 'ignored') return 'ignored';
  const storeId = event.metadata.storeId;
  if (!storeId || !UUID.test(storeId)) {
    deps.log.warn({ event: event.id, kind: event.kind }, 'provider event without a store: ignored');
    return 'ignored';
  }
  const after: AfterCommit = [];
  const result = await deps.db.transaction().execute(async (trx) => {
    const store = await trx.selectFrom('stores').select('id').where('id', '=', storeId).executeTakeFirst();
    if (!store) return 'ignored' as const;
    const fresh = await trx
      .insertInto('provider_events')
      .values({ store_id: storeId, provider: deps.provider.name, event_id: event.id, type: event.kind })
      .onConflict((oc) => oc.columns(['store_id', 'provider', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!fresh) return 'duplicate' as const;
    switch (event.kind) {
      case 'payment.succeeded':
        return paymentSucceeded(trx, deps, storeId, event.ref, after);
      case 'payment.failed':
        return paymentFailed(trx, deps, storeId, event.ref, event.reason);
      case 'refund.succeeded':
      case 'refund.failed':
        return refundSettled(trx, deps, storeId, event);
    }
  });
  if (result === 'applied') deps.signals.wake(MAIL_LOOP);
  for (const task of after) await task();
  return result;
}

/** The provider request for one refund; its idempotency key makes every retry the same refund. */
export function refundRequest(
  refund: { store_id: string; order_id: string; id: string; amount: number },
  paymentRef: string,
  currency: string,
): RefundInput {
  return {
    ref: paymentRef,
    amount: refund.amount,
    currency: currency.trim(),
    metadata: { storeId: refund.store_id, orderId: refund.order_id, refundId: refund.id },
    idempotencyKey: `refund:${refund.id}`,
  };
}

/** Asks the provider to refund; a provider refusal marks the refund failed. */
async function sendRefund(deps: PaymentDeps, order: OrderRow, ref: string, refund: RefundRow): Promise<void> {
  try {
    const { refundRef } = await deps.provider.refund(refundRequest(refund, ref, order.currency));
    await deps.db
      .updateTable('refunds')
      .set({ provider_ref: refundRef })
      .where('store_id', '=', order.store_id)
      .where('id', '=', refund.id)
      .where('provider_ref', 'is', null)
      .execute();
  } catch (error) {
    deps.log.error(
      { err: error instanceof Error ? error.message : error, refundId: refund.id },
      'refund request failed at the provider',
    );
    await deps.db
      .updateTable('refunds')
      .set({ status: 'failed', settled_at: deps.clock.now() })
      .where('store_id', '=', order.store_id)
      .where('id', '=', refund.id)
      .where('status', '=', 'pending')
      .execute();
    throw error;
  }
}

/**
 * Starts a refund (admin): at most what was paid and not yet refunded or being refunded. It settles
 * when the provider's webhook confirms it (order.refunded, refund notice mail).
 */
export async function requestRefund(
  deps: PaymentDeps,
  storeId: string,
  orderId: string,
  amount: number,
): Promise<{ refund: RefundRow; order: OrderRow }> {
  const { refund, order, ref } = await deps.db.transaction().execute(async (trx) => {
    const order = await trx
      .selectFrom('orders')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('id', '=', orderId)
      .forUpdate()
      .executeTakeFirst();
    if (!order) throw notFound('No order with that id in this store.');
    if (order.status !== 'paid')
      throw new AppError(
        'order_not_paid',
        409,
        `Only paid orders can be refunded; this order is ${order.status}.`,
      );
    const payment = await trx
      .selectFrom('payments')
      .select(['id', 'ref'])
      .where('store_id', '=', storeId)
      .where('order_id', '=', orderId)
      .where('status', '=', 'succeeded')
      .executeTakeFirstOrThrow();
    const pending = await trx
      .selectFrom('refunds')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sum'))
      .where('store_id', '=', storeId)
      .where('order_id', '=', orderId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    const refundable = order.total_amount - order.refunded_amount - Number(pending.sum);
    if (amount > refundable) {
      throw new AppError(
        'refund_too_large',
        409,
        `At most ${refundable} can be refunded on this order now.`,
        {
          errors: [{ pointer: '/amount', detail: `must be at most ${refundable}` }],
        },
      );
    }
    const refund = await trx
      .insertInto('refunds')
      .values({
        store_id: storeId,
        order_id: orderId,
        payment_id: payment.id,
        amount,
        status: 'pending',
        provider_ref: null,
        reason: 'merchant',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { refund, order, ref: payment.ref };
  });
  try {
    await sendRefund(deps, order, ref, refund);
  } catch (error) {
    if (error instanceof ProviderError) throw providerUnavailable();
    throw error;
  }
  const current = await deps.db
    .selectFrom('refunds')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', refund.id)
    .executeTakeFirstOrThrow();
  return { refund: current, order };
}

/**
 * Expires unpaid orders past their time (D5). The provider is asked first: an intent that already
 * succeeded is the payment (its webhook may just be late). Otherwise the reservation is released in
 * the same transaction that marks the order expired, and the intent is cancelled.
 */
export async function expireOrders(deps: PaymentDeps, batch = 50): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db
    .selectFrom('orders as o')
    .innerJoin('payments as p', (join) =>
      join.onRef('p.store_id', '=', 'o.store_id').onRef('p.order_id', '=', 'o.id'),
    )
    .select(['o.store_id', 'o.id', 'p.ref', 'p.provider'])
    .where('o.status', '=', 'pending')
    .where('o.expires_at', '<', now)
    .orderBy('o.expires_at')
    .limit(batch)
    .execute();
  let expired = 0;
  for (const candidate of due) {
    if (candidate.provider !== deps.provider.name) continue;
    let status: string;
    try {
      status = (await deps.provider.retrieveIntent(candidate.ref)).status;
    } catch (error) {
      deps.log.warn(
        { err: error instanceof Error ? error.message : error, orderId: candidate.id },
        'cannot ask the provider about an expiring order; will retry',
      );
      continue;
    }
    if (status === 'succeeded') {
      await applyProviderEvent(deps, {
        id: `reconcile:${candidate.ref}`,
        kind: 'payment.succeeded',
        ref: candidate.ref,
        amount: 0,
        metadata: { storeId: candidate.store_id, orderId: candidate.id },
      });
      continue;
    }
    if (status === 'processing') continue; // the outcome is on its way
    const done = await deps.db.transaction().execute(async (trx) => {
      const order = await trx
        .selectFrom('orders')
        .selectAll()
        .where('store_id', '=', candidate.store_id)
        .where('id', '=', candidate.id)
        .where('status', '=', 'pending')
        .forUpdate()
        .executeTakeFirst();
      if (!order) return false;
      const lines = (await orderLines(trx, order)).sort(byVariant);
      for (const line of lines) {
        const row = await trx
          .updateTable('variants')
          .set((eb) => ({
            reserved: eb.fn('greatest', [eb.lit(0), eb('reserved', '-', line.quantity)]),
            updated_at: now,
          }))
          .where('store_id', '=', order.store_id)
          .where('id', '=', line.variant_id)
          .returning(['on_hand', 'reserved', 'product_id'])
          .executeTakeFirst();
        if (row) {
          await recordEvent(trx, {
            storeId: order.store_id,
            type: 'inventory.updated',
            data: {
              variantId: line.variant_id,
              productId: row.product_id,
              available: Math.max(0, row.on_hand - row.reserved),
            },
          });
        }
      }
      await trx
        .updateTable('orders')
        .set({ status: 'expired', expired_at: now, updated_at: now })
        .where('store_id', '=', order.store_id)
        .where('id', '=', order.id)
        .execute();
      await trx
        .updateTable('payments')
        .set({ status: 'canceled', updated_at: now })
        .where('store_id', '=', order.store_id)
        .where('order_id', '=', order.id)
        .where('status', 'in', ['pending', 'failed'])
        .execute();
      return true;
    });
    if (!done) continue;
    expired++;
    await deps.provider.cancelIntent(candidate.ref).catch((error: unknown) => {
      deps.log.warn(
        { err: error instanceof Error ? error.message : error, ref: candidate.ref },
        'could not cancel the intent of an expired order',
      );
    });
  }
  return expired;
}
