/**
 * The draft orders list: newest first, 20 a page, by status (open, invoiced, completed), each with
 * its customer, items, total (the draft read and priced by the server, row by row), last change and
 * the order it made. Empty, it says what drafts are for.
 */
import { Link, useLocation } from 'react-router';
import {
  useDraftOrder,
  useDraftOrders,
  type DraftOrderStatus,
  type DraftOrderSummary,
} from '../../data/draft-orders.ts';
import { Notice, PageHeader, SelectField, useCursorPager } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { PagedTable } from '../../ui/queries.tsx';
import { StatusBadge } from '../../ui/components.tsx';
import { useUrlFilter } from '../../ui/search.tsx';

const STATUSES = ['open', 'invoiced', 'completed'] as const;

const STATUS_OPTIONS = [
  { value: '', label: 'Any' },
  { value: 'open', label: 'Open' },
  { value: 'invoiced', label: 'Invoiced (awaiting payment)' },
  { value: 'completed', label: 'Completed (paid)' },
];

/** A row's total: the draft priced now by the server (a placed draft's order keeps what it charged). */
function DraftTotal({ id }: { id: string }) {
  const draft = useDraftOrder(id);
  if (draft.data) {
    const { total } = draft.data.totals;
    return <>{formatMoney(total.amount, total.currency)}</>;
  }
  return <span className="muted">{draft.isError ? '—' : 'Pricing…'}</span>;
}

function DraftRow({ draft }: { draft: DraftOrderSummary }) {
  return (
    <tr>
      <th scope="row">
        <Link to={`/draft-orders/${draft.id}`}>
          Draft of {formatDateTime(draft.createdAt)}
          <span className="visually-hidden"> for {draft.email}</span>
        </Link>
      </th>
      <td className="email">{draft.email}</td>
      <td className="num">{draft.lineCount}</td>
      <td className="num">
        <DraftTotal id={draft.id} />
      </td>
      <td>
        <StatusBadge status={draft.status} />
      </td>
      <td>{formatDateTime(draft.updatedAt)}</td>
      <td>
        {draft.orderId ? (
          <Link to={`/orders/${draft.orderId}`}>
            View order<span className="visually-hidden"> of the draft for {draft.email}</span>
          </Link>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
    </tr>
  );
}

export function DraftOrdersList() {
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const [status, setStatus] = useUrlFilter<DraftOrderStatus>('status', STATUSES);
  return (
    <>
      <PageHeader
        title="Draft orders"
        actions={
          <Link className="button primary" to="/draft-orders/new">
            Create order
          </Link>
        }
      >
        <p className="muted">
          Orders staff put together for a customer, priced as checkout prices them, then invoiced with a link
          to pay or marked as paid.
        </p>
      </PageHeader>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <form className="filters" aria-label="Draft orders" onSubmit={(event) => event.preventDefault()}>
        <SelectField
          label="Status"
          options={STATUS_OPTIONS}
          value={status ?? ''}
          onChange={(event) => setStatus(event.target.value)}
        />
      </form>
      {/* Another status starts again at its first page (a cursor belongs to its list). */}
      <DraftPages key={status ?? 'all'} status={status} />
    </>
  );
}

function DraftPages({ status }: { status: DraftOrderStatus | undefined }) {
  const pager = useCursorPager();
  const drafts = useDraftOrders({
    ...(status ? { status } : {}),
    ...(pager.cursor ? { cursor: pager.cursor } : {}),
  });
  const empty = status ? (
    <p>No {status} draft order.</p>
  ) : (
    <>
      <p>No draft orders yet.</p>
      <p>
        A draft is an order you put together for a customer: a phone order, a wholesale or trade deal, a
        quote. The server prices it as checkout would (the customer’s prices, promotions, tax, shipping); then
        send an invoice (the customer gets a link to pay, the stock is held meanwhile) or mark it paid when
        the money came another way (bank transfer, cash).
      </p>
      <p>
        <Link className="button primary" to="/draft-orders/new">
          Create a draft order
        </Link>
      </p>
    </>
  );
  return (
    <PagedTable
      query={drafts}
      pager={pager}
      loading="Loading draft orders…"
      empty={empty}
      wrap="orders-table-wrap"
      className="orders-table row-headed draft-orders-table"
      caption={`${status ? STATUS_OPTIONS.find((o) => o.value === status)?.label : 'Draft orders'}, newest first`}
      columns={[
        'Draft',
        'Customer',
        { label: 'Items', num: true },
        { label: 'Total', num: true },
        'Status',
        'Updated',
        'Order',
      ]}
      busy={drafts.isFetching}
    >
      {(draft) => <DraftRow key={draft.id} draft={draft} />}
    </PagedTable>
  );
}
