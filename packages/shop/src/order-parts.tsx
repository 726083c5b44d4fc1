/**
 * Parts of an order the checkout and the order page both show: its lines, its totals (the cart's
 * preview or the order's own) and until when an unpaid order holds its stock.
 */
import type { Cart, Checkout } from '@storefront/client';
import { Money } from './ui.tsx';

/** Amounts priced by the service: the cart's preview (`cart.totals`) or an order's own. */
type Amounts = Pick<Cart['totals'], 'subtotal' | 'discount' | 'shipping' | 'tax' | 'total'>;

/** The totals: the cart's preview (what the checkout will charge when nothing changes) or the order's. */
export function Totals({ amounts, discountCode }: { amounts: Amounts; discountCode: string | null }) {
  return (
    <TotalsList
      currency={amounts.total.currency}
      subtotal={amounts.subtotal.amount}
      discount={amounts.discount.amount}
      discountCode={discountCode}
      shipping={amounts.shipping.amount}
      tax={amounts.tax.amount}
      total={amounts.total.amount}
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
