/**
 * An order's lines and totals, with its tax: each line's tax (rate and class) when the order kept
 * it, "incl." when the prices included tax, and the invoice's breakdown by area, class and rate
 * (`taxLines`, decision tax-arithmetic).
 */
import type { AdminOrder } from '@storefront/client';
import { Fragment } from 'react';
import { Link } from 'react-router';
import { formatMoney, formatPercent } from '../../ui/money.ts';

/** "19 %", or "7 % reduced" for a class other than standard. */
function taxRateLabel(rateBps: number, taxClass: string): string {
  return taxClass === 'standard' ? formatPercent(rateBps) : `${formatPercent(rateBps)} ${taxClass}`;
}

/** "Tax 19 % on €100.00 — €19.00", by area when the region's rate applied. */
function TaxBreakdown({ order }: { order: AdminOrder }) {
  if (order.taxLines.length === 0) return null;
  const money = (amount: number) => formatMoney(amount, order.total.currency);
  return (
    <>
      <h3 id="tax-breakdown-title">Tax breakdown{order.taxIncluded ? ' (included in the prices)' : ''}</h3>
      <ul className="orders-plain-list" aria-labelledby="tax-breakdown-title">
        {order.taxLines.map((line) => (
          <li key={`${line.country}-${line.region ?? ''}-${line.class}-${line.rateBps}`}>
            Tax {taxRateLabel(line.rateBps, line.class)} on {money(line.taxable)} — {money(line.amount)}
            {line.region ? <span className="muted"> ({line.region})</span> : null}
          </li>
        ))}
      </ul>
      {order.shippingTax.amount > 0 ? (
        <p className="muted">Of which on shipping: {money(order.shippingTax.amount)}</p>
      ) : null}
    </>
  );
}

export function Lines({ order }: { order: AdminOrder }) {
  const currency = order.total.currency;
  const money = (amount: number) => formatMoney(amount, currency);
  // A Tax column only when some line was taxed: an untaxed order reads as it always did.
  const hasLineTax = order.lines.some((line) => (line.tax?.amount ?? 0) > 0);
  return (
    <section className="panel orders-panel" aria-labelledby="lines-title">
      <h2 id="lines-title">Items</h2>
      <div className="table-wrap orders-table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col" className="num">
                Quantity
              </th>
              <th scope="col" className="num">
                Price
              </th>
              {hasLineTax ? (
                <th scope="col" className="num">
                  Tax
                </th>
              ) : null}
              <th scope="col" className="num">
                Total
              </th>
            </tr>
          </thead>
          <tbody>
            {order.lines.map((line) => (
              <tr key={line.variantId}>
                <td>
                  <Link to={`/products/${line.productId}`}>{line.title}</Link>
                  <div className="muted">
                    {line.variantLabel}
                    {line.sku ? ` · SKU ${line.sku}` : ''}
                  </div>
                </td>
                <td className="num">{line.quantity}</td>
                <td className="num">{money(line.unitPrice.amount)}</td>
                {hasLineTax ? (
                  <td className="num">
                    {line.tax ? (
                      <>
                        {money(line.tax.amount)}
                        <div className="muted">{taxRateLabel(line.tax.rateBps, line.tax.class)}</div>
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                ) : null}
                <td className="num">{money(line.lineTotal.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <dl className="totals">
        <dt>Subtotal</dt>
        <dd>{money(order.subtotal.amount)}</dd>
        {order.discount.amount > 0 || order.discountCode ? (
          <>
            <dt>Discount{order.discountCode ? ` (${order.discountCode})` : ''}</dt>
            <dd>−{money(order.discount.amount)}</dd>
          </>
        ) : null}
        <dt>{order.taxIncluded ? 'Tax (incl.)' : 'Tax'}</dt>
        <dd>{money(order.tax.amount)}</dd>
        <dt>Shipping</dt>
        <dd>{money(order.shipping.amount)}</dd>
        <dt className="total">Total</dt>
        <dd className="total">{money(order.total.amount)}</dd>
        {order.giftCards.map((card) => (
          <Fragment key={card.last4}>
            <dt>Gift card ending {card.last4}</dt>
            <dd>−{money(card.amount.amount)}</dd>
          </Fragment>
        ))}
        {order.giftCards.length > 0 ? (
          <>
            <dt>Charged by the provider</dt>
            <dd>{money(order.amountDue.amount)}</dd>
          </>
        ) : null}
        {order.refunded.amount > 0 ? (
          <>
            <dt>Refunded</dt>
            <dd>−{money(order.refunded.amount)}</dd>
            <dt>Net</dt>
            <dd>{money(order.total.amount - order.refunded.amount)}</dd>
          </>
        ) : null}
      </dl>
      <TaxBreakdown order={order} />
    </section>
  );
}
