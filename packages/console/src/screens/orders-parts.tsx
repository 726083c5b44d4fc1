/**
 * Shared by the home and orders screens: what an order can still refund, ship
 * and take back, and its timeline. (Rates in basis points are parsed and shown with money, in
 * ui/money.ts.)
 */
import type { AdminOrder } from '@storefront/client';
import { useId } from 'react';
import type { OrderMail, OrderReturn } from '../data/orders.ts';
import { TextAreaField } from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { formatMoney } from '../ui/money.ts';

// ---- Refunds ----

/**
 * What can still be refunded on an order: the captured payment minus refunds made or pending (the
 * server's rule, decision `refund-path`). Zero when no payment was captured.
 */
export function refundableAmount(order: AdminOrder): number {
  const captured = order.payments
    .filter((payment) => payment.status === 'succeeded')
    .reduce((sum, payment) => sum + payment.amount.amount, 0);
  if (captured === 0) return 0;
  const held = order.refunds
    .filter((refund) => refund.status === 'pending' || refund.status === 'succeeded')
    .reduce((sum, refund) => sum + refund.amount.amount, 0);
  return Math.max(0, captured - held);
}

/** The badges of an order in lists and its header: status, refunds, oversold. */
export function orderBadges(order: Pick<AdminOrder, 'status' | 'oversold' | 'refunded' | 'total'>): string[] {
  const badges: string[] = [order.status];
  if (order.refunded.amount > 0) {
    badges.push(order.refunded.amount >= order.total.amount ? 'refunded' : 'partially_refunded');
  }
  if (order.oversold) badges.push('oversold');
  return badges;
}

/**
 * The optional reason staff give for a refund, cancellation or return: seen by staff only, and at
 * most 500 characters (the server's limit).
 */
