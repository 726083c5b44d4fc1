/**
 * Home: today's orders and revenue (the browser's day; in each currency orders were paid in when
 * other markets sold too), and what needs the merchant's attention.
 */
import type { SuccessBody } from '@storefront/client';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useOverview } from '../data/overview.ts';
import { PageHeader, StatusBadge } from '../ui/components.tsx';
import { formatDate, startOfToday } from '../ui/dates.ts';
import { formatMoney } from '../ui/money.ts';
import { QueryView } from '../ui/queries.tsx';
import './orders.css';

type Overview = SuccessBody<'adminGetOverview'>;

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function Figure({ label, value, children }: { label: string; value: string; children: ReactNode }) {
  return (
    <section className="card figure" aria-label={label}>
      <h2>{label}</h2>
      <p className="value">{value}</p>
      <p className="figure-note">{children}</p>
    </section>
  );
}

/**
 * Today's revenue in the other currencies orders were paid in (other markets'), as a sentence, or
 * null when every paid order was in the store currency.
 */
function otherCurrencies(overview: Overview): string | null {
  const others = overview.revenueByCurrency.filter(
    (money) => money.currency !== overview.orders.revenue.currency,
  );
  if (others.length === 0) return null;
  return `Also ${others.map((money) => formatMoney(money.amount, money.currency)).join(', ')} paid in ${others.map((money) => money.currency).join(', ')} (other markets).`;
}

function RevenueNote({ overview }: { overview: Overview }) {
  const others = otherCurrencies(overview);
  return (
    <>
      {others ? <span>{others} </span> : null}
      <span className="muted">
        Totals of the orders paid today, before refunds
        {others ? `; the figure is in ${overview.orders.revenue.currency}` : ''}.
      </span>
    </>
  );
}

function LowStock({ lowStock }: { lowStock: Overview['lowStock'] }) {
  return (
    <section className="panel orders-panel" aria-labelledby="low-stock-title">
      <h2 id="low-stock-title">Low stock</h2>
      {lowStock.count === 0 ? (
        <p className="muted">
          No variant of an active product has {lowStock.threshold} or fewer units available.
        </p>
      ) : (
        <>
          <p>
            {plural(lowStock.count, 'variant has', 'variants have')} {lowStock.threshold} or fewer units
            available
            {lowStock.count > lowStock.variants.length
              ? ` (the ${lowStock.variants.length} lowest are shown)`
              : ''}
            .
          </p>
          <div className="table-wrap orders-table-wrap">
            <table>
              <caption className="visually-hidden">Variants low on stock, least available first</caption>
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Variant</th>
                  <th scope="col">SKU</th>
                  <th scope="col" className="num">
                    Available
                  </th>
                  <th scope="col" className="num">
                    On hand
                  </th>
                  <th scope="col" className="num">
                    Reserved
                  </th>
                </tr>
              </thead>
              <tbody>
                {lowStock.variants.map((variant) => (
                  <tr key={variant.variantId}>
                    <td>
                      <Link to={`/products/${variant.productId}`}>{variant.productTitle}</Link>
                    </td>
                    <td>{variant.label}</td>
                    <td>{variant.sku ?? <span className="muted">—</span>}</td>
                    <td className="num">
                      {variant.available === 0 ? <StatusBadge status="sold_out" /> : variant.available}
                    </td>
                    <td className="num">{variant.onHand}</td>
                    <td className="num">{variant.reserved}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function Webhooks({ failed }: { failed: number }) {
  return (
    <section className="panel orders-panel" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      {failed === 0 ? (
        <p className="muted">No failed webhook delivery.</p>
      ) : (
        <p>
          <StatusBadge status="failed" /> {plural(failed, 'delivery', 'deliveries')} gave up after the last
          attempt. <Link to="/webhooks">Review and retry webhook deliveries</Link>
        </p>
      )}
    </section>
  );
}

const DOMAIN_TEXT: Record<string, string> = {
  pending: 'is waiting for its DNS records to be found.',
  verified: 'is verified: store mail is sent from it.',
  failed: 'failed verification: store mail is sent from the platform address.',
};

function SendingDomain({ domain }: { domain: Overview['sendingDomain'] }) {
  return (
    <section className="panel orders-panel" aria-labelledby="email-title">
      <h2 id="email-title">Sending domain</h2>
      {domain ? (
        <p>
          <StatusBadge status={domain.status} /> <strong>{domain.domain}</strong> {DOMAIN_TEXT[domain.status]}{' '}
          <Link to="/email">{domain.status === 'verified' ? 'Email settings' : 'Check its DNS records'}</Link>
        </p>
      ) : (
        <p>
          No sending domain: store mail goes out from the platform&apos;s address.{' '}
          <Link to="/email">Set up a sending domain</Link>
        </p>
      )}
    </section>
  );
}

export function Home() {
  // Today in the browser's time zone, fixed while the screen is open.
  const [since] = useState(() => startOfToday());
  const overview = useOverview(since);

  return (
    <>
      <PageHeader title="Home">
        <p className="muted">Today, {formatDate(since)}, in your time zone.</p>
      </PageHeader>
      <QueryView query={overview} keepData>
        {(data) => (
          <>
            <div className="cards">
              <Figure label="Orders paid today" value={String(data.orders.paid)}>
                <Link to="/orders?status=paid">View paid orders</Link>
              </Figure>
              <Figure
                label="Revenue today"
                value={formatMoney(data.orders.revenue.amount, data.orders.revenue.currency)}
              >
                <RevenueNote overview={data} />
              </Figure>
              <Figure label="Awaiting payment" value={String(data.orders.pending)}>
                <Link to="/orders?status=pending">View pending orders</Link>
              </Figure>
              <Figure label="Expired today" value={String(data.orders.expired)}>
                <Link to="/orders?status=expired">View expired orders</Link>
              </Figure>
            </div>
            <LowStock lowStock={data.lowStock} />
            <div className="grid-2">
              <Webhooks failed={data.failedWebhookDeliveries} />
              <SendingDomain domain={data.sendingDomain} />
            </div>
          </>
        )}
      </QueryView>
    </>
  );
}
