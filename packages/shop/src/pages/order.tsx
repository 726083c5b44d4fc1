/**
 * An order, after the payment page sent the shopper back: it asks the service until the order is
 * `paid` (or `expired`, or `cancelled`), waiting longer between looks (1 s, 1.5 s, … up to 8 s), because only the
 * provider's signed webhook makes an order paid, never the redirect. A shopper who left the payment
 * page without paying finds the order's lines back in the cart, and can pay the order still.
 */
import { deliveryEstimate } from '@storefront/blocks';
import { formatMoney, type Order } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { PostalAddress } from '../address-form.tsx';
import { describeError, isStatus, shopApi } from '../api.ts';
import { cartStore, itemsOf, sameItems } from '../cart.ts';
import { payOnHostedPage, saveCheckout, savedCheckout, sendCheckout } from '../checkout.ts';
import { Link, useLocation } from '../router.tsx';
import { day } from '../format.ts';
import { useOnlyGiftCards } from '../gift-card-lines.ts';
import { HeldUntil, SummaryLines, Totals } from '../order-parts.tsx';
import { Loading, Notice, PageTitle } from '../ui.tsx';
import { NotFound } from './not-found.tsx';

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 8000;

/** Reads the order until it is settled (paid or expired); the latest copy and the last failure. */
function useSettledOrder(id: string): { order: Order | null; error: unknown; missing: boolean } {
  const [state, setState] = useState<{ order: Order | null; error: unknown; missing: boolean }>({
    order: null,
    error: null,
    missing: false,
  });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let delay = FIRST_DELAY_MS;
    const look = async () => {
      try {
        const order = await shopApi().orders.get(id);
        if (stopped) return;
        setState({ order, error: null, missing: false });
        if (order.status !== 'pending') return;
      } catch (error) {
        if (stopped) return;
        if (isStatus(error, 404) || isStatus(error, 400)) {
          setState({ order: null, error, missing: true });
          return;
        }
        // A network error or a 5xx: keep the last copy and look again later.
        setState((previous) => ({ ...previous, error }));
      }
      timer = setTimeout(() => void look(), delay);
      delay = Math.min(MAX_DELAY_MS, Math.round(delay * 1.5));
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);
  return state;
}

