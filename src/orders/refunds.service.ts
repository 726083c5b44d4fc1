import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { backoffMs } from '../lib/backoff.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { ProviderError, type RefundInput } from '../payments/provider.ts';
import { queueRefundFailedNotice } from './order-mail.ts';
import { lockPaymentAndOrder } from './order-payments.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { findOrder } from './orders.repository.ts';
import type { RefundStarted } from './orders.schemas.ts';
import type { OrderRow, PaymentRow, RefundRow } from './orders.tables.ts';
import { refundView } from './orders.views.ts';
import { findRefund, hasLiveRefund, insertRefund, refundsHeld, updateRefund } from './refunds.repository.ts';

/**
 * Refunds (decision `refund-path`). A refund row is committed before the provider is asked, and stays
 * `pending` until the provider answers definitively: a timeout, a 5xx or a network error keeps it
 * pending, and reconciliation (refund-reconciliation.service.ts) asks again with the same
 * idempotency key, which returns the refund the provider may already have made. Only a definitive
 * refusal is `failed`. Captured money is what can be refunded, whatever the order's state.
 */

export type RefundDeps = Pick<OrdersDeps, 'db' | 'clock' | 'provider' | 'log'>;

/** A pending refund has its settlement webhook this long before reconciliation asks the provider. */
export const RECONCILE_AFTER_MS = 10 * 60 * 1000;
/** A refund whose request did not reach the provider is asked about again after this, then longer. */
const RETRY_BASE_MS = 60 * 1000;
const RETRY_MAX_MS = 60 * 60 * 1000;

export const AUTOMATIC_REFUND_REASON = 'expired_out_of_stock';
/** A cancellation's refund (decision `order-cancellation`): staff cancelled a paid order, or a payment arrived after the cancel. */
export const CANCELLATION_REFUND_REASON = 'order_cancelled';
/** A return's refund (decision `returns`). */
export const RETURN_REFUND_REASON = 'return';
/** Refunds nobody asked for one by one: the owners hear when the provider refuses one. */
const UNATTENDED_REASONS: ReadonlySet<string | null> = new Set([
  AUTOMATIC_REFUND_REASON,
  CANCELLATION_REFUND_REASON,
]);

/** A refund committed and not yet sent to the provider, with what the request needs. */
export interface OpenedRefund {
  refund: RefundRow;
  payment: Pick<PaymentRow, 'ref' | 'currency'>;
  order: OrderRow;
}