export function ReasonField({
  label,
  value,
  error,
  onChange,
}: {
  /** "Reason for cancelling (optional)". */
  label: string;
  value: string;
  error: string | undefined;
  onChange: (text: string) => void;
}) {
  return (
    <div className="refund-reason">
      <TextAreaField
        label={label}
        hint="Only staff see this; the buyer does not."
        maxLength={500}
        rows={2}
        value={value}
        error={error}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

// ---- Fulfilment ----

/** The badge of an order's fulfilment status (`partial` reads "partially fulfilled"). */
export function fulfillmentBadge(status: AdminOrder['fulfillmentStatus']): string {
  return status === 'partial' ? 'partially_fulfilled' : status;
}

/** A variant of the order as its shipments name it: "Blue mug (Large)". */
export function variantName(order: Pick<AdminOrder, 'lines'>, variantId: string): string {
  const line = order.lines.find((l) => l.variantId === variantId);
  if (!line) return 'An item no longer on this order';
  return line.variantLabel ? `${line.title} (${line.variantLabel})` : line.title;
}

/** One variant of an order: ordered, shipped by the shipments that count (not cancelled), left. */
export interface UnitsToShip {
  variantId: string;
  name: string;
  ordered: number;
  shipped: number;
  left: number;
}

/** What each variant of the order has left to ship (the server's rule, decision `fulfilments`), in the order's line order. */
export function unitsToShip(order: Pick<AdminOrder, 'lines' | 'fulfillments'>): UnitsToShip[] {
  const shipped = new Map<string, number>();
  for (const fulfillment of order.fulfillments) {
    if (fulfillment.status === 'cancelled') continue;
    for (const line of fulfillment.lines)
      shipped.set(line.variantId, (shipped.get(line.variantId) ?? 0) + line.quantity);
  }
  const rows = new Map<string, UnitsToShip>();
  for (const line of order.lines) {
    const row = rows.get(line.variantId) ?? {
      variantId: line.variantId,
      name: variantName(order, line.variantId),
      ordered: 0,
      shipped: shipped.get(line.variantId) ?? 0,
      left: 0,
    };
    row.ordered += line.quantity;
    row.left = Math.max(0, row.ordered - row.shipped);
    rows.set(line.variantId, row);
  }
  return [...rows.values()];
}

// ---- Returns ----

/** The order's returns, oldest first (an order from a server older than returns has none). */
export function returnsOf(order: AdminOrder): OrderReturn[] {
  return (order as Partial<AdminOrder>).returns ?? [];
}

/** The buyer's mails about the order, oldest first (none from a server older than them). */
export function mailsOf(order: AdminOrder): OrderMail[] {
  return (order as Partial<AdminOrder>).mails ?? [];
}

/** One variant of an order: shipped (not cancelled), returned already, and what can still come back. */
export interface UnitsToReturn {
  variantId: string;
  name: string;
  shipped: number;
  returned: number;
  left: number;
}

/** What each variant of the order can still be returned (shipped minus returned), in line order. */
export function unitsToReturn(order: AdminOrder): UnitsToReturn[] {
  const returned = new Map<string, number>();
  for (const back of returnsOf(order)) {
    for (const line of back.lines)
      returned.set(line.variantId, (returned.get(line.variantId) ?? 0) + line.quantity);
  }
  return unitsToShip(order).map((row) => {
    const back = returned.get(row.variantId) ?? 0;
    return {
      variantId: row.variantId,
      name: row.name,
      shipped: row.shipped,
      returned: back,
      left: Math.max(0, row.shipped - back),
    };
  });
}

/** How many units a shipment holds. */
export function unitsIn(fulfillment: AdminOrder['fulfillments'][number]): number {
  return fulfillment.lines.reduce((sum, line) => sum + line.quantity, 0);
}

/** "3 units" or "1 unit". */
export function units(count: number): string {
  return `${count} ${count === 1 ? 'unit' : 'units'}`;
}

// ---- Timeline ----

export interface TimelineEntry {
  at: string;
  title: string;
  detail?: string | undefined;
  tone?: 'ok' | 'warn' | 'bad' | undefined;
  /** In the future (the deadline of a pending order). */
  upcoming?: boolean;
}

const REFUND_REASONS: Record<string, string> = {
  merchant: 'by staff',
  expired_out_of_stock: 'automatically: paid after the order expired and the stock was gone',
  order_cancelled: 'by the cancellation',
};

/** The buyer's mails about an order, by kind, as the timeline names them. */
const MAIL_KINDS: Record<string, string> = {
  order_confirmation: 'Order confirmation',
  shipping_confirmation: 'Shipping confirmation',
  order_cancelled: 'Cancellation notice',
  return_received: 'Return confirmation',
  refund_notice: 'Refund notice',
};

function mailEntry(mail: OrderMail): TimelineEntry {
  const kind = mail.kind.replaceAll('_', ' ');
  const name = MAIL_KINDS[mail.kind] ?? `${kind.charAt(0).toUpperCase()}${kind.slice(1)} mail`;
  const detail = `“${mail.subject}” to the buyer`;
  switch (mail.status) {
    case 'sent':
      return { at: mail.sentAt ?? mail.createdAt, title: `${name} emailed`, detail };
    case 'pending':
      return { at: mail.createdAt, title: `${name} waiting to be sent`, detail };
    case 'failed':
      return { at: mail.createdAt, title: `${name} could not be sent`, detail, tone: 'bad' };
  }
}

/** What happened to an order, newest first, from its own data. */
export function orderTimeline(order: AdminOrder): TimelineEntry[] {
  const money = (amount: number) => formatMoney(amount, order.total.currency);
  const entries: TimelineEntry[] = [
    {
      at: order.createdAt,
      title: `Order placed by ${order.email}`,
      detail: `${money(order.total.amount)}${order.discountCode ? `, discount code ${order.discountCode}` : ''}`,
    },
  ];
  for (const payment of order.payments) {
    if (payment.status === 'failed' || payment.status === 'canceled') {
      entries.push({
        at: payment.createdAt,
        title: `Payment ${payment.status === 'failed' ? 'failed' : 'canceled'}`,
        detail: `${payment.provider} ${payment.ref}`,
        tone: 'bad',
      });
    }
  }
  if (order.paidAt) {
    entries.push({
      at: order.paidAt,
      title: 'Payment captured: order paid',
      detail: order.oversold
        ? `${money(order.total.amount)}; stock was short when it was paid (oversold)`
        : money(order.total.amount),
      tone: order.oversold ? 'warn' : 'ok',
    });
  }
  if (order.status === 'expired') {
    entries.push({
      at: order.expiresAt,
      title: 'Expired unpaid',
      detail: 'Its reserved stock was released.',
      tone: 'warn',
    });
  } else if (order.status === 'pending') {
    entries.push({
      at: order.expiresAt,
      title: 'Expires unless paid by then',
      detail: 'Its stock is reserved until then.',
      upcoming: true,
    });
  }
  if (order.cancelledAt) {
    entries.push({
      at: order.cancelledAt,
      title: 'Order cancelled',
      detail: order.cancelReason ? `Reason: ${order.cancelReason}` : undefined,
      tone: 'warn',
    });
  }
  const returns = returnsOf(order);
  const returnRefunds = new Map(returns.map((back) => [back.refundId, back]));
  for (const refund of order.refunds) {
    const back = returnRefunds.get(refund.id);
    const how = back ? 'for returned items' : refund.reason ? REFUND_REASONS[refund.reason] : undefined;
    // A cancellation's or a return's refund carries its reason, which their own entries show.
    const ownReason = back ? back.reason : refund.reason === 'order_cancelled' ? order.cancelReason : null;
    entries.push({
      at: refund.createdAt,
      title: `Refund of ${money(refund.amount.amount)} requested${how ? ` ${how}` : ''}`,
      detail: refund.note && refund.note !== ownReason ? `Reason: ${refund.note}` : undefined,
    });
    if (refund.settledAt) {
      entries.push({
        at: refund.settledAt,
        title:
          refund.status === 'succeeded'
            ? `Refund of ${money(refund.amount.amount)} succeeded`
            : `Refund of ${money(refund.amount.amount)} failed`,
        detail: refund.status === 'failed' ? (refund.lastError ?? undefined) : undefined,
        tone: refund.status === 'succeeded' ? 'ok' : 'bad',
      });
    }
  }
  order.fulfillments.forEach((fulfillment, index) => {
    entries.push({
      at: fulfillment.createdAt,
      title: `Shipment ${index + 1} sent: ${units(unitsIn(fulfillment))}${fulfillment.carrier ? ` with ${fulfillment.carrier}` : ''}`,
      detail: fulfillment.trackingNumber ? `Tracking number ${fulfillment.trackingNumber}` : undefined,
    });
    if (fulfillment.deliveredAt)
      entries.push({ at: fulfillment.deliveredAt, title: `Shipment ${index + 1} delivered`, tone: 'ok' });
    if (fulfillment.cancelledAt)
      entries.push({
        at: fulfillment.cancelledAt,
        title: `Shipment ${index + 1} cancelled`,
        detail: 'Its units count as not shipped again.',
        tone: 'warn',
      });
  });
  for (const back of returns) {
    const count = back.lines.reduce((sum, line) => sum + line.quantity, 0);
    const restocked = back.lines.filter((line) => line.restock).reduce((sum, line) => sum + line.quantity, 0);
    const refund =
      back.refundAmount.amount > 0 ? `refund of ${money(back.refundAmount.amount)}` : 'nothing refunded';
    let stock = 'not restocked';
    if (restocked === count) stock = 'restocked';
    else if (restocked > 0) stock = `${restocked} restocked`;
    entries.push({
      at: back.createdAt,
      title: `Return received: ${units(count)}`,
      detail: `${stock}; ${refund}${back.reason ? `. Reason: ${back.reason}` : ''}`,
    });
  }
  for (const mail of mailsOf(order)) entries.push(mailEntry(mail));
  return entries.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
}

export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  const id = useId();
  return (
    <section className="panel orders-panel" aria-labelledby={id}>
      <h2 id={id}>Timeline</h2>
      <ol className="timeline">
        {entries.map((entry, index) => (
          <li key={`${entry.at}-${index}`} className={entry.tone ? `tone-${entry.tone}` : undefined}>
            <p className="timeline-title">{entry.title}</p>
            {entry.detail ? <p className="muted">{entry.detail}</p> : null}
            <p className="muted">
              <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
              {entry.upcoming ? ' (upcoming)' : null}
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}