export function OrderPage({ id }: { id: string }) {
  const { query } = useLocation();
  const { order, error, missing } = useSettledOrder(id);
  // An order of gift cards only ships nothing: its codes come by email.
  const giftCardsOnly = useOnlyGiftCards(order?.lines ?? null);
  const [payError, setPayError] = useState<string | null>(null);
  const returned = query.get('redirect_status');
  const saved = savedCheckout();
  const canPayAgain = saved?.orderId === id;
  const [restored, setRestored] = useState(false);
  const unpaid = order !== null && order.status !== 'paid';

  useEffect(() => {
    if (order && order.status !== 'pending' && savedCheckout()?.orderId === order.id) saveCheckout(null);
  }, [order]);

  // Back from the payment page without paying: the lines go back in the cart (a cart filled since
  // is kept as it is), as a shopper expects of "Cancel and return to the shop".
  useEffect(() => {
    if (returned !== 'canceled' || !unpaid || !order) return;
    let live = true;
    const lines = itemsOf(order);
    cartStore.restore(lines).then(
      (cart) => live && setRestored(cart !== null && sameItems(itemsOf(cart), lines)),
      () => undefined,
    );
    return () => {
      live = false;
    };
    // Once per order: later looks at the same order change nothing here.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [order?.id, returned, unpaid]);

  if (missing) return <NotFound what="order" />;
  if (!order) {
    return error ? (
      <div class="notice notice-error" role="alert">
        <p>{describeError(error)}</p>
      </div>
    ) : (
      <Loading label="Loading your order…" />
    );
  }

  async function payAgain() {
    if (!saved || !order) return;
    setPayError(null);
    try {
      const checkout = await sendCheckout(saved.body, saved.idempotencyKey);
      // Paying this order: the cart restored from it is done with (unless it was changed since).
      cartStore.forgetIfHolding(itemsOf(order));
      payOnHostedPage(checkout);
    } catch (sendError) {
      setPayError(describeError(sendError));
    }
  }

  const title = order.status === 'paid' ? 'Thank you!' : `Order #${order.number}`;
  return (
    <section class="order">
      <PageTitle title={title}>{title}</PageTitle>
      <div aria-live="polite" class="order-status">
        {order.status === 'paid' ? (
          <Notice tone="success">
            <p>
              Order #{order.number} is <strong>paid</strong>. A confirmation is on its way to {order.email}.
            </p>
          </Notice>
        ) : order.status === 'expired' ? (
          <div class="notice notice-error" role="alert">
            <p>This order expired before it was paid. Nothing was charged.</p>
          </div>
        ) : order.status === 'cancelled' ? (
          <Notice tone="warning">
            <p>
              Order #{order.number} was <strong>cancelled</strong> by the shop.{' '}
              {refundWords(order) ?? 'Nothing was charged.'}
            </p>
          </Notice>
        ) : returned === 'canceled' ? (
          <Notice tone="warning">
            <p>The payment was not completed; nothing was charged.</p>
            <p>
              {restored ? 'Your items are back in your cart. ' : ''}
              Order #{order.number} is held for you until <HeldUntil order={order} />
              {canPayAgain ? ': pay it now, or change your cart and check out again.' : '.'}
            </p>
          </Notice>
        ) : (
          <p class="waiting" role="status">
            <span class="spinner" aria-hidden="true" /> Waiting for the payment to be confirmed…
          </p>
        )}
      </div>
      {order.status === 'pending' && canPayAgain && (returned === 'canceled' || returned === null) ? (
        <p class="order-actions">
          <button type="button" class="button-primary" onClick={() => void payAgain()}>
            Pay now
          </button>
          {restored ? (
            <Link to="/cart" class="button-secondary">
              View your cart
            </Link>
          ) : null}
        </p>
      ) : restored ? (
        <p>
          <Link to="/cart">View your cart</Link>
        </p>
      ) : null}
      {payError ? (
        <div class="notice notice-error" role="alert">
          <p>{payError}</p>
        </div>
      ) : null}
      {error && order.status === 'pending' ? (
        <p class="muted">The shop could not be reached just now; it keeps trying.</p>
      ) : null}
      {order.status === 'paid' && giftCardsOnly === false ? <Shipments order={order} /> : null}
      {order.status === 'paid' && giftCardsOnly ? (
        <section class="shipments" aria-labelledby="shipments-title">
          <h2 id="shipments-title">Delivery</h2>
          <p>Your gift card codes are emailed to {order.email}. Nothing is shipped.</p>
        </section>
      ) : null}
      {order.returns.length > 0 ? <Returns order={order} /> : null}
      <h2>Order #{order.number}</h2>
      <SummaryLines lines={order.lines} />
      <Totals
        amounts={order}
        promotions={order.promotions}
        tax={{ lines: order.taxLines, included: order.taxIncluded }}
        giftCards={{
          cards: order.giftCards,
          amountDue: order.amountDue,
          dueLabel: order.paidAt ? 'Amount charged' : 'Amount due',
        }}
      />
      {order.shippingAddress || order.shippingMethod ? (
        <dl class="review-choices">
          {order.shippingAddress ? (
            <div>
              <dt>Ships to</dt>
              <dd>
                <PostalAddress address={order.shippingAddress} />
              </dd>
            </div>
          ) : null}
          {order.shippingMethod ? (
            <div>
              <dt>Shipping</dt>
              <dd>
                {order.shippingMethod.name}
                {deliveryEstimate(order.shippingMethod) ? ` · ${deliveryEstimate(order.shippingMethod)}` : ''}
              </dd>
            </div>
          ) : null}
        </dl>
      ) : null}
      <p>
        <Link to="/">Continue shopping</Link>
      </p>
    </section>
  );
}

/** Where a paid order stands, in the buyer's words (decision `fulfilments`). */
function shippingState(order: Order): string {
  const live = order.fulfillments.filter((parcel) => parcel.status !== 'cancelled');
  if (order.fulfillmentStatus === 'unfulfilled') return 'We are preparing your order.';
  const delivered = live.length > 0 && live.every((parcel) => parcel.status === 'delivered');
  if (order.fulfillmentStatus === 'fulfilled')
    return delivered ? 'Your order was delivered.' : 'Your order is on its way.';
  return 'Part of your order is on its way; the rest follows.';
}

/** What happened to the buyer's money once refunds were made or started, in their words. */
function refundWords(order: Order): string | null {
  const { refunded, total } = order;
  if (refunded.amount > 0)
    return refunded.amount >= total.amount
      ? `Your payment of ${formatMoney(total.amount, total.currency)} was refunded.`
      : `${formatMoney(refunded.amount, refunded.currency)} of your payment was refunded.`;
  return order.paidAt ? 'A refund can take a few days to reach your account.' : null;
}

/** The order's parcels with their tracking, and where the order stands. */
function Shipments({ order }: { order: Order }) {
  const live = order.fulfillments.filter((parcel) => parcel.status !== 'cancelled');
  const title = (variantId: string) => {
    const line = order.lines.find((candidate) => candidate.variantId === variantId);
    return line ? `${line.title} (${line.variantLabel})` : 'An item';
  };
  return (
    <section class="shipments" aria-labelledby="shipments-title">
      <h2 id="shipments-title">Shipping</h2>
      <p>{shippingState(order)}</p>
      {live.length > 0 ? (
        <ol class="shipment-list">
          {live.map((parcel, index) => (
            <li key={parcel.id}>
              <p>
                <strong>Parcel {index + 1}</strong>:{' '}
                {parcel.status === 'delivered' && parcel.deliveredAt
                  ? `delivered ${day(parcel.deliveredAt)}`
                  : `shipped ${day(parcel.createdAt)}`}
                {parcel.carrier ? ` with ${parcel.carrier}` : ''}
              </p>
              <ul>
                {parcel.lines.map((line) => (
                  <li key={line.variantId}>
                    {line.quantity} × {title(line.variantId)}
                  </li>
                ))}
              </ul>
              {parcel.trackingUrl ? (
                <p>
                  <a href={parcel.trackingUrl} target="_blank" rel="noopener noreferrer">
                    Track parcel {index + 1}
                    {parcel.trackingNumber ? ` (${parcel.trackingNumber})` : ''}
                  </a>
                </p>
              ) : parcel.trackingNumber ? (
                <p>Tracking number: {parcel.trackingNumber}</p>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

/** Units the shop received back, and the refunds they brought. */
function Returns({ order }: { order: Order }) {
  const title = (variantId: string) => {
    const line = order.lines.find((candidate) => candidate.variantId === variantId);
    return line ? `${line.title} (${line.variantLabel})` : 'An item';
  };
  return (
    <section class="returns" aria-labelledby="returns-title">
      <h2 id="returns-title">Returns</h2>
      <ol class="shipment-list">
        {order.returns.map((received) => (
          <li key={received.id}>
            <p>
              <strong>Received {day(received.createdAt)}</strong>
              {received.refundAmount.amount > 0
                ? `: ${formatMoney(received.refundAmount.amount, received.refundAmount.currency)} refunded`
                : ''}
            </p>
            <ul>
              {received.lines.map((line) => (
                <li key={line.variantId}>
                  {line.quantity} × {title(line.variantId)}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {order.refunded.amount > 0 ? (
        <p>
          Refunded so far: {formatMoney(order.refunded.amount, order.refunded.currency)} of{' '}
          {formatMoney(order.total.amount, order.total.currency)}. A refund can take a few days to reach your
          account.
        </p>
      ) : null}
    </section>
  );
}
