import type { Transaction } from 'kysely';
import { restock } from '../catalog/inventory/inventory.ts';
import type { Database } from '../db/tables.ts';
import type { EmittedData } from '../events/events.schemas.ts';
import { recordEvent } from '../events/events.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { MAIL_LOOP } from '../mail/outbox.ts';
import { recentStore } from '../stores/stores.service.ts';
import { queueReturnNotice } from './order-mail.ts';
import { latestPayment, lockPaymentAndOrder } from './order-payments.repository.ts';
import { returnedUnits, shippedUnits, unitsByVariant } from './units.ts';
import type { OrdersDeps } from './orders.deps.ts';
import type { ReturnCreatedData } from './orders.events.ts';
import { type OrderLineFields, findOrder, orderLines } from './orders.repository.ts';
import { insertReturn, orderFulfillments, orderReturns } from './fulfillments.repository.ts';
import type { Return, ReturnBody, ReturnPreview } from './shipments.schemas.ts';
import type { OrderRow, PaymentRow, RefundRow, ReturnLine } from './orders.tables.ts';
import { returnView } from './orders.views.ts';
import {
  RETURN_REFUND_REASON,
  openRefund,
  refundableOf,
  refundGiftCards,
  sendRefund,
  splitRefund,
  type OpenedRefund,
} from './refunds.service.ts';
import { unitsPart } from '../pricing/tax-arithmetic.ts';

/**
 * Returns (decision `returns`): units of a shipped order that came back. Never more units of a variant
 * than shipped (fulfilments not cancelled) minus returned already; each line goes back on hand or
 * not (`restock`, through the catalog's inventory module); the refund goes through decision `refund-path`'s path.
 * The payment and then the order are locked (decision `one-lock-order`'s lock order), so two returns of the last units
 * are counted one after the other, and a return and a refund never refund more than was captured.
 */

export type ReturnDeps = Pick<OrdersDeps, 'db' | 'clock' | 'provider' | 'log' | 'signals'>;

type Tx = Transaction<Database>;

/** What returnShare reads of an order and its lines (the tax fields are null on orders from before per-line tax). */
type ValuedOrder = Pick<OrderRow, 'subtotal_amount' | 'total_amount' | 'shipping_amount'> &
  Partial<Pick<OrderRow, 'tax_included'>>;
type ValuedLine = Pick<OrderLineFields, 'variant_id' | 'quantity' | 'line_total_amount'> &
  Partial<Pick<OrderLineFields, 'discount_amount' | 'tax_amount'>>;

/**
 * The default refund of a return (decisions `returns` and `tax-arithmetic`): what the buyer paid
 * for the returned units, integer-exact, valued cumulatively so that the rounding never adds up.
 *
 * An order that kept each line's discount share and tax: a variant's lines were charged their
 * amount after their share, plus their tax unless it was included; returning units `from + 1 … to`
 * of its n gives back that part of the charge (k/n rounded down, the remainder with the last unit),
 * so returning everything gives back exactly what the goods were charged, tax included.
 *
 * An order from before (its tax rounded on the whole order): the units' share of what the buyer
 * paid for goods (`total − shipping`) pro rata to their value, share = ⌊goods × value returned up
 * to now / subtotal⌋ − ⌊goods × value returned before / subtotal⌋; the shares of every unit add up
 * to exactly `total − shipping`.
 */
