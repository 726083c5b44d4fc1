/**
 * Orders: the list (search by number, email or name; payment status and fulfilment filters; cursor
 * pages) and one order (lines, totals, shipments with their tracking and the form that fulfils
 * items, returns and the form that records one, addresses and shipping method, payments, refunds,
 * timeline, refund form, cancellation).
 */
import { formatAddress } from '@storefront/address';
import { StorefrontError, type AdminOrder } from '@storefront/client';
import { countryName } from '@storefront/address';
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import {
  useCancelOrder,
  useOrder,
  useOrders,
  useRefundOrder,
  type OrderFulfillmentStatus,
} from '../data/orders.ts';
import { useStaffSession } from '../data/staff.ts';
import {
  DataTable,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  Pager,
  SelectField,
  StatusBadge,
  useCursorPager,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { MoneyField } from '../ui/money-field.tsx';
import { formatMoney } from '../ui/money.ts';
import { errorMessage, isStatus, messageAt } from '../ui/problems.ts';
import { QueryView } from '../ui/queries.tsx';
import { SearchForm, useUrlFilter, useUrlParam, useUrlSearch } from '../ui/search.tsx';
import { deliveryEstimate } from './shipping-parts.ts';
import {
  fulfillmentBadge,
  orderBadges,
  orderTimeline,
  ReasonField,
  refundableAmount,
  returnsOf,
  Timeline,
} from './orders-parts.tsx';
import { CancelSection } from './orders-cancel.tsx';
import { OrderReturns } from './orders-returns.tsx';
import { OrderShipments } from './orders-shipments.tsx';
import './orders.css';

const STATUSES = ['pending', 'paid', 'expired', 'cancelled'] as const;
type OrderStatus = (typeof STATUSES)[number];

/** The "Payment" filter: the order's status (awaiting payment, paid, expired unpaid, cancelled). */
const STATUS_OPTIONS = [
  { value: '', label: 'Any' },
  { value: 'pending', label: 'Pending payment' },
  { value: 'paid', label: 'Paid' },
  { value: 'expired', label: 'Expired (unpaid)' },
  { value: 'cancelled', label: 'Cancelled' },
];

const FULFILLMENT_STATUSES = ['unfulfilled', 'partial', 'fulfilled'] as const;

const FULFILLMENT_OPTIONS = [
  { value: '', label: 'Any' },
  { value: 'unfulfilled', label: 'Unfulfilled' },
  { value: 'partial', label: 'Partially fulfilled' },
  { value: 'fulfilled', label: 'Fulfilled' },
];

const EMPTY_TEXT: Record<string, string> = {
  '': 'No orders yet. Orders appear here when buyers check out.',
  pending: 'No order is awaiting payment.',
  paid: 'No paid order yet.',
  expired: 'No expired order.',
  cancelled: 'No cancelled order.',
};

function Badges({ order }: { order: Pick<AdminOrder, 'status' | 'oversold' | 'refunded' | 'total'> }) {
  return (
    <span className="order-badges">
      {orderBadges(order).map((badge) => (
        <StatusBadge key={badge} status={badge} />
      ))}
    </span>
  );
}

export function OrdersList() {
  const search = useUrlSearch();
  const { q } = search;
  const [status, setStatus] = useUrlFilter<OrderStatus>('status', STATUSES);
  const [fulfillment, setFulfillment] = useUrlFilter<OrderFulfillmentStatus>(
    'fulfillment',
    FULFILLMENT_STATUSES,
  );
  // A customer's orders (`?customer=<id>`, from the customer's page).
  const [customerId, setCustomerId] = useUrlParam('customer');

  return (
    <>
      <PageHeader title="Orders" />
      {customerId ? (
        <Notice>
          <p>
            Showing one customer&apos;s orders (<Link to={`/customers/${customerId}`}>the customer</Link>
            ).{' '}
            <button type="button" className="link" onClick={() => setCustomerId('')}>
              Show every customer&apos;s orders
            </button>
          </p>
        </Notice>
      ) : null}
      <SearchForm
        label="Orders"
        placeholder="Order number, email or name"
        hint="#1042 or 1042 finds that order; with an @, emails starting with it."
        search={search}
      >
        <SelectField
          label="Payment"
          options={STATUS_OPTIONS}
          value={status ?? ''}
          onChange={(event) => setStatus(event.target.value)}
        />
        <SelectField
          label="Fulfilment"
          options={FULFILLMENT_OPTIONS}
          value={fulfillment ?? ''}
          onChange={(event) => setFulfillment(event.target.value)}
        />
      </SearchForm>
      {/* A new search or filter starts again at its first page (a cursor belongs to its search). */}
      <OrdersPages
        key={`${q}\n${status ?? 'all'}\n${fulfillment ?? 'all'}\n${customerId}`}
        q={q}
        status={status}
        fulfillment={fulfillment}
        customerId={customerId}
      />
    </>
  );
}

function OrdersPages({
  q,
  status,
  fulfillment,
  customerId,
}: {
  q: string;
  status: OrderStatus | undefined;
  fulfillment: OrderFulfillmentStatus | undefined;
  /** One customer's orders ('' for everyone's). */
  customerId: string;
}) {
  const pager = useCursorPager();
  const orders = useOrders({
    ...(customerId ? { customerId } : {}),
    ...(status ? { status } : {}),
    ...(fulfillment ? { fulfillmentStatus: fulfillment } : {}),
    ...(pager.cursor ? { cursor: pager.cursor } : {}),
    limit: 20,
    ...(q ? { q } : {}),
  });
  const statusLabel = status ? STATUS_OPTIONS.find((option) => option.value === status)?.label : 'All orders';
  const fulfillmentLabel = fulfillment
    ? FULFILLMENT_OPTIONS.find((option) => option.value === fulfillment)?.label.toLowerCase()
    : undefined;
  let empty;
  if (q) {
    empty = (
      <p>
        No orders match “{q}”{status ? ` with the status ${status}` : ''}
        {fulfillmentLabel ? ` that are ${fulfillmentLabel}` : ''}. Try a number, the start of an email, or
        part of a name.
      </p>
    );
  } else if (fulfillmentLabel) {
    empty = (
      <p>
        No {status ? `${status} ` : ''}order is {fulfillmentLabel}.
      </p>
    );
  } else if (customerId) {
    empty = <p>This customer has no {status ? `${status} ` : ''}orders.</p>;
  } else {
    empty = <p>{EMPTY_TEXT[status ?? '']}</p>;
  }

  return (
    <QueryView query={orders} loading="Loading orders…" keepData empty={empty}>
      {(data) => (
        <>
          <DataTable
            wrap="orders-table-wrap"
            className="orders-table row-headed"
            caption={
              <>
                {statusLabel}
                {customerId ? ' of one customer' : ''}
                {fulfillmentLabel ? `, ${fulfillmentLabel}` : ''}
                {q ? ` matching “${q}”` : ''}, newest first
              </>
            }
            columns={['Order', 'Date', 'Customer', { label: 'Total', num: true }, 'Status', 'Fulfilment']}
            busy={orders.isFetching}
          >
            {data.items.map((order) => (
              <tr key={order.id}>
                <th scope="row">
                  <Link to={`/orders/${order.id}`}>#{order.number}</Link>
                </th>
                <td>
                  <time dateTime={order.createdAt}>{formatDateTime(order.createdAt)}</time>
                </td>
                <td className="email">
                  {order.shippingAddress ? <div>{order.shippingAddress.name}</div> : null}
                  {order.email}
                </td>
                <td className="num">{formatMoney(order.total.amount, order.total.currency)}</td>
                <td>
                  <Badges order={order} />
                </td>
                <td>
                  <StatusBadge status={fulfillmentBadge(order.fulfillmentStatus)} />
                </td>
              </tr>
            ))}
          </DataTable>
          <Pager pager={pager} nextCursor={data.nextCursor} />
        </>
      )}
    </QueryView>
  );
}

// ---- One order ----

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

function Lines({ order }: { order: AdminOrder }) {
  const currency = order.total.currency;
  const money = (amount: number) => formatMoney(amount, currency);
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
        <dt>Tax</dt>
        <dd>{money(order.tax.amount)}</dd>
        <dt>Shipping</dt>
        <dd>{money(order.shipping.amount)}</dd>
        <dt className="total">Total</dt>
        <dd className="total">{money(order.total.amount)}</dd>
        {order.refunded.amount > 0 ? (
          <>
            <dt>Refunded</dt>
            <dd>−{money(order.refunded.amount)}</dd>
            <dt>Net</dt>
            <dd>{money(order.total.amount - order.refunded.amount)}</dd>
          </>
        ) : null}
      </dl>
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

function Refunds({ order }: { order: AdminOrder }) {
  if (order.refunds.length === 0) return null;
  const returned = new Set(returnsOf(order).map((back) => back.refundId));
  return (
    <section className="panel orders-panel" aria-labelledby="refunds-title">
      <h2 id="refunds-title">Refunds</h2>
      <ul className="orders-plain-list refunds">
        {order.refunds.map((refund) => (
          <li key={refund.id}>
            <StatusBadge status={refund.status} />{' '}
            <strong>{formatMoney(refund.amount.amount, refund.amount.currency)}</strong>{' '}
            <span className="muted">
              requested <time dateTime={refund.createdAt}>{formatDateTime(refund.createdAt)}</time>
              {refund.settledAt ? (
                <>
                  , {refund.status === 'succeeded' ? 'settled' : 'closed'}{' '}
                  <time dateTime={refund.settledAt}>{formatDateTime(refund.settledAt)}</time>
                </>
              ) : null}
            </span>
            {refund.note ? <div>Reason: {refund.note}</div> : null}
            {refund.reason === 'expired_out_of_stock' ? (
              <div className="muted">Automatic: paid after the order expired, and the stock was gone.</div>
            ) : null}
            {refund.reason === 'order_cancelled' ? (
              <div className="muted">Made by the order&apos;s cancellation.</div>
            ) : null}
            {returned.has(refund.id) ? <div className="muted">For returned items (see Returns).</div> : null}
            {refund.status === 'pending' ? (
              <div className="muted">Waiting for the payment provider to confirm it.</div>
            ) : null}
            {refund.lastError && refund.status !== 'succeeded' ? (
              <div className="field-error">Provider: {refund.lastError}</div>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function RefundForm({
  order,
  refundable,
  done,
  setDone,
}: {
  order: AdminOrder;
  refundable: number;
  /** The last refund made here, kept by the section (it outlives the form once nothing is left). */
  done: string | null;
  setDone: (text: string | null) => void;
}) {
  const currency = order.total.currency;
  const [amount, setAmount] = useState<number | null>(null);
  const [typing, setTyping] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const amountBox = useRef<HTMLDivElement>(null);
  const titleId = useId();

  // Done or refused, the order is read again (the form's `max` is then what is left).
  const refund = useRefundOrder(order.id, {
    onSuccess: (started) => {
      setDone(
        `Refund of ${formatMoney(started.refund.amount.amount, started.refund.amount.currency)} requested. It settles when the payment provider confirms it.`,
      );
      setAmount(null);
      setReason('');
      setTried(false);
    },
  });

  const max = formatMoney(refundable, currency);
  let serverProblem: string | undefined;
  if (refund.error instanceof StorefrontError && refund.error.title === 'refund_too_large') {
    // Someone refunded meanwhile: the order was fetched again, and `max` is what is left now.
    serverProblem = `That is more than can be refunded now: at most ${max} is left on this order.`;
  } else {
    serverProblem = messageAt(refund.error, '/amount');
  }
  let problem: string | undefined;
  if (typing) problem = typing;
  else if (serverProblem) problem = serverProblem;
  else if (amount !== null && amount > refundable)
    problem = `That is more than can be refunded: at most ${max} is left on this order.`;
  else if (amount === 0) problem = 'Enter an amount greater than zero.';
  else if (amount === null && tried) problem = 'Enter the amount to refund.';
  const reasonProblem = messageAt(refund.error, '/reason');
  const fieldLevel = Boolean(serverProblem ?? reasonProblem);

  function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    setDone(null);
    if ((problem && !serverProblem) || amount === null || amount <= 0 || amount > refundable) {
      amountBox.current?.querySelector('input')?.focus();
      return;
    }
    const note = reason.trim();
    refund.mutate({ amount, ...(note ? { reason: note } : {}) });
  }

  return (
    <section className="panel orders-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Refund</h2>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <form onSubmit={submit} noValidate>
        <div ref={amountBox}>
          <MoneyField
            label="Amount to refund"
            currency={currency}
            value={amount}
            optional
            name="amount"
            hint={`At most ${max}: the amount paid minus refunds made or pending.`}
            error={problem}
            onChange={(next, parseProblem) => {
              // On a typing problem the field keeps the last good amount; the problem blocks the refund.
              setTyping(parseProblem);
              setAmount(next);
              if (refund.isError) refund.reset();
            }}
          />
        </div>
        <div className="actions quick-amounts">
          <button
            type="button"
            className="link"
            onClick={() => {
              setTyping(null);
              setAmount(refundable);
              if (refund.isError) refund.reset();
            }}
          >
            Refund everything left ({max})
          </button>
        </div>
        <ReasonField label="Reason (optional)" value={reason} error={reasonProblem} onChange={setReason} />
        {refund.isError && !fieldLevel ? <ErrorBanner error={refund.error} /> : null}
        <button type="submit" className="primary" disabled={refund.isPending}>
          {refund.isPending
            ? 'Refunding…'
            : amount !== null && amount > 0 && amount <= refundable
              ? `Refund ${formatMoney(amount, currency)}`
              : 'Refund'}
        </button>
      </form>
    </section>
  );
}

function RefundSection({ order }: { order: AdminOrder }) {
  const session = useStaffSession();
  const [done, setDone] = useState<string | null>(null);
  const refundable = refundableAmount(order);
  const captured = order.payments.some((payment) => payment.status === 'succeeded');
  if (!captured) return null;
  if (session.data?.staff.role === 'staff') {
    return (
      <section className="panel orders-panel" aria-labelledby="refund-title">
        <h2 id="refund-title">Refund</h2>
        <p className="muted">Only the store&apos;s owners and admins can refund orders.</p>
      </section>
    );
  }
  if (refundable === 0) {
    return (
      <section className="panel orders-panel" aria-labelledby="refund-title">
        <h2 id="refund-title">Refund</h2>
        {done ? <Notice tone="success">{done}</Notice> : null}
        <p className="muted">Everything paid on this order is refunded or being refunded.</p>
      </section>
    );
  }
  return <RefundForm order={order} refundable={refundable} done={done} setDone={setDone} />;
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
