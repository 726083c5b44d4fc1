import type { Kysely, Transaction } from 'kysely';
import { purgeOlderThan } from '../db/purge.ts';
import { sellReserved, takeStock, type Shortfall } from '../catalog/inventory.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import { formatMoney } from '../lib/money.ts';
import type { ProviderEvent } from '../payments/provider.ts';
import { notifyOwners } from '../staff/owner-notices.ts';
import { queueOrderConfirmation, queueRefundNotice } from './order-mail.ts';
import { lockPaymentAndOrder, orderLines, stockLinesOf, storeName } from './orders.repository.ts';
import type { OrderLineRow, OrderRow } from './orders.tables.ts';
import type { PaymentDeps } from './payment-deps.ts';
import { openAutomaticRefund, refundFailedNotice, sendRefund, type OpenedRefund } from './refunds.service.ts';
import { MAIL_LOOP } from '../mail/outbox.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type { PaymentDeps } from './payment-deps.ts';

export type ApplyResult = 'applied' | 'duplicate' | 'ignored';

/** Work to do once the transaction has committed (provider calls never run inside one). */
type AfterCommit = OpenedRefund[];

async function markPaid(
  trx: Transaction<Database>,
  order: OrderRow,
  lines: OrderLineRow[],
  oversold: Shortfall[],
  now: Date,
): Promise<void> {
  const paid = await trx
    .updateTable('orders')
    .set({ status: 'paid', paid_at: now, updated_at: now, oversold: oversold.length > 0 })
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
  if (oversold.length > 0) {
    const titles = new Map(lines.map((line) => [line.variant_id, `${line.title} (${line.variant_label})`]));
    await notifyOwners({ db: trx }, order.store_id, {
      kind: 'order_oversold',
      subject: `Order #${order.number} was paid but its stock was short`,
      text: [
        `Order #${order.number} (${formatMoney({ amount: order.total_amount, currency: order.currency.trim() })}) was paid, but these items were short when the payment arrived:`,
        '',
        ...oversold.map(
          (line) =>
            `  ${titles.get(line.variantId) ?? line.variantId}: ${line.requested} ordered, ${line.available} on hand`,
        ),
        '',
        'The order is paid and marked "oversold" in the admin. Restock and fulfil it, or refund it there.',
      ].join('\n'),
    });
  }
}

/**
 * A payment succeeded. A pending order becomes paid and its reservation becomes a sale; this never
 * fails for lack of stock (D22): a short line is sold down to zero and the order is flagged
 * `oversold`, with an admin notice. An expired order is revived when its goods are still in stock;
 * otherwise the captured money is refunded in full, automatically (D5, D24).
 */
