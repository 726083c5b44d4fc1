import type { EmittedData } from '../events/events.schemas.ts';
import { countRevivedDiscountUse } from '../pricing/pricing.service.ts';
import type { OrderPaidData } from './orders.events.ts';
import type { Transaction } from 'kysely';
import { sellReservedLines, takeStock } from '../catalog/inventory/inventory.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import { MAIL_LOOP } from '../mail/outbox.ts';
import type { ProviderEvent } from '../payments/provider.ts';
import { recentStore, type Store } from '../stores/stores.service.ts';
import {
  deleteProviderEventsBefore,
  lockPaymentAndOrder,
  movePayment,
  paidByAnother,
  paymentOrderId,
  recordProviderEvent,
  succeedPaymentOnce,
  type SeenEvent,
} from './order-payments.repository.ts';
import {
  orderConfirmationStatement,
  queueOrderConfirmation,
  queueOversoldNotice,
  queueRefundFailedNotice,
} from './order-mail.ts';
import type { OrdersDeps } from './orders.deps.ts';
import {
  lockOrderWithLines,
  markOrderPaid,
  markOversold,
  payPendingOrder,
  type OrderLineFields,
} from './orders.repository.ts';
import { stockLinesOf } from './orders.views.ts';
import { issueGiftCardsOf } from './gift-card-sales.ts';
import { commit } from '../gift-cards/gift-cards.ledger.ts';
import { transactionEndingWith } from '../db/last-statement.ts';
import type { OrderRow } from './orders.tables.ts';
import {
  AUTOMATIC_REFUND_REASON,
  CANCELLATION_REFUND_REASON,
  countSettledRefund,
  DUPLICATE_PAYMENT_REFUND_REASON,
  isUnattendedRefund,
  openFullRefund,
  sendRefund,
  type OpenedRefund,
} from './refunds.service.ts';
import { findRefund, findRefundBy, updateRefund } from './refunds.repository.ts';

/**
 * Provider events (decisions `payment-providers`, `order-states`, `catalog-owns-stock` and `refund-path`): what a verified payment or refund event does to an order.
 * payments/ verifies the webhook and hands the event to `applyProviderEvent`, which the composition
 * registers; expiry and refund reconciliation apply what they learn from the provider through the
 * same function, so a late webhook changes nothing.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ApplyResult = 'applied' | 'duplicate' | 'ignored';

export type ProviderEventDeps = Pick<OrdersDeps, 'db' | 'clock' | 'provider' | 'log' | 'signals' | 'keyring'>;

type InTransaction = Omit<ProviderEventDeps, 'db'> & { db: Transaction<Database> };

/** Work to do once the transaction has committed (provider calls never run inside one). */
type AfterCommit = OpenedRefund[];

/** A paid order whose buyer's confirmation is its transaction's last statement. */
interface Confirm {
  paid: OrderRow;
  lines: readonly OrderLineFields[];
}

/** What the event did, and the confirmation that ends its transaction, if any. */
interface Applied {
  result: ApplyResult;
  confirm?: Confirm | null;
}

/** order.paid of an order; its `number` and `total` come from the order's row. */
function orderPaid(storeId: string, orderId: string) {
  return { storeId, type: 'order.paid' as const, resource: `order:${orderId}`, data: { orderId } };
}

/**
 * What follows an order becoming paid (`paid`, its row marked paid, order.paid recorded): the gift
 * cards it sold (`giftCards`: the variants that sell them, when the sale of its stock read them) and
 * the mail of their codes (decision `gift-card-products`), the buyer's
 * confirmation, and when stock was short the `oversold` flag and a notice (decision `catalog-owns-stock`). Without a
 * short line the confirmation is left to be the transaction's last statement (returned).
 */
async function announcePaid(
  tx: InTransaction,
  store: Store,
  paid: OrderRow,
  lines: readonly OrderLineFields[],
  oversold: Parameters<typeof queueOversoldNotice>[3],
  giftCards?: ReadonlySet<string>,
): Promise<Confirm | null> {
  await issueGiftCardsOf(tx, store.name, paid, lines, tx.clock.now(), giftCards);
  // Decision `gift-card-tender`: what the order holds on the gift cards that pay it is spent now.
  if (paid.gift_cards.length > 0)
    await commit(tx.db, { storeId: store.id, orderId: paid.id, now: tx.clock.now() });
  if (oversold.length === 0) return { paid, lines };
  await markOversold(tx.db, paid);
  await queueOrderConfirmation(tx, store.name, paid, lines);
  await queueOversoldNotice(tx, paid, lines, oversold);
  return null;
}

/**
 * A payment succeeded. A pending order becomes paid and its reservation becomes a sale; this never
 * fails for lack of stock (decision `catalog-owns-stock`): a short line is sold down to zero and the order is flagged
 * `oversold`, with an admin notice. An expired order is revived when its goods are still in stock;
 * otherwise the captured money is refunded in full, automatically (decisions `order-states` and `refund-path`).
 */
