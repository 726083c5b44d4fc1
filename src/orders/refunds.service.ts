import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { backoffMs } from '../lib/backoff.ts';
import { AppError, notFound } from '../lib/errors.ts';
import { ProviderError, type RefundInput } from '../payments/provider.ts';
import { queueRefundFailedNotice, queueRefundNotice, type RefundedTo } from './order-mail.ts';
import { recordEvent } from '../events/events.ts';
import type { EmittedData } from '../events/events.schemas.ts';
import { refundableToCards, refundToCards } from '../gift-cards/gift-cards.ledger.ts';
import { recentStore } from '../stores/stores.service.ts';
import type { OrderRefundedData } from './orders.events.ts';
import { MANUAL_PAYMENT } from './placed-orders.service.ts';
import { lockPaymentAndOrder } from './order-payments.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { addRefunded, findOrder } from './orders.repository.ts';
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
/**
 * Decision `draft-orders`: a provider's payment that succeeded for an order another payment paid
 * already (staff marked the draft's order paid as the buyer paid its invoice): refunded in full.
 */
export const DUPLICATE_PAYMENT_REFUND_REASON = 'duplicate_payment';
/** A return's refund (decision `returns`). */
export const RETURN_REFUND_REASON = 'return';
/** Refunds nobody asked for one by one: the owners hear when the provider refuses one. */
const UNATTENDED_REASONS: ReadonlySet<string | null> = new Set([
  AUTOMATIC_REFUND_REASON,
  CANCELLATION_REFUND_REASON,
  DUPLICATE_PAYMENT_REFUND_REASON,
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

/**
 * Decision `manual-refunds`: a payment taken outside any provider (a draft completed or marked paid
 * with `manual`) is refunded outside too: staff give the money back themselves, so its refund is
 * settled as it is recorded and no provider is asked.
 */
export const refundedOutside = (payment: Pick<PaymentRow, 'provider'>): boolean =>
  payment.provider === MANUAL_PAYMENT;

/**
 * What a settled refund does to its order, in the caller's transaction (the payment and the order
 * locked): the order's `refunded` grows, order.refunded is recorded and the buyer's refund mail
 * queued. The provider's `refund.succeeded` and a refund settled outside both end here.
 */
export async function countSettledRefund(
  trx: Transaction<Database>,
  storeName: string,
  order: Pick<OrderRow, 'store_id' | 'id'>,
  refund: Pick<RefundRow, 'id' | 'amount'>,
  now: Date,
  to: RefundedTo,
): Promise<OrderRow> {
  const updated = await addRefunded(trx, order, refund.amount, now);
  const currency = updated.currency.trim();
  await recordEvent(trx, {
    storeId: updated.store_id,
    type: 'order.refunded',
    resource: `order:${updated.id}`,
    data: {
      orderId: updated.id,
      number: updated.number,
      refundId: refund.id,
      amount: { amount: refund.amount, currency },
      refunded: { amount: updated.refunded_amount, currency },
    } satisfies EmittedData<typeof OrderRefundedData>,
  });
  await queueRefundNotice({ db: trx }, storeName, updated, refund.amount, to);
  return updated;
}

/**
 * Records a refund of `payment` in the caller's transaction (the payment and its order locked).
 * Through a provider it is `pending` until the provider settles it (the caller sends it once
 * committed, `sendRefund`); of a payment taken outside it is settled at once (`refundedOutside`).
 */
export async function openRefund(
  trx: Transaction<Database>,
  payment: PaymentRow,
  amount: number,
  reason: string,
  now: Date,
  note: string | null = null,
): Promise<RefundRow> {
  const outside = refundedOutside(payment);
  const refund = await insertRefund(trx, {
    store_id: payment.store_id,
    order_id: payment.order_id,
    payment_id: payment.id,
    amount,
    status: outside ? 'succeeded' : 'pending',
    provider_ref: null,
    reason,
    note,
    created_at: now,
    settled_at: outside ? now : null,
    // Should the process stop before the provider is asked, reconciliation asks soon.
    next_check_at: outside ? null : new Date(now.getTime() + RETRY_BASE_MS),
  });
  if (outside) {
    const store = await recentStore({ db: trx }, payment.store_id);
    await countSettledRefund(
      trx,
      store?.name ?? 'The store',
      { store_id: payment.store_id, id: payment.order_id },
      refund,
      now,
      'outside',
    );
  }
  return refund;
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

/** What an order can still refund (decision `gift-card-tender`): through its provider's payment, and back to its gift cards. */
export async function refundableOf(
  trx: Transaction<Database>,
  payment: PaymentRow | null,
  order: OrderRow,
): Promise<{ provider: number; cards: number }> {
  const provider = payment?.status === 'succeeded' ? payment.amount - (await refundsHeld(trx, payment)) : 0;
  const cards =
    order.gift_cards.length === 0
      ? 0
      : await refundableToCards(trx, { storeId: order.store_id, orderId: order.id });
  return { provider, cards };
}

/** How a refund of `amount` splits: back to the gift cards first, unless `giftCardsFirst` is false (then the provider first). */
export function splitRefund(
  amount: number,
  refundable: { provider: number; cards: number },
  giftCardsFirst = true,
): { cards: number; provider: number } {
  const cards = giftCardsFirst
    ? Math.min(amount, refundable.cards)
    : Math.min(refundable.cards, Math.max(0, amount - refundable.provider));
  return { cards, provider: amount - cards };
}

/**
 * Pays `amount` back to the order's gift cards at once (decision `gift-card-tender`), in the
 * caller's transaction: the ledger's `refund` entries, a settled refund marked `gift_cards`, the
 * order's `refunded`, order.refunded and the buyer's refund mail. Returns the refund and the order
 * as it is now.
 */
export async function refundGiftCards(
  trx: Transaction<Database>,
  storeName: string,
  payment: PaymentRow,
  order: OrderRow,
  refund: { amount: number; reason: string; note: string | null; now: Date },
): Promise<{ refund: RefundRow; order: OrderRow }> {
  const { now } = refund;
  const back = await refundToCards(trx, {
    storeId: order.store_id,
    orderId: order.id,
    amount: refund.amount,
    now,
  });
  const row = await insertRefund(trx, {
    store_id: order.store_id,
    order_id: order.id,
    payment_id: payment.id,
    amount: back,
    status: 'succeeded',
    provider_ref: null,
    reason: refund.reason,
    note: refund.note,
    created_at: now,
    settled_at: now,
    next_check_at: null,
    gift_cards: true,
  });
  const updated = await addRefunded(trx, order, back, now);
  const currency = order.currency.trim();
  await recordEvent(trx, {
    storeId: order.store_id,
    type: 'order.refunded',
    resource: `order:${order.id}`,
    data: {
      orderId: order.id,
      number: order.number,
      refundId: row.id,
      amount: { amount: back, currency },
      refunded: { amount: updated.refunded_amount, currency },
    } satisfies EmittedData<typeof OrderRefundedData>,
  });
  await queueRefundNotice({ db: trx }, storeName, updated, back, 'gift_cards');
  return { refund: row, order: updated };
}

export function isUnattendedRefund(refund: Pick<RefundRow, 'reason'>): boolean {
  return UNATTENDED_REASONS.has(refund.reason);
}

export type SendOutcome = 'requested' | 'deferred' | 'rejected' | 'settled';

/**
 * Asks the provider for a committed refund. Accepted: the provider's reference is kept and the
 * refund waits for its webhook (reconciliation asks after RECONCILE_AFTER_MS). Not reached (timeout,
 * 5xx, network): it stays pending and is asked again with backoff. Refused for good: `failed`, and
 * for an automatic or a cancellation's refund the owners get an admin notice. Never throws for a provider answer.
 * A refund settled outside (`refundedOutside`) is `settled` without a call.
 */
export async function sendRefund(deps: RefundDeps, opened: OpenedRefund): Promise<SendOutcome> {
  const { refund, payment, order } = opened;
  // Settled as it was recorded (decision `manual-refunds`): there is nothing to ask a provider.
  if (refund.status !== 'pending') return 'settled';
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
  /** Decision `gift-card-tender`: back to the order's gift cards first (default), or the provider first. */
  giftCardsFirst = true,
): Promise<RefundStarted> {
  const note = reason?.trim() || null;
  const now = deps.clock.now();
  const store = await recentStore(deps, storeId);
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
    const parts = await refundableOf(trx, payment, order);
    const refundable = parts.provider + parts.cards;
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
    const split = splitRefund(amount, parts, giftCardsFirst);
    const toCards =
      split.cards > 0
        ? await refundGiftCards(trx, store?.name ?? 'The store', payment, order, {
            amount: split.cards,
            reason: 'merchant',
            note,
            now,
          })
        : null;
    const current = toCards?.order ?? order;
    const refund =
      split.provider > 0 ? await openRefund(trx, payment, split.provider, 'merchant', now, note) : null;
    return {
      toProvider: refund && { refund, payment, order: current },
      toCards: toCards?.refund ?? null,
      order: current,
    };
  });
  const { order, toCards, toProvider } = opened;
  const shownOrder = { id: order.id, number: order.number, status: order.status };
  if (toProvider === null) return { refund: refundView(toCards!, order.currency), order: shownOrder };
  const outcome = await sendRefund(deps, toProvider);
  const current = (await findRefund(deps.db, storeId, toProvider.refund.id)) ?? toProvider.refund;
  if (outcome === 'rejected') {
    throw new AppError(
      'refund_rejected',
      409,
      `The payment provider refused the refund: ${current.last_error ?? 'no reason given'}${toCards ? ` (${toCards.amount} went back to the gift cards)` : ''}`,
    );
  }
  return {
    refund: refundView(current, order.currency),
    ...(toCards ? { giftCardRefund: refundView(toCards, order.currency) } : {}),
    order: shownOrder,
  };
}
