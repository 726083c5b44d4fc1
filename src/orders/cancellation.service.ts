import type { Transaction } from 'kysely';
import { releaseReserved, restock as restockUnits } from '../catalog/inventory/inventory.ts';
import type { Database } from '../db/tables.ts';
import type { EmittedData } from '../events/events.schemas.ts';
import { recordEvent } from '../events/events.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { MAIL_LOOP } from '../mail/outbox.ts';
import { giveBackDiscountUse } from '../pricing/pricing.service.ts';
import { recentStore } from '../stores/stores.service.ts';
import { queueCancellationNotice } from './order-mail.ts';
import { cancelOpenPayments, lockPaymentAndOrder } from './order-payments.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import type { OrderCancelledData } from './orders.events.ts';
import { findOrder, markOrderCancelled, orderLines } from './orders.repository.ts';
import { release } from '../gift-cards/gift-cards.ledger.ts';
import type { AdminOrder, CancelOrderBody } from './orders.schemas.ts';
import { adminView } from './orders.service.ts';
import type { OrderRow, PaymentRow } from './orders.tables.ts';
import { stockLinesOf } from './orders.views.ts';
import {
  CANCELLATION_REFUND_REASON,
  openFullRefund,
  refundableOf,
  refundGiftCards,
  sendRefund,
  type OpenedRefund,
} from './refunds.service.ts';

/**
 * Cancellation (decision `order-cancellation`). One transaction locks the order's payment and then the order (decision `one-lock-order`'s
 * lock order, the one the payment webhook and the expiry sweep take), so a cancel racing either
 * has one outcome: whichever commits first decides, and the other sees it.
 *
 * - pending: the reservation is released, the discount's use given back, the open payment
 *   cancelled here and then at the provider (a payment that still succeeds there is refunded in
 *   full when its webhook arrives: a cancelled order is never revived);
 * - paid and not shipped: units back on hand (`restock`), what was captured refunded (`refund`)
 *   through the refund path of decision `refund-path`, sent once the cancellation has committed;
 * - shipped (an active fulfilment): 409 `order_fulfilled`, use a return; expired: 409
 *   `order_expired`, there is nothing left to cancel.
 *
 * `order.cancelled` and the buyer's mail commit with the change. Cancelling a cancelled order
 * answers 200 with the order as it is (idempotent).
 */

export type CancelDeps = Pick<OrdersDeps, 'db' | 'clock' | 'provider' | 'log' | 'signals'>;

type Tx = Transaction<Database>;

interface Cancelled {
  order: OrderRow;
  /** The intent to cancel at the provider once committed (a pending order's payment). */
  intentRef: string | null;
  refund: OpenedRefund | null;
}

async function lockForCancel(
  trx: Tx,
  storeId: string,
  orderId: string,
): Promise<{ order: OrderRow; payment: PaymentRow | null }> {
  const exists = await findOrder(trx, storeId, orderId);
  if (!exists) throw notFound('No order with that id in this store.');
  const locked = await lockPaymentAndOrder(trx, storeId, { orderId: exists.id });
  if (locked) return locked;
  const order = await findOrder(trx, storeId, exists.id, { forUpdate: true });
  return { order: order!, payment: null };
}

async function cancelInTransaction(
  deps: CancelDeps,
  trx: Tx,
  storeId: string,
  orderId: string,
  body: CancelOrderBody,
  storeName: string,
): Promise<Cancelled | null> {
  const { order, payment } = await lockForCancel(trx, storeId, orderId);
  if (order.status === 'cancelled') return null;
  if (order.status === 'expired')
    throw new AppError(
      'order_expired',
      409,
      'This order expired unpaid: its stock is back and nothing was charged, so there is nothing to cancel.',
    );
  if (order.fulfillment_status !== 'unfulfilled')
    throw new AppError(
      'order_fulfilled',
      409,
      'Units of this order have shipped. Cancel its shipments first, or record a return for what comes back.',
    );
  const now = deps.clock.now();
  const lines = await orderLines(trx, order);
  const reason = body.reason?.trim() || null;
  const previousStatus = order.status;
  let restocked = false;
  let refund: OpenedRefund | null = null;
  let intentRef: string | null = null;
  let toCards = 0;
  if (previousStatus === 'pending') {
    await releaseReserved(trx, storeId, stockLinesOf(lines), now);
    // Decision `gift-card-tender`: what the order held on gift cards goes back to them.
    if (order.gift_cards.length > 0) await release(trx, { storeId, orderId: order.id, now });
    await cancelOpenPayments(trx, order, now);
    if (payment && payment.provider === deps.provider.name && payment.status !== 'succeeded')
      intentRef = payment.ref;
  } else {
    if (body.restock !== false) {
      await restockUnits(trx, storeId, stockLinesOf(lines), now);
      restocked = true;
    }
    if (body.refund !== false && payment?.status === 'succeeded') {
      refund = await openFullRefund({ db: trx }, payment, order, CANCELLATION_REFUND_REASON, now, reason);
      // Decision `gift-card-tender`: what the gift cards paid goes back to them at once.
      const cards = (await refundableOf(trx, payment, order)).cards;
      if (cards > 0)
        toCards = (
          await refundGiftCards(trx, storeName, payment, order, {
            amount: cards,
            reason: CANCELLATION_REFUND_REASON,
            note: reason,
            now,
          })
        ).refund.amount;
    }
  }
  await giveBackDiscountUse({ db: trx }, order, now);
  const cancelled = await markOrderCancelled(trx, order, reason, now);
  const refunded = (refund?.refund.amount ?? 0) + toCards;
  const currency = order.currency.trim();
  await recordEvent(trx, {
    storeId,
    type: 'order.cancelled',
    resource: `order:${order.id}`,
    data: {
      orderId: order.id,
      number: order.number,
      previousStatus,
      reason,
      restocked,
      refund: refunded > 0 ? { amount: refunded, currency } : null,
      total: { amount: order.total_amount, currency },
    } satisfies EmittedData<typeof OrderCancelledData>,
  });
  await queueCancellationNotice({ db: trx }, storeName, cancelled, refunded);
  return { order: cancelled, intentRef, refund };
}

/** Cancels an order (decision `order-cancellation`) and answers with it as the Admin API shows it. */
export async function cancelOrder(
  deps: CancelDeps,
  storeId: string,
  orderId: string,
  body: CancelOrderBody,
): Promise<AdminOrder> {
  const store = await recentStore(deps, storeId);
  const done = await deps.db
    .transaction()
    .execute((trx) => cancelInTransaction(deps, trx, storeId, orderId, body, store?.name ?? 'The store'));
  if (done) {
    deps.signals.wake(MAIL_LOOP);
    if (done.intentRef) {
      await deps.provider.cancelIntent(done.intentRef).catch((error: unknown) => {
        // Not cancelable (the buyer paid at the last moment): its webhook refunds it in full.
        deps.log.warn(
          { err: error instanceof Error ? error.message : error, ref: done.intentRef },
          'could not cancel the intent of a cancelled order',
        );
      });
    }
    // Committed: whatever the provider answers now, the refund is never lost (decision `refund-path`).
    if (done.refund) await sendRefund(deps, done.refund);
  }
  const order = await findOrder(deps.db, storeId, orderId);
  return adminView(deps, order!);
}
