/**
 * The orders list: search by number, email or name; payment status and fulfilment filters; cursor
 * pages.
 */
import { Link } from 'react-router';
import { useOrders, type OrderFulfillmentStatus } from '../../data/orders.ts';
import { DataTable, Notice, PageHeader, Pager, SelectField, useCursorPager } from '../../ui/components.tsx';
import { OrderRow } from '../../ui/order-badges.tsx';
import { QueryView } from '../../ui/queries.tsx';
import { SearchForm, useUrlFilter, useUrlParam, useUrlSearch } from '../../ui/search.tsx';
import { ExportCsvButton } from '../imports-parts.tsx';

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
      <PageHeader
        title="Orders"
        actions={
          <>
            <ExportCsvButton kind="orders" />
            <Link className="button primary" to="/draft-orders/new">
              Create order
            </Link>
          </>
        }
      />
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
              <OrderRow key={order.id} order={order}>
                <td className="email">
                  {order.shippingAddress ? <div>{order.shippingAddress.name}</div> : null}
                  {order.email}
                </td>
              </OrderRow>
            ))}
          </DataTable>
          <Pager pager={pager} nextCursor={data.nextCursor} />
        </>
      )}
    </QueryView>
  );
}
