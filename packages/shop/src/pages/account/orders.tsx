/** The account's orders, newest first, ten at a time, with their parcels' tracking. */
import { formatMoney, type Order } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { shopApi } from '../../api.ts';
import { day } from '../../format.ts';
import { Link } from '../../router.tsx';
import { ErrorMessage, Loading } from '../../ui.tsx';

const ORDER_STATUS: Record<Order['status'], string> = {
  pending: 'Awaiting payment',
  paid: 'Paid',
  expired: 'Expired, not paid',
  cancelled: 'Cancelled',
};

function fulfilmentWords(order: Order): string {
  if (order.status !== 'paid') return '—';
  const live = order.fulfillments.filter((parcel) => parcel.status !== 'cancelled');
  if (order.fulfillmentStatus === 'unfulfilled') return 'Not shipped yet';
  if (order.fulfillmentStatus === 'partial') return 'Partly shipped';
  return live.length > 0 && live.every((parcel) => parcel.status === 'delivered') ? 'Delivered' : 'Shipped';
}

function OrderCard({ order }: { order: Order }) {
  const parcels = order.fulfillments.filter((parcel) => parcel.status !== 'cancelled');
  const tracked = parcels
    .map((parcel, index) => ({ parcel, index }))
    .filter(({ parcel }) => parcel.trackingUrl || parcel.trackingNumber);
  return (
    <li class="order-card">
      <h3>
        <Link to={`/orders/${order.id}`}>Order #{order.number}</Link>
      </h3>
      <dl class="order-facts">
        <div>
          <dt>Date</dt>
          <dd>
            <time dateTime={order.createdAt}>{day(order.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{ORDER_STATUS[order.status] ?? order.status}</dd>
        </div>
        <div>
          <dt>Shipping</dt>
          <dd>{fulfilmentWords(order)}</dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd>{formatMoney(order.total.amount, order.total.currency)}</dd>
        </div>
      </dl>
      {tracked.length > 0 ? (
        <ul class="tracking-links">
          {tracked.map(({ parcel, index }) => (
            <li key={parcel.id}>
              {parcel.trackingUrl ? (
                <a href={parcel.trackingUrl} target="_blank" rel="noopener noreferrer">
                  Track parcel {index + 1}
                  <span class="visually-hidden"> of order #{order.number}</span>
                  {parcel.carrier ? ` with ${parcel.carrier}` : ''}
                  {parcel.trackingNumber ? ` (${parcel.trackingNumber})` : ''}
                </a>
              ) : (
                <>
                  Parcel {index + 1}
                  {parcel.carrier ? ` with ${parcel.carrier}` : ''}: tracking number {parcel.trackingNumber}
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

const ORDERS_PAGE = 10;

export function Orders({ customerId }: { customerId: string }) {
  const [orders, setOrders] = useState<Order[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);

  async function loadPage(after: string | null) {
    setLoading(true);
    setError(null);
    try {
      const page = await shopApi().customers.orders({
        limit: ORDERS_PAGE,
        ...(after ? { cursor: after } : {}),
      });
      setOrders((previous) => (after && previous ? [...previous, ...page.items] : page.items));
      setCursor(page.nextCursor);
    } catch (loadError) {
      setError(loadError);
    } finally {
      setLoading(false);
    }
  }

  useEffect(() => {
    void loadPage(null);
  }, [customerId]);

  return (
    <section aria-labelledby="orders-title" class="account-panel">
      <h2 id="orders-title" tabIndex={-1}>
        Orders
      </h2>
      {error ? <ErrorMessage error={error} onRetry={() => void loadPage(cursor)} /> : null}
      {orders === null ? (
        error ? null : (
          <Loading label="Loading your orders…" />
        )
      ) : orders.length === 0 ? (
        <p>
          No orders yet. <Link to="/">Start shopping</Link>
        </p>
      ) : (
        <>
          <ol class="order-list">
            {orders.map((order) => (
              <OrderCard key={order.id} order={order} />
            ))}
          </ol>
          {cursor ? (
            <button
              type="button"
              class="button-secondary load-more"
              disabled={loading}
              onClick={() => void loadPage(cursor)}
            >
              {loading ? 'Loading…' : 'Show older orders'}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}
