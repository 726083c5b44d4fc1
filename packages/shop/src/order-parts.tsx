/**
 * Parts of an order the checkout and the order page both show: its lines, its totals (the cart's
 * preview or the order's own) and until when an unpaid order holds its stock.
 */
import type { Cart, Checkout } from '@storefront/client';
import { Money } from './ui.tsx';

/** Amounts priced by the service: the cart's preview (`cart.totals`) or an order's own. */
type Amounts = Pick<Cart['totals'], 'subtotal' | 'discount' | 'shipping' | 'tax' | 'total'>;

/** How the tax was worked out: its breakdown, whether the prices included it, whether it is an estimate. */
export interface TaxDetail {
  lines: Cart['taxLines'];
  included: boolean;
  estimated?: boolean;
}

/** "Tax 19 %: €3.80", the class named when it is not the standard one. */
function TaxLines({ detail }: { detail: TaxDetail }) {
  return (
    <>
      {detail.lines.map((line) => (
        <div
          key={`${line.country}-${line.region ?? ''}-${line.class}-${line.rateBps}`}
          class="totals-tax-line"
        >
          <dt>
            {detail.included ? 'incl. ' : ''}Tax {formatRate(line.rateBps)}
            {line.class === 'standard' ? '' : ` (${line.class})`}
          </dt>
          <dd>
            <Money amount={line.amount} currency={line.currency} />
          </dd>
        </div>
      ))}
    </>
  );
}

/** 1900 → "19 %", 825 → "8.25 %". */
function formatRate(bps: number): string {
  return `${(bps / 100).toLocaleString('en-US', { maximumFractionDigits: 2 })} %`;
}

/** The totals: the cart's preview (what the checkout will charge when nothing changes) or the order's. */
export function Totals({
  amounts,
  discountCode,
  tax,
}: {
  amounts: Amounts;
  discountCode: string | null;
  tax?: TaxDetail;
}) {
  return (
    <TotalsList
      taxDetail={tax}
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
  taxDetail: TaxDetail | undefined;
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
        <dt>
          {props.taxDetail?.included ? 'Tax included' : 'Tax'}
          {props.taxDetail?.estimated ? ' (estimated)' : ''}
        </dt>
        <dd>
          <Money amount={props.tax} currency={currency} />
        </dd>
      </div>
      {props.taxDetail ? <TaxLines detail={props.taxDetail} /> : null}
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