async function paymentSucceeded(
  tx: InTransaction,
  store: Store,
  ref: string,
  after: AfterCommit,
  seen: SeenEvent,
): Promise<Applied> {
  const now = tx.clock.now();
  const storeId = store.id;
  // The event's dedupe record and the payment marked succeeded, in one statement; then the order:
  // the lock order of every money path (decision `one-lock-order`).
  const { fresh, payment } = await succeedPaymentOnce(tx.db, seen, { provider: tx.provider.name, ref }, now);
  if (!fresh) return { result: 'duplicate' };
  if (!payment) return { result: 'ignored' };
  const pending = await payPendingOrder(
    tx.db,
    storeId,
    payment.order_id,
    now,
    orderPaid(storeId, payment.order_id),
  );
  if (pending) {
    const { oversold, giftCards } = await sellReservedLines(tx.db, storeId, stockLinesOf(pending.lines), now);
    const confirm = await announcePaid(tx, store, pending.order, pending.lines, oversold, giftCards);
    if (oversold.length > 0)
      tx.log.warn({ orderId: pending.order.id, oversold }, 'order paid with short stock');
    return { result: 'applied', confirm };
  }
  const { order, lines } = await lockOrderWithLines(tx.db, storeId, payment.order_id);
  // Paid already by another payment (decision `draft-orders`: staff marked the draft's order paid
  // with money taken outside while the buyer paid the invoice too): this one is refunded in full,
  // never counted twice.
  if (order.paid_at !== null && (await paidByAnother(tx.db, payment))) {
    const opened = await openFullRefund(tx, payment, order, DUPLICATE_PAYMENT_REFUND_REASON, now);
    if (opened) {
      tx.log.warn({ orderId: order.id }, 'a second payment for an order paid already: refunding it in full');
      after.push(opened);
    }
    return { result: 'applied' };
  }
  if (order.status === 'paid') return { result: 'applied' };
  if (order.status === 'cancelled') {
    // Paid before it was cancelled: this payment was counted then (the cancel chose its refund).
    if (order.paid_at) return { result: 'applied' };
    // Staff cancelled it before the money arrived (decision `order-cancellation`): never revived, the money goes back.
    const opened = await openFullRefund(tx, payment, order, CANCELLATION_REFUND_REASON, now);
    if (opened) {
      tx.log.warn({ orderId: order.id }, 'payment for a cancelled order: refunding in full');
      after.push(opened);
    }
    return { result: 'applied' };
  }

  // Expired: take the goods again if every line is still available, else refund everything. An
  // order gift cards paid part of is not revived: their holds went back to the cards when it
  // expired (decision `gift-card-tender`).
  if (order.gift_cards.length === 0 && (await takeStock(tx.db, storeId, stockLinesOf(lines), now))) {
    const paid = await markOrderPaid(tx.db, order, false, now);
    await countRevivedDiscountUse(tx, order, now);
    const event = orderPaid(storeId, paid.id);
    await recordEvent(tx.db, {
      ...event,
      data: {
        ...event.data,
        number: paid.number,
        total: { amount: paid.total_amount, currency: paid.currency.trim() },
      } satisfies EmittedData<typeof OrderPaidData>,
    });
    const confirm = await announcePaid(tx, store, paid, lines, []);
    tx.log.info({ orderId: order.id }, 'late payment for an expired order: stock taken again, order paid');
    return { result: 'applied', confirm };
  }
  const opened = await openFullRefund(tx, payment, order, AUTOMATIC_REFUND_REASON, now);
  if (opened) {
    tx.log.warn(
      { orderId: order.id },
      'late payment for an expired order whose stock is gone: refunding in full',
    );
    after.push(opened);
  }
  return { result: 'applied' };
}

/**
 * An order paid as it is placed, in the transaction that wrote it: one its gift cards paid whole at
 * checkout (decision `gift-card-tender`), or a draft completed with a payment taken outside
 * (decision `draft-orders`). Paid as a payment's success makes an order paid (its
 * reservation sold, the cards' holds spent, the cards it sells issued, order.paid recorded, the
 * buyer's confirmation queued). Returns the paid order.
 */
export async function payPlacedOrder(tx: InTransaction, store: Store, orderId: string): Promise<OrderRow> {
  const now = tx.clock.now();
  const pending = await payPendingOrder(tx.db, store.id, orderId, now, orderPaid(store.id, orderId));
  if (!pending) throw new Error(`The order ${orderId} was not pending when its gift cards paid it`);
  const { oversold, giftCards } = await sellReservedLines(tx.db, store.id, stockLinesOf(pending.lines), now);
  const confirm = await announcePaid(tx, store, pending.order, pending.lines, oversold, giftCards);
  if (confirm) await queueOrderConfirmation(tx, store.name, confirm.paid, confirm.lines);
  return pending.order;
}

/**
 * A refund settled at the provider. `refund.succeeded` settles the refund whatever its local state
 * (decision `refund-path`: a refund marked failed after a timeout may still have been made); `refund.failed` fails only
 * a pending one. Locks payment, order, then refund (the order every money path uses).
 */
