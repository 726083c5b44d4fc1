import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { backoffMs } from '../lib/backoff.ts';
import { ProviderError, type RefundInput } from '../payments/provider.ts';
import { formatMoney } from '../lib/money.ts';
import { notifyOwners } from '../staff/owner-notices.ts';
import type { PaymentDeps } from './payment-deps.ts';
import { lockPaymentAndOrder, refundsHeld } from './orders.repository.ts';
import type { OrderRow, PaymentRow, RefundRow } from './orders.tables.ts';
import { AppError, notFound } from '../lib/errors.ts';

/**
 * Refunds (DESIGN D24). A refund row is committed before the provider is asked, and stays
 * `pending` until the provider answers definitively: a timeout, a 5xx or a network error keeps it
 * pending, and reconciliation (refund-reconciliation.ts) asks again with the same idempotency key,
 * which returns the refund the provider may already have made. Only a definitive refusal is
 * `failed`. Captured money is what can be refunded, whatever the order's state.
 */

/** A pending refund has its settlement webhook this long before reconciliation asks the provider. */
export const RECONCILE_AFTER_MS = 10 * 60 * 1000;
/** A refund whose request did not reach the provider is asked about again after this, then longer. */
const RETRY_BASE_MS = 60 * 1000;
const RETRY_MAX_MS = 60 * 60 * 1000;

export const AUTOMATIC_REFUND_REASON = 'expired_out_of_stock';

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

async function insertRefund(
  trx: Transaction<Database>,
  payment: PaymentRow,
  amount: number,
  reason: string,
  now: Date,
): Promise<RefundRow> {
  return trx
    .insertInto('refunds')
    .values({
      store_id: payment.store_id,
      order_id: payment.order_id,
      payment_id: payment.id,
      amount,
      status: 'pending',
      provider_ref: null,
      reason,
      created_at: now,
      // Should the process stop before the provider is asked, reconciliation asks soon.
      next_check_at: new Date(now.getTime() + RETRY_BASE_MS),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Opens the full refund of a payment captured for an order that cannot be fulfilled (it expired and
 * its goods are gone), inside the caller's transaction. Null when such a refund exists already or
 * nothing is left to refund. The caller sends it once the transaction has committed.
 */
export async function openAutomaticRefund(
  trx: Transaction<Database>,
  payment: PaymentRow,
  order: OrderRow,
  now: Date,
): Promise<OpenedRefund | null> {
  const existing = await trx
    .selectFrom('refunds')
    .select('id')
    .where('store_id', '=', payment.store_id)
    .where('payment_id', '=', payment.id)
    .where('reason', '=', AUTOMATIC_REFUND_REASON)
    .where('status', 'in', ['pending', 'succeeded'])
    .executeTakeFirst();
  if (existing) return null;
  const amount = payment.amount - (await refundsHeld(trx, payment.store_id, payment.id));
  if (amount <= 0) return null;
  const refund = await insertRefund(trx, payment, amount, AUTOMATIC_REFUND_REASON, now);
  return { refund, payment, order };
}

/** An automatic refund the provider refused for good: the merchant must act (D24). */
export async function refundFailedNotice(
  trx: Transaction<Database>,
  { order }: { payment: PaymentRow; order: OrderRow },
  amount: number,
  reason?: string,
): Promise<void> {
  const money = formatMoney({ amount, currency: order.currency.trim() });
  await notifyOwners({ db: trx }, order.store_id, {
    kind: 'refund_failed',
    subject: `Action needed: the automatic refund of order #${order.number} failed`,
    text: [
      `Order #${order.number} was paid after it had expired and its items were sold out, so ${money} was to be`,
      `refunded to ${order.email} automatically. The payment provider refused the refund${reason ? `: ${reason}` : '.'}`,
      '',
      'The money is still captured. Refund it from the order in the admin, or at the payment provider.',
    ].join('\n'),
  });
}

export type SendOutcome = 'requested' | 'deferred' | 'rejected';

/**
 * Asks the provider for a committed refund. Accepted: the provider's reference is kept and the
 * refund waits for its webhook (reconciliation asks after RECONCILE_AFTER_MS). Not reached (timeout,
 * 5xx, network): it stays pending and is asked again with backoff. Refused for good: `failed`, and
 * for an automatic refund the owners get an admin notice. Never throws for a provider answer.
 */
export async function sendRefund(deps: PaymentDeps, opened: OpenedRefund): Promise<SendOutcome> {
  const { refund, payment, order } = opened;
  try {
    const { refundRef } = await deps.provider.refund(refundRequest(refund, payment.ref, payment.currency));
    await deps.db
      .updateTable('refunds')
      .set({
        provider_ref: refundRef,
        last_error: null,
        next_check_at: new Date(deps.clock.now().getTime() + RECONCILE_AFTER_MS),
      })
      .where('store_id', '=', refund.store_id)
      .where('id', '=', refund.id)
      .where('status', '=', 'pending')
      .execute();
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
      await deps.db
        .updateTable('refunds')
        .set({
          attempts,
          last_error: message,
          next_check_at: new Date(now.getTime() + backoffMs(attempts, RETRY_BASE_MS, RETRY_MAX_MS)),
        })
        .where('store_id', '=', refund.store_id)
        .where('id', '=', refund.id)
        .where('status', '=', 'pending')
        .execute();
      return 'deferred';
    }
    deps.log.warn({ refundId: refund.id, err: message }, 'the provider refused the refund');
    await deps.db.transaction().execute(async (trx) => {
      const failed = await trx
        .updateTable('refunds')
        .set({ status: 'failed', settled_at: now, last_error: message, next_check_at: null })
        .where('store_id', '=', refund.store_id)
        .where('id', '=', refund.id)
        .where('status', '=', 'pending')
        .returning('id')
        .executeTakeFirst();
      if (failed && refund.reason === AUTOMATIC_REFUND_REASON) {
        await refundFailedNotice(trx, { payment: payment as PaymentRow, order }, refund.amount, message);
      }
    });
    return 'rejected';
  }
}

/**
 * Starts a staff refund of any order that holds captured money (D24): paid, or expired after a late
 * payment. At most what was captured and is not yet refunded or being refunded. 202 either way the
 * provider answers unless it refuses for good (409 `refund_rejected`, the refund recorded failed).
 */
export async function requestRefund(
  deps: PaymentDeps,
  storeId: string,
  orderId: string,
  amount: number,
): Promise<{ refund: RefundRow; order: OrderRow }> {
  const now = deps.clock.now();
  const opened = await deps.db.transaction().execute(async (trx) => {
    const exists = await trx
      .selectFrom('orders')
      .select('status')
      .where('store_id', '=', storeId)
      .where('id', '=', orderId)
      .executeTakeFirst();
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
    const refundable = payment.amount - (await refundsHeld(trx, storeId, payment.id));
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
    const refund = await insertRefund(trx, payment, amount, 'merchant', now);
    return { refund, payment, order };
  });
  const outcome = await sendRefund(deps, opened);
  const current = await deps.db
    .selectFrom('refunds')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', opened.refund.id)
    .executeTakeFirstOrThrow();
  if (outcome === 'rejected') {
    throw new AppError(
      'refund_rejected',
      409,
      `The payment provider refused the refund: ${current.last_error ?? 'no reason given'}`,
    );
  }
  return { refund: current, order: opened.order };
}
