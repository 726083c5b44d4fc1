/**
 * Parts of an order the checkout and the order page both show: its lines, its totals (the cart's
 * preview or the order's own, with its promotions and gift cards) and until when an unpaid order holds its stock.
 */
import type { Cart, Checkout, Money as MoneyAmount } from '@storefront/client';
import { DiscountLines, ShippingLine } from './cart-summary.tsx';
import { payingCards } from './gift-cards.ts';
import { partPromotions, type AppliedPromotion } from './promotions.ts';
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

/** What the gift cards pay of the total (decision `shop-gift-cards`), and what is left for the provider. */
export interface GiftCardPart {
  cards: readonly { last4: string; amount: MoneyAmount }[];
  amountDue: MoneyAmount;
  /** What the rest is called: "Amount due" before payment, "Charged to your card" on an order paid. */
  dueLabel?: string;
}

/**
 * The totals: the cart's preview (what the checkout will charge when nothing changes) or the order's,
 * with a line per promotion off the goods and shipping free when a promotion took it off; when gift
 * cards pay part, a line per card and what is left to pay.
 */
export function Totals({
  amounts,
  promotions,
  tax,
  giftCards,
}: {
  amounts: Amounts;
  promotions: readonly AppliedPromotion[];
  tax?: TaxDetail;
  giftCards?: GiftCardPart;
}) {
  const currency = amounts.total.currency;
  const parted = partPromotions(promotions, amounts.discount.amount);
  return (
    <dl class="totals">
      <div>
        <dt>Subtotal</dt>
        <dd>
          <Money amount={amounts.subtotal.amount} currency={currency} />
        </dd>
      </div>
      <DiscountLines promotions={parted.goods} discount={amounts.discount.amount} currency={currency} />
      <ShippingLine amount={amounts.shipping.amount} currency={currency} promotions={parted.shipping} />
      <div>
        <dt>
          {tax?.included ? 'Tax included' : 'Tax'}
          {tax?.estimated ? ' (estimated)' : ''}
        </dt>
        <dd>
          <Money amount={amounts.tax.amount} currency={currency} />
        </dd>
      </div>
      {tax ? <TaxLines detail={tax} /> : null}
      <div class="totals-total">
        <dt>Total</dt>
        <dd>
          <Money amount={amounts.total.amount} currency={currency} />
        </dd>
      </div>
      {giftCards ? <GiftCardLines part={giftCards} currency={currency} /> : null}
    </dl>
  );
}

/** Rows of a `dl.totals`: "Gift card ending C4RW −$15.00" per card that pays, then "Amount due $25.00". */
function GiftCardLines({ part, currency }: { part: GiftCardPart; currency: string }) {
  const paying = payingCards(part.cards);
  if (paying.length === 0) return null;
  return (
    <>
      {paying.map((card) => (
        <div key={card.last4} class="totals-gift-card">
          <dt>Gift card ending {card.last4}</dt>
          <dd>
            −<Money amount={card.amount.amount} currency={currency} />
          </dd>
        </div>
      ))}
      <div class="totals-total totals-due">
        <dt>{part.dueLabel ?? 'Amount due'}</dt>
        <dd>
          <Money amount={part.amountDue.amount} currency={currency} />
        </dd>
      </div>
    </>
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
