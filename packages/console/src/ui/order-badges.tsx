/** An order's badges, in the orders list, an order's header and a customer's orders. */
import type { AdminOrder } from '@storefront/client';
import { StatusBadge } from './components.tsx';

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
