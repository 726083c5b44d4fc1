/**
 * Parts of an order the checkout and the order page both show: its lines, its totals (the cart's
 * preview or the order's own) and until when an unpaid order holds its stock.
 */
import type { Cart, Checkout } from '@storefront/client';
import { Money } from './ui.tsx';

/** The cart's totals preview: what the checkout will charge when nothing changes. */
export function CartTotals({ cart }: { cart: Cart }) {
  const { totals } = cart;
  return (
    <TotalsList
      currency={totals.total.currency}
      subtotal={totals.subtotal.amount}
      discount={totals.discount.amount}
      discountCode={cart.discountCode}
      shipping={totals.shipping.amount}
      tax={totals.tax.amount}
      total={totals.total.amount}
    />
  );
}

function TotalsList(props: {
  currency: string;
  subtotal: number;
  discount: number;
  discountCode: string | null;
  shipping: number;
  tax: number;
  total: number;
}) {
  const { currency } = props;
  return (
    <dl class="totals">
      <div>
        <dt>Subtotal</dt>
        <dd>
          <Money amount={props.subtotal} currency={currency} />
        </dd>
      </div>
      {props.discount > 0 ? (
        <div>
          <dt>Discount{props.discountCode ? ` (${props.discountCode})` : ''}</dt>
          <dd>
            −<Money amount={props.discount} currency={currency} />
          </dd>
        </div>
      ) : null}
      <div>
        <dt>Shipping</dt>
        <dd>
          <Money amount={props.shipping} currency={currency} />
        </dd>
      </div>
      <div>
        <dt>Tax</dt>
        <dd>
          <Money amount={props.tax} currency={currency} />
        </dd>
      </div>
      <div class="totals-total">
        <dt>Total</dt>
        <dd>
          <Money amount={props.total} currency={currency} />
        </dd>
      </div>
    </dl>
  );
}

/** The order's totals as the service priced them. */
export function Totals({ order }: { order: Checkout['order'] }) {
  return (
    <TotalsList
      currency={order.total.currency}
      subtotal={order.subtotal.amount}
      discount={order.discount.amount}
      discountCode={order.discountCode}
      shipping={order.shipping.amount}
      tax={order.tax.amount}
      total={order.total.amount}
    />
  );
}

/** Until when an unpaid order holds its stock for the shopper (a time of day). */
export function HeldUntil({ order }: { order: Pick<Checkout['order'], 'expiresAt'> }) {
  return (
    <time dateTime={order.expiresAt ?? undefined}>
      {order.expiresAt
        ? new Date(order.expiresAt).toLocaleTimeString(undefined, { timeStyle: 'short' })
        : '—'}
    </time>
  );
}

/** The lines of a cart or an order: quantity, title, variant and line total. */
export function SummaryLines({ lines }: { lines: Cart['items'] }) {
  return (
    <ul class="summary-lines">
      {lines.map((line) => (
        <li key={line.variantId}>
          <span>
            {line.quantity} × {line.title} <span class="muted">({line.variantLabel})</span>
          </span>
          <Money amount={line.lineTotal.amount} currency={line.lineTotal.currency} />
        </li>
      ))}
    </ul>
  );
}
