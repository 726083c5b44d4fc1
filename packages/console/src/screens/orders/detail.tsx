/**
 * One order: lines and totals, shipments and the form that fulfils items, returns and the form that
 * records one, payments, refunds and the refund form, cancellation, the customer, addresses and
 * shipping method, timeline.
 */
import { countryName, formatAddress } from '@storefront/address';
import type { AdminOrder } from '@storefront/client';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useCancelOrder, useOrder } from '../../data/orders.ts';
import { ErrorBanner, Loading, Notice, PageHeader, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { Badges, fulfillmentBadge } from '../../ui/order-badges.tsx';
import { errorMessage, isStatus } from '../../ui/problems.ts';
import { deliveryEstimate } from '../shipping-parts.ts';
import { CancelSection } from './cancel.tsx';
import { RefundSection, Refunds } from './refunds.tsx';
import { OrderReturns } from './returns.tsx';
import { Lines } from './lines.tsx';
import { OrderShipments } from './shipments.tsx';
import { orderTimeline, Timeline } from './timeline.tsx';

/** An address as its country writes it on a parcel, one line per element (`formatAddress`). */
function PostalAddress({ address }: { address: NonNullable<AdminOrder['shippingAddress']> }) {
  return (
    <address className="postal-address">
      {formatAddress(address).map((line, index) => (
        <span key={index}>{line}</span>
      ))}
      {address.phone ? <span className="muted">Phone {address.phone}</span> : null}
    </address>
  );
}

/** Where the order goes, how, and who pays: the addresses and the shipping method of checkout. */
function Shipping({ order }: { order: AdminOrder }) {
  const method = order.shippingMethod;
  const estimate = method ? deliveryEstimate(method) : null;
  return (
    <section className="panel orders-panel order-shipping" aria-labelledby="shipping-title">
      <h2 id="shipping-title">Shipping</h2>
      <h3>Shipping address</h3>
      {order.shippingAddress ? (
        <PostalAddress address={order.shippingAddress} />
      ) : (
        <p className="muted">
          None given at checkout
          {order.country ? ` (the buyer's country: ${countryName(order.country)})` : ''}
        </p>
      )}
      <h3>Shipping method</h3>
      {method ? (
        <p>
          {method.name}
          {estimate ? <span className="muted"> · {estimate}</span> : null}
        </p>
      ) : (
        <p className="muted">None</p>
      )}
      <h3>Billing address</h3>
      {order.billingAddress ? (
        <PostalAddress address={order.billingAddress} />
      ) : (
        <p className={order.shippingAddress ? undefined : 'muted'}>
          {order.shippingAddress ? 'Same as shipping' : 'None given at checkout'}
        </p>
      )}
    </section>
  );
}

function Payments({ order }: { order: AdminOrder }) {
  return (
    <section className="panel orders-panel" aria-labelledby="payments-title">
      <h2 id="payments-title">Payment</h2>
      {order.payments.length === 0 ? (
        <p className="muted">No payment was started for this order.</p>
      ) : (
        <ul className="orders-plain-list">
          {order.payments.map((payment) => (
            <li key={payment.id}>
              <StatusBadge status={payment.status} />{' '}
              {formatMoney(payment.amount.amount, payment.amount.currency)} with {payment.provider}
              <div className="muted">
                Reference <code>{payment.ref}</code>, started{' '}
                <time dateTime={payment.createdAt}>{formatDateTime(payment.createdAt)}</time>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function OrderDetail() {
  const { id = '' } = useParams();
  const cancel = useCancelOrder(id);
  /** What cancelling it here did (kept with the order's id: the page may show another order next). */
  const [cancelledHere, setCancelledHere] = useState<{ id: string; notice: string } | null>(null);
  const cancelled = cancelledHere?.id === id ? cancelledHere.notice : null;
  // While a refund waits for the provider, it is read again every few seconds.
  const order = useOrder(id);

  if (!order.data) {
    if (!order.isError) {
      return (
        <>
          <PageHeader title="Order" />
          <Loading label="Loading the order…" />
        </>
      );
    }
    const missing = isStatus(order.error, 404) || isStatus(order.error, 400);
    return (
      <>
        <PageHeader title={missing ? 'Order not found' : 'Order'} />
        {missing ? (
          <p>
            No order with this address in your store. <Link to="/orders">Back to all orders</Link>
          </p>
        ) : (
          <ErrorBanner error={order.error} onRetry={() => void order.refetch()} />
        )}
      </>
    );
  }

  const data = order.data;
  return (
    <>
      <PageHeader title={`Order #${data.number}`} actions={<Link to="/orders">All orders</Link>}>
        <p className="order-meta">
          <Badges order={data} />
          <StatusBadge status={fulfillmentBadge(data.fulfillmentStatus)} />{' '}
          <span className="muted">
            Placed <time dateTime={data.createdAt}>{formatDateTime(data.createdAt)}</time>
          </span>
        </p>
      </PageHeader>
      {data.oversold ? (
        <Notice tone="warning">
          <p>
            <strong>Oversold.</strong> The payment arrived when the stock of an item was short. The order is
            paid anyway: restock the item or refund the buyer.
          </p>
        </Notice>
      ) : null}
      {cancelled ? <Notice tone="success">{cancelled}</Notice> : null}
      {data.status === 'cancelled' && !cancelled ? (
        <Notice>
          <p>
            <strong>Cancelled</strong>{' '}
            <time dateTime={data.cancelledAt ?? undefined}>{formatDateTime(data.cancelledAt)}</time>.
            {data.cancelReason ? ` Reason: ${data.cancelReason}` : ''}
          </p>
        </Notice>
      ) : null}
      {order.isError ? (
        <Notice tone="warning">Could not refresh this order: {errorMessage(order.error)}</Notice>
      ) : null}
      <div className="order-layout">
        <div>
          <Lines order={data} />
          <OrderShipments order={data} />
          <OrderReturns order={data} />
          <Payments order={data} />
          <Refunds order={data} />
          <RefundSection order={data} />
        </div>
        <div>
          <CancelSection
            order={data}
            cancel={cancel}
            onCancelled={(notice) => {
              setCancelledHere({ id, notice });
              // The section and its button are gone: the page's heading has the focus, then the notice is read.
              document.getElementById('page-title')?.focus();
            }}
          />
          <section className="panel orders-panel" aria-labelledby="customer-title">
            <h2 id="customer-title">Customer</h2>
            <p>
              <a href={`mailto:${data.email}`}>{data.email}</a>
            </p>
            {data.customerId ? (
              <p>
                <Link to={`/customers/${data.customerId}`}>View customer</Link>
              </p>
            ) : null}
            {data.phone ? (
              <p>
                Phone <a href={`tel:${data.phone.replace(/[^\d+]/g, '')}`}>{data.phone}</a>
              </p>
            ) : null}
          </section>
          <Shipping order={data} />
          <Timeline entries={orderTimeline(data)} />
        </div>
      </div>
    </>
  );
}