/** The provider request for one refund; its idempotency key makes every retry the same refund. */
export function refundRequest(
  refund: Pick<RefundRow, 'store_id' | 'order_id' | 'id' | 'amount'>,
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

export function openRefund(
  trx: Transaction<Database>,
  payment: PaymentRow,
  amount: number,
  reason: string,
  now: Date,
  note: string | null = null,
): Promise<RefundRow> {
  return insertRefund(trx, {
    store_id: payment.store_id,
    order_id: payment.order_id,
    payment_id: payment.id,
    amount,
    status: 'pending',
    provider_ref: null,
    reason,
    note,
    created_at: now,
    // Should the process stop before the provider is asked, reconciliation asks soon.
    next_check_at: new Date(now.getTime() + RETRY_BASE_MS),
  });
}

/**
 * Opens the refund of everything captured and not yet refunded or being refunded, inside the
 * caller's transaction: for an order that cannot be fulfilled (it expired and its goods are gone,
 * `expired_out_of_stock`) or that was cancelled (`order_cancelled`). Null when a live refund of
 * that reason exists already or nothing is left to refund. The caller sends it once committed.
 */
export async function openFullRefund(
  deps: { db: Transaction<Database> },
  payment: PaymentRow,
  order: OrderRow,
  reason: string,
  now: Date,
  note: string | null = null,
): Promise<OpenedRefund | null> {
  if (await hasLiveRefund(deps.db, payment, reason)) return null;
  const amount = payment.amount - (await refundsHeld(deps.db, payment));
  if (amount <= 0) return null;
  const refund = await openRefund(deps.db, payment, amount, reason, now, note);
  return { refund, payment, order };
}

export function isUnattendedRefund(refund: Pick<RefundRow, 'reason'>): boolean {
  return UNATTENDED_REASONS.has(refund.reason);
}

export type SendOutcome = 'requested' | 'deferred' | 'rejected';

/**
 * Asks the provider for a committed refund. Accepted: the provider's reference is kept and the
 * refund waits for its webhook (reconciliation asks after RECONCILE_AFTER_MS). Not reached (timeout,
 * 5xx, network): it stays pending and is asked again with backoff. Refused for good: `failed`, and
 * for an automatic or a cancellation's refund the owners get an admin notice. Never throws for a provider answer.
 */
export async function sendRefund(deps: RefundDeps, opened: OpenedRefund): Promise<SendOutcome> {
  const { refund, payment, order } = opened;
  try {
    const { refundRef } = await deps.provider.refund(refundRequest(refund, payment.ref, payment.currency));
    await updateRefund(
      deps.db,
      refund,
      {
        provider_ref: refundRef,
        last_error: null,
        next_check_at: new Date(deps.clock.now().getTime() + RECONCILE_AFTER_MS),
      },
      { whilePending: true },
    );
    return 'requested';
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    const now = deps.clock.now();
    const message = error.message.slice(0, 1000);
    if (!error.definitive) {
      const attempts = refund.attempts + 1;
      deps.log.warn(
        { refundId: refund.id, attempts, err: message },
        'refund not confirmed by the provider; will ask again',
      );
      await updateRefund(
        deps.db,
        refund,
        {
          attempts,
          last_error: message,
          next_check_at: new Date(now.getTime() + backoffMs(attempts, RETRY_BASE_MS, RETRY_MAX_MS)),
        },
        { whilePending: true },
      );
      return 'deferred';
    }
    deps.log.warn({ refundId: refund.id, err: message }, 'the provider refused the refund');
    await deps.db.transaction().execute(async (trx) => {
      const failed = await updateRefund(
        trx,
        refund,
        { status: 'failed', settled_at: now, last_error: message, next_check_at: null },
        { whilePending: true },
      );
      if (failed && UNATTENDED_REASONS.has(refund.reason)) {
        await queueRefundFailedNotice({ db: trx }, order, refund, message);
      }
    });
    return 'rejected';
  }
}

/**
 * Starts a staff refund of any order that holds captured money (decision `refund-path`): paid, or expired after a late
 * payment. At most what was captured and is not yet refunded or being refunded. 202 either way the
 * provider answers unless it refuses for good (409 `refund_rejected`, the refund recorded failed).
 */
export async function requestRefund(
  deps: RefundDeps,
  storeId: string,
  orderId: string,
  amount: number,
  /** The staff member's reason, kept as the refund's note (blank: none). */
  reason?: string,
): Promise<RefundStarted> {
  const note = reason?.trim() || null;
  const now = deps.clock.now();
  const opened = await deps.db.transaction().execute(async (trx) => {
    const exists = await findOrder(trx, storeId, orderId);
    if (!exists) throw notFound('No order with that id in this store.');
    const locked = await lockPaymentAndOrder(trx, storeId, { orderId });
    if (!locked || locked.payment.status !== 'succeeded') {
      throw new AppError(
        'order_not_paid',
        409,
        `This order holds no captured payment to refund (it is ${exists.status}${locked ? `, its payment ${locked.payment.status}` : ''}).`,
      );
    }
    const { payment, order } = locked;
    const refundable = payment.amount - (await refundsHeld(trx, payment));
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
    const refund = await openRefund(trx, payment, amount, 'merchant', now, note);
    return { refund, payment, order };
  });
  const outcome = await sendRefund(deps, opened);
  const current = (await findRefund(deps.db, storeId, opened.refund.id)) ?? opened.refund;
  if (outcome === 'rejected') {
    throw new AppError(
      'refund_rejected',
      409,
      `The payment provider refused the refund: ${current.last_error ?? 'no reason given'}`,
    );
  }
  const { order } = opened;
  return {
    refund: refundView(current, order.currency),
    order: { id: order.id, number: order.number, status: order.status },
  };
}