async function refundSettled(
  tx: InTransaction,
  store: Store,
  event: Extract<ProviderEvent, { kind: 'refund.succeeded' | 'refund.failed' }>,
): Promise<ApplyResult> {
  const now = tx.clock.now();
  const storeId = store.id;
  const refundId = event.metadata.refundId;
  const found = await findRefundBy(
    tx.db,
    storeId,
    refundId && UUID.test(refundId) ? { id: refundId } : { providerRef: event.refundRef },
  );
  if (!found) return 'ignored';
  const orderId = await paymentOrderId(tx.db, storeId, found.payment_id);
  const locked = await lockPaymentAndOrder(tx.db, storeId, { orderId });
  const refund = (await findRefund(tx.db, storeId, found.id, { forUpdate: true }))!;
  if (!locked || refund.status === 'succeeded') return 'ignored';

  if (event.kind === 'refund.failed') {
    if (refund.status !== 'pending') return 'ignored';
    await updateRefund(tx.db, refund, {
      status: 'failed',
      settled_at: now,
      provider_ref: event.refundRef,
      next_check_at: null,
    });
    if (isUnattendedRefund(refund)) await queueRefundFailedNotice(tx, locked.order, refund);
    return 'applied';
  }
  await updateRefund(tx.db, refund, {
    status: 'succeeded',
    settled_at: now,
    provider_ref: event.refundRef,
    next_check_at: null,
    last_error: null,
  });
  // A duplicate payment's refund (decision `draft-orders`) gives back money the order never counted.
  if (refund.reason === DUPLICATE_PAYMENT_REFUND_REASON) return 'applied';
  await countSettledRefund(tx.db, store.name, locked.order, refund, now, 'provider');
  return 'applied';
}

/** Applies one event (not a payment's success) inside the transaction that records it as seen. */
function apply(
  tx: InTransaction,
  store: Store,
  event: Exclude<ProviderEvent, { kind: 'ignored' | 'payment.succeeded' }>,
): Promise<ApplyResult> {
  const now = tx.clock.now();
  const storeId = store.id;
  const by = { provider: tx.provider.name, ref: event.ref };
  const moved = (changed: boolean): ApplyResult => (changed ? 'applied' : 'ignored');
  switch (event.kind) {
    case 'payment.processing':
      // The provider is still working on it (a bank transfer, a delayed card): mirror it.
      return movePayment(tx.db, storeId, by, ['pending'], { status: 'processing' }, now).then(moved);
    case 'payment.failed':
      return movePayment(
        tx.db,
        storeId,
        by,
        ['pending', 'processing'],
        { status: 'failed', lastError: event.reason.slice(0, 500) },
        now,
      ).then(moved);
    case 'refund.succeeded':
    case 'refund.failed':
      return refundSettled(tx, store, event);
  }
}

/**
 * Applies one verified provider event. The dedupe row (provider event id) commits in the same
 * transaction as the effect, so an event delivered twice has one effect, and an effect is never
 * recorded without its dedupe row or the other way round.
 */
export async function applyProviderEvent(
  deps: ProviderEventDeps,
  event: ProviderEvent,
): Promise<ApplyResult> {
  if (event.kind === 'ignored') return 'ignored';
  const storeId = event.metadata.storeId;
  if (!storeId || !UUID.test(storeId)) {
    deps.log.warn({ event: event.id, kind: event.kind }, 'provider event without a store: ignored');
    return 'ignored';
  }
  // Its name goes into the buyer's mail: as read within the last second (one query less per payment).
  const store = await recentStore(deps, storeId);
  if (!store) return 'ignored';
  const after: AfterCommit = [];
  const { result } = await transactionEndingWith(
    deps.db,
    async (trx): Promise<Applied> => {
      const tx = { ...deps, db: trx };
      const seen: SeenEvent = { storeId, provider: deps.provider.name, eventId: event.id, type: event.kind };
      // A payment's success (one per purchase) records its dedupe in the payment's own statement.
      if (event.kind === 'payment.succeeded') return paymentSucceeded(tx, store, event.ref, after, seen);
      if (!(await recordProviderEvent(trx, seen))) return { result: 'duplicate' };
      return { result: await apply(tx, store, event) };
    },
    // A paid order's confirmation, when it is all that is left: the COMMIT goes with it.
    (trx, { confirm }) =>
      confirm ? orderConfirmationStatement(trx, store.name, confirm.paid, confirm.lines) : null,
  );
  if (result === 'applied') deps.signals.wake(MAIL_LOOP);
  // The refund row is committed; whatever the provider answers now, it is never lost (decision `refund-path`).
  for (const opened of after) await sendRefund(deps, opened);
  return result;
}

/** Removes the dedupe records of provider events received before `cutoff` (providers retry for days, not months). */
export function purgeProviderEvents(deps: Pick<OrdersDeps, 'db'>, cutoff: Date): Promise<number> {
  return deleteProviderEventsBefore(deps.db, cutoff);
}