async function paymentSucceeded(
  trx: Transaction<Database>,
  deps: PaymentDeps,
  storeId: string,
  ref: string,
  after: AfterCommit,
): Promise<ApplyResult> {
  const now = deps.clock.now();
  const locked = await lockPaymentAndOrder(trx, storeId, { provider: deps.provider.name, ref });
  if (!locked) return 'ignored';
  const { payment, order } = locked;
  await trx
    .updateTable('payments')
    .set({ status: 'succeeded', last_error: null, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', payment.id)
    .execute();
  if (order.status === 'paid') return 'applied';
  const lines = await orderLines(trx, order);

  if (order.status === 'pending') {
    const oversold = await sellReserved(trx, storeId, stockLinesOf(lines), now);
    await markPaid(trx, order, lines, oversold, now);
    if (oversold.length > 0) deps.log.warn({ orderId: order.id, oversold }, 'order paid with short stock');
    return 'applied';
  }

  // Expired: take the goods again if every line is still available, else refund everything.
  if (await takeStock(trx, storeId, stockLinesOf(lines), now)) {
    await markPaid(trx, order, lines, [], now);
    deps.log.info({ orderId: order.id }, 'late payment for an expired order: stock taken again, order paid');
    return 'applied';
  }
  const opened = await openAutomaticRefund(trx, { ...payment, status: 'succeeded' }, order, now);
  if (opened) {
    deps.log.warn(
      { orderId: order.id },
      'late payment for an expired order whose stock is gone: refunding in full',
    );
    after.push(opened);
  }
  return 'applied';
}

/** The provider is still working on the payment (a bank transfer, a delayed card): mirror it. */
async function paymentProcessing(
  trx: Transaction<Database>,
  deps: PaymentDeps,
  storeId: string,
  ref: string,
): Promise<ApplyResult> {
  const updated = await trx
    .updateTable('payments')
    .set({ status: 'processing', updated_at: deps.clock.now() })
    .where('store_id', '=', storeId)
    .where('provider', '=', deps.provider.name)
    .where('ref', '=', ref)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return updated ? 'applied' : 'ignored';
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
    .where('status', 'in', ['pending', 'processing'])
    .returning('id')
    .executeTakeFirst();
  return updated ? 'applied' : 'ignored';
}

/**
 * A refund settled at the provider. `refund.succeeded` settles the refund whatever its local state
 * (D24: a refund marked failed after a timeout may still have been made); `refund.failed` fails only
 * a pending one. Locks payment, order, then refund (the order every money path uses).
 */
async function refundSettled(
  trx: Transaction<Database>,
  deps: PaymentDeps,
  storeId: string,
  event: Extract<ProviderEvent, { kind: 'refund.succeeded' | 'refund.failed' }>,
): Promise<ApplyResult> {
  const now = deps.clock.now();
  const refundId = event.metadata.refundId;
  let query = trx.selectFrom('refunds').select(['id', 'payment_id']).where('store_id', '=', storeId);
  query =
    refundId && UUID.test(refundId)
      ? query.where('id', '=', refundId)
      : query.where('provider_ref', '=', event.refundRef);
  const found = await query.executeTakeFirst();
  if (!found) return 'ignored';
  const payment = await trx
    .selectFrom('payments')
    .select('order_id')
    .where('store_id', '=', storeId)
    .where('id', '=', found.payment_id)
    .executeTakeFirstOrThrow();
  const locked = await lockPaymentAndOrder(trx, storeId, { orderId: payment.order_id });
  const refund = await trx
    .selectFrom('refunds')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', found.id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (!locked || refund.status === 'succeeded') return 'ignored';

  if (event.kind === 'refund.failed') {
    if (refund.status !== 'pending') return 'ignored';
    await trx
      .updateTable('refunds')
      .set({ status: 'failed', settled_at: now, provider_ref: event.refundRef, next_check_at: null })
      .where('store_id', '=', storeId)
      .where('id', '=', refund.id)
      .execute();
    if (refund.reason === 'expired_out_of_stock') await refundFailedNotice(trx, locked, refund.amount);
    return 'applied';
  }
  await trx
    .updateTable('refunds')
    .set({
      status: 'succeeded',
      settled_at: now,
      provider_ref: event.refundRef,
      next_check_at: null,
      last_error: null,
    })
    .where('store_id', '=', storeId)
    .where('id', '=', refund.id)
    .execute();
  const order = await trx
    .updateTable('orders')
    .set((eb) => ({
      // Never past the total, whatever the provider reports (the CHECK would refuse it).
      refunded_amount: eb.fn('least', [eb('refunded_amount', '+', refund.amount), eb.ref('total_amount')]),
      updated_at: now,
    }))
    .where('store_id', '=', storeId)
    .where('id', '=', locked.order.id)
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
      case 'payment.processing':
        return paymentProcessing(trx, deps, storeId, event.ref);
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
  // The refund row is committed; whatever the provider answers now, it is never lost (D24).
  for (const opened of after) await sendRefund(deps, opened);
  return result;
}

/** Removes the dedupe records of provider events received before `cutoff` (providers retry for days, not months). */
export async function purgeProviderEvents(db: Kysely<Database>, cutoff: Date): Promise<number> {
  return purgeOlderThan(db, {
    table: 'provider_events',
    keyColumns: ['provider', 'event_id'],
    timeColumn: 'received_at',
    cutoff,
  });
}