export function returnShare(
  order: ValuedOrder,
  lines: readonly ValuedLine[],
  before: ReadonlyMap<string, number>,
  now: ReadonlyMap<string, number>,
): number {
  const perLine = lines.every((line) => line.discount_amount != null && line.tax_amount != null);
  const ordered = new Map<string, { units: bigint; value: bigint; charged: bigint }>();
  for (const line of lines) {
    const seen = ordered.get(line.variant_id) ?? { units: 0n, value: 0n, charged: 0n };
    const charged =
      line.line_total_amount -
      (line.discount_amount ?? 0) +
      (order.tax_included ? 0 : (line.tax_amount ?? 0));
    ordered.set(line.variant_id, {
      units: seen.units + BigInt(line.quantity),
      value: seen.value + BigInt(line.line_total_amount),
      charged: seen.charged + BigInt(charged),
    });
  }
  const returnedBefore = (variantId: string) => before.get(variantId) ?? 0;
  const returnedAfter = (variantId: string) => returnedBefore(variantId) + (now.get(variantId) ?? 0);
  if (perLine) {
    let share = 0;
    for (const [variantId, { units, charged }] of ordered)
      share += unitsPart(Number(charged), Number(units), returnedBefore(variantId), returnedAfter(variantId));
    return share;
  }
  const subtotal = BigInt(order.subtotal_amount);
  if (subtotal === 0n) return 0;
  const goods = BigInt(order.total_amount - order.shipping_amount);
  const valueOf = (returned: (variantId: string) => number): bigint => {
    let value = 0n;
    for (const [variantId, { units, value: total }] of ordered)
      value += (total * BigInt(returned(variantId))) / units;
    return value;
  };
  return Number((goods * valueOf(returnedAfter)) / subtotal - (goods * valueOf(returnedBefore)) / subtotal);
}

interface Plan {
  order: OrderRow;
  lines: OrderLineFields[];
  payment: PaymentRow | null;
  returnLines: ReturnLine[];
  share: number;
  refundable: number;
  /** What of `refundable` went through the provider, and what the gift cards paid. */
  parts: { provider: number; cards: number };
}

/** Checks a return against the order (read under the caller's locks) and values it. */
async function plan(trx: Tx, order: OrderRow, payment: PaymentRow | null, body: ReturnBody): Promise<Plan> {
  if (order.status !== 'paid')
    throw new AppError(
      'order_not_paid',
      409,
      `Only a paid order takes returns (this one is ${order.status}).`,
    );
  const [lines, fulfillments, returns] = await Promise.all([
    orderLines(trx, order),
    orderFulfillments(trx, order.store_id, order.id),
    orderReturns(trx, order.store_id, order.id),
  ]);
  const errors: FieldError[] = [];
  const ordered = new Set(lines.map((line) => line.variant_id));
  const merged = new Map<string, ReturnLine>();
  body.lines.forEach((line, index) => {
    const variantId = line.variantId.toLowerCase();
    const restocked = line.restock !== false;
    if (!ordered.has(variantId)) {
      errors.push({ pointer: `/lines/${index}/variantId`, detail: 'is not a line of this order' });
      return;
    }
    const seen = merged.get(variantId);
    if (seen && seen.restock !== restocked)
      errors.push({
        pointer: `/lines/${index}/restock`,
        detail: 'differs from another line of the same variant: return them as one line',
      });
    else
      merged.set(variantId, {
        variantId,
        quantity: (seen?.quantity ?? 0) + line.quantity,
        restock: restocked,
      });
  });
  if (errors.length > 0) throw validationFailed('The return is invalid.', errors);
  const shipped = shippedUnits(fulfillments);
  const returned = returnedUnits(returns);
  const over = [...merged.values()].filter(
    (line) => (returned.get(line.variantId) ?? 0) + line.quantity > (shipped.get(line.variantId) ?? 0),
  );
  if (over.length > 0)
    throw new AppError(
      'return_exceeds_fulfilled',
      409,
      `More units than shipped and not yet returned: ${over
        .map((line) => {
          const left = (shipped.get(line.variantId) ?? 0) - (returned.get(line.variantId) ?? 0);
          return `${line.quantity} of variant ${line.variantId}, ${left} returnable`;
        })
        .join('; ')}.`,
    );
  const returnLines = [...merged.values()];
  const share = returnShare(order, lines, returned, unitsByVariant(returnLines));
  // Decision `gift-card-tender`: what went to the provider, and what the gift cards paid.
  const parts = await refundableOf(trx, payment, order);
  return { order, lines, payment, returnLines, share, refundable: parts.provider + parts.cards, parts };
}

/** The order (404 if not this store's), its latest payment and the order locked in decision `one-lock-order`'s order. */
async function lockForReturn(trx: Tx, storeId: string, orderId: string) {
  const exists = await findOrder(trx, storeId, orderId);
  if (!exists) throw notFound('No order with that id in this store.');
  const locked = await lockPaymentAndOrder(trx, storeId, { orderId: exists.id });
  if (locked) return locked;
  return { order: (await findOrder(trx, storeId, exists.id, { forUpdate: true }))!, payment: null };
}

