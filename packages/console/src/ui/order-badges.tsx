/** An order's badges, in the orders list, an order's header and a customer's orders, and its row in those lists. */
import type { AdminOrder } from '@storefront/client';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from './components.tsx';
import { formatDateTime } from './dates.ts';
import { formatMoney } from './money.ts';

/** The badges of an order in lists and its header: status, refunds, oversold. */
export function orderBadges(order: Pick<AdminOrder, 'status' | 'oversold' | 'refunded' | 'total'>): string[] {
  const badges: string[] = [order.status];
  if (order.refunded.amount > 0) {
    badges.push(order.refunded.amount >= order.total.amount ? 'refunded' : 'partially_refunded');
  }
  if (order.oversold) badges.push('oversold');
  return badges;
}

/** The badge of an order's fulfilment status (`partial` reads "partially fulfilled"). */
export function fulfillmentBadge(status: AdminOrder['fulfillmentStatus']): string {
  return status === 'partial' ? 'partially_fulfilled' : status;
}

export function Badges({ order }: { order: Pick<AdminOrder, 'status' | 'oversold' | 'refunded' | 'total'> }) {
  return (
    <span className="order-badges">
      {orderBadges(order).map((badge) => (
        <StatusBadge key={badge} status={badge} />
      ))}
    </span>
  );
}

/** What an order's row shows of it. */
type OrderSummary = Pick<
  AdminOrder,
  'id' | 'number' | 'createdAt' | 'total' | 'status' | 'oversold' | 'refunded' | 'fulfillmentStatus'
>;

/**
 * An order's row in a list of orders (the orders list, a customer's): its number (the row's
 * heading, a link to the order), date, any cells `children` add, total, badges and fulfilment.
 */
export function OrderRow({ order, children }: { order: OrderSummary; children?: ReactNode }) {
  return (
    <tr>
      <th scope="row">
        <Link to={`/orders/${order.id}`}>#{order.number}</Link>
      </th>
      <td>
        <time dateTime={order.createdAt}>{formatDateTime(order.createdAt)}</time>
      </td>
      {children}
      <td className="num">{formatMoney(order.total.amount, order.total.currency)}</td>
      <td>
        <Badges order={order} />
      </td>
      <td>
        <StatusBadge status={fulfillmentBadge(order.fulfillmentStatus)} />
      </td>
    </tr>
  );
}
