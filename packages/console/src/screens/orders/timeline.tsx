/** What happened to an order, newest first, from its own data. */
import type { AdminOrder } from '@storefront/client';
import { useId } from 'react';
import type { OrderMail } from '../../data/orders.ts';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { mailsOf, returnsOf, units, unitsIn } from './parts.tsx';

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