/** What a return of these lines would refund by default, without writing anything. */
export async function previewReturn(
  deps: Pick<OrdersDeps, 'db'>,
  storeId: string,
  orderId: string,
  body: ReturnBody,
): Promise<ReturnPreview> {
  return deps.db.transaction().execute(async (trx) => {
    const exists = await findOrder(trx, storeId, orderId);
    if (!exists) throw notFound('No order with that id in this store.');
    const payment = (await latestPayment(trx, storeId, exists.id)) ?? null;
    const planned = await plan(trx, exists, payment, body);
    const currency = exists.currency.trim();
    return {
      refundAmount: { amount: Math.min(planned.share, planned.refundable), currency },
      share: { amount: planned.share, currency },
      refundable: { amount: planned.refundable, currency },
    };
  });
}

/**
 * Records a return (decision `returns`) → 201 Return. `refundAmount` left out refunds the units' share (at most
 * what is left to refund); given, it may not exceed what is left (409 `refund_too_large`). The
 * restock (`inventory.updated`), the return, `return.created`, the refund row and the buyer's mail
 * commit together; the refund is sent to the provider after the commit (decision `refund-path`) and settles with
 * `order.refunded`.
 */
export async function createReturn(
  deps: ReturnDeps,
  storeId: string,
  orderId: string,
  body: ReturnBody,
): Promise<Return> {
  const store = await recentStore(deps, storeId);
  const reason = body.reason?.trim() || null;
  const done = await deps.db.transaction().execute(async (trx) => {
    const { order, payment } = await lockForReturn(trx, storeId, orderId);
    const planned = await plan(trx, order, payment, body);
    const amount = body.refundAmount ?? Math.min(planned.share, planned.refundable);
    if (amount > planned.refundable)
      throw new AppError(
        'refund_too_large',
        409,
        `At most ${planned.refundable} can be refunded on this order now.`,
        {
          errors: [{ pointer: '/refundAmount', detail: `must be at most ${planned.refundable}` }],
        },
      );
    const now = deps.clock.now();
    await restock(
      trx,
      storeId,
      planned.returnLines.filter((line) => line.restock),
      now,
    );
    let opened: OpenedRefund | null = null;
    let toCards: RefundRow | null = null;
    if (amount > 0 && payment) {
      // Back to the gift cards the order spent first, at once; the provider refunds the rest.
      const split = splitRefund(amount, planned.parts);
      if (split.cards > 0)
        toCards = (
          await refundGiftCards(trx, store?.name ?? 'The store', payment, order, {
            amount: split.cards,
            reason: RETURN_REFUND_REASON,
            note: reason,
            now,
          })
        ).refund;
      if (split.provider > 0) {
        const refund = await openRefund(trx, payment, split.provider, RETURN_REFUND_REASON, now, reason);
        opened = { refund, payment, order };
      }
    }
    const row = await insertReturn(trx, {
      store_id: storeId,
      order_id: order.id,
      lines: JSON.stringify(planned.returnLines),
      reason,
      refund_amount: amount,
      refund_id: opened?.refund.id ?? toCards?.id ?? null,
      created_at: now,
    });
    const currency = order.currency.trim();
    await recordEvent(trx, {
      storeId,
      type: 'return.created',
      resource: `order:${order.id}`,
      data: {
        orderId: order.id,
        number: order.number,
        returnId: row.id,
        lines: planned.returnLines,
        refund: amount > 0 ? { amount, currency } : null,
        refundId: row.refund_id,
      } satisfies EmittedData<typeof ReturnCreatedData>,
    });
    if (body.notifyCustomer !== false)
      await queueReturnNotice({ db: trx }, store?.name ?? 'The store', order, planned.lines, row);
    return { row, opened, currency };
  });
  deps.signals.wake(MAIL_LOOP);
  // Committed: whatever the provider answers now, the refund is never lost (decision `refund-path`).
  if (done.opened) await sendRefund(deps, done.opened);
  return returnView(done.row, done.currency);
}
