/**
 * One customer: their profile, totals, groups (groups.tsx: the store's groups to tick), saved
 * addresses and newest orders (each linking to its order's page), and for the store's owners and admins the privacy actions: "Export data" (the
 * JSON the customer is entitled to, downloaded as `customer-<id>.json`) and "Erase customer"
 * (erase.tsx).
 */
import { formatAddress } from '@storefront/address';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import {
  CUSTOMER_ORDERS_SHOWN,
  useCustomer,
  useExportCustomer,
  type CustomerAddress,
  type CustomerDetail as Customer,
  type CustomerExport,
} from '../../data/customers.ts';
import { useStaffSession } from '../../data/staff.ts';
import { DataTable, ErrorBanner, Loading, Notice, PageHeader, StatusBadge } from '../../ui/components.tsx';
import { formatDate, formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { errorMessage, isStatus } from '../../ui/problems.ts';
import { OrderRow } from '../../ui/order-badges.tsx';
import { EraseSection } from './erase.tsx';
import { CustomerGroupsPanel } from './groups.tsx';

/** Saves the export as `customer-<id>.json` through the browser's download (nothing leaves the page). */
function saveExport(data: CustomerExport, id: string): void {
  const blob = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = `customer-${id}.json`;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the link's click; the address may go once it has been read.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function Profile({ customer }: { customer: Customer }) {
  return (
    <section className="panel orders-panel" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <dl className="customer-facts">
        <dt>Email</dt>
        <dd>
          <a href={`mailto:${customer.email}`}>{customer.email}</a>
        </dd>
        <dt>Name</dt>
        <dd>{customer.name ?? <span className="muted">Not given</span>}</dd>
        <dt>Phone</dt>
        <dd>
          {customer.phone ? (
            <a href={`tel:${customer.phone.replace(/[^\d+]/g, '')}`}>{customer.phone}</a>
          ) : (
            <span className="muted">Not given</span>
          )}
        </dd>
        <dt>Account</dt>
        <dd>{customer.hasAccount ? 'Yes: signs in to the shop' : 'No: a guest who checked out'}</dd>
        <dt>Marketing emails</dt>
        <dd>{customer.acceptsMarketing ? 'Accepts' : 'Does not accept'}</dd>
        <dt>Customer since</dt>
        <dd>
          <time dateTime={customer.createdAt}>{formatDate(customer.createdAt)}</time>
        </dd>
      </dl>
    </section>
  );
}

function Totals({ customer }: { customer: Customer }) {
  return (
    <section className="panel orders-panel" aria-labelledby="totals-title">
      <h2 id="totals-title">Totals</h2>
      <dl className="customer-facts">
        <dt>Paid orders</dt>
        <dd>{customer.ordersCount}</dd>
        <dt>Total spent</dt>
        <dd>{formatMoney(customer.totalSpent.amount, customer.totalSpent.currency)}</dd>
        <dt>Last order</dt>
        <dd>
          {customer.lastOrderAt ? (
            <time dateTime={customer.lastOrderAt}>{formatDateTime(customer.lastOrderAt)}</time>
          ) : (
            <span className="muted">None</span>
          )}
        </dd>
        <dt>Not yet shipped</dt>
        <dd>{customer.openOrders}</dd>
      </dl>
    </section>
  );
}

function Address({ address }: { address: CustomerAddress }) {
  return (
    <li>
      {address.isDefault ? <StatusBadge status="default" /> : null}
      <address className="postal-address">
        {formatAddress(address).map((line, index) => (
          <span key={index}>{line}</span>
        ))}
        {address.phone ? <span className="muted">Phone {address.phone}</span> : null}
      </address>
    </li>
  );
}

function Addresses({ customer }: { customer: Customer }) {
  return (
    <section className="panel orders-panel" aria-labelledby="addresses-title">
      <h2 id="addresses-title">Addresses</h2>
      {customer.addresses.length === 0 ? (
        <p className="muted">No saved address.</p>
      ) : (
        <ul className="orders-plain-list customer-addresses">
          {customer.addresses.map((address) => (
            <Address key={address.id} address={address} />
          ))}
        </ul>
      )}
    </section>
  );
}

function Orders({ customer }: { customer: Customer }) {
  const shown = customer.orders.length;
  return (
    <section className="panel orders-panel" aria-labelledby="customer-orders-title">
      <h2 id="customer-orders-title">Orders</h2>
      {shown === 0 ? (
        <p className="muted">No orders.</p>
      ) : (
        <DataTable
          wrap="orders-table-wrap"
          className="orders-table row-headed"
          caption={`${customer.email}'s orders, newest first`}
          columns={['Order', 'Date', { label: 'Total', num: true }, 'Status', 'Fulfilment']}
        >
          {customer.orders.map((order) => (
            <OrderRow key={order.id} order={order} />
          ))}
        </DataTable>
      )}
      {shown >= CUSTOMER_ORDERS_SHOWN ? (
        <p className="muted">
          Their newest {shown} orders.{' '}
          <Link to={`/orders?customer=${customer.id}`}>See all their orders</Link>
        </p>
      ) : null}
    </section>
  );
}

/** Export and erase, for owners and admins; staff are told who can. */
function Privacy({ customer }: { customer: Customer }) {
  const session = useStaffSession();
  const [exported, setExported] = useState<string | null>(null);
  const exportData = useExportCustomer(customer.id, {
    onSuccess: (data) => {
      const file = `customer-${customer.id}.json`;
      saveExport(data, customer.id);
      setExported(`Exported ${customer.email}'s data as ${file}.`);
    },
  });
  if (!session.data) return null;
  if (session.data.staff.role === 'staff') {
    return (
      <section className="panel orders-panel" aria-labelledby="privacy-title">
        <h2 id="privacy-title">Privacy</h2>
        <p className="muted">
          Only the store&apos;s owners and admins can export a customer&apos;s data or erase a customer.
        </p>
      </section>
    );
  }
  return (
    <>
      <section className="panel orders-panel" aria-labelledby="privacy-title">
        <h2 id="privacy-title">Export data</h2>
        <p>
          Everything the store holds about this customer, as JSON: the profile, addresses, orders, emails sent
          and sign-in sessions. The export is recorded in the{' '}
          <Link to="/customers/privacy-log">privacy log</Link>.
        </p>
        {exported ? <Notice tone="success">{exported}</Notice> : null}
        {exportData.isError ? <ErrorBanner error={exportData.error} /> : null}
        <button
          type="button"
          onClick={() => {
            setExported(null);
            exportData.mutate();
          }}
          disabled={exportData.isPending}
        >
          {exportData.isPending ? 'Exporting…' : 'Export data'}
        </button>
      </section>
      <EraseSection customer={customer} />
    </>
  );
}

export function CustomerDetail() {
  const { id = '' } = useParams();
  const customer = useCustomer(id);

  if (!customer.data) {
    if (!customer.isError) {
      return (
        <>
          <PageHeader title="Customer" />
          <Loading label="Loading the customer…" />
        </>
      );
    }
    const missing = isStatus(customer.error, 404) || isStatus(customer.error, 400);
    return (
      <>
        <PageHeader title={missing ? 'Customer not found' : 'Customer'} />
        {missing ? (
          <p>
            No customer with this address in your store: they may have been erased.{' '}
            <Link to="/customers">Back to all customers</Link>
          </p>
        ) : (
          <ErrorBanner error={customer.error} onRetry={() => void customer.refetch()} />
        )}
      </>
    );
  }

  const data = customer.data;
  return (
    <>
      <PageHeader title={data.name ?? data.email} actions={<Link to="/customers">All customers</Link>}>
        <p className="order-meta">
          <StatusBadge status={data.hasAccount ? 'account' : 'guest'} />
          {data.name ? <span className="muted">{data.email}</span> : null}
        </p>
      </PageHeader>
      {customer.isError ? (
        <Notice tone="warning">Could not refresh this customer: {errorMessage(customer.error)}</Notice>
      ) : null}
      <div className="order-layout">
        <div>
          <Orders customer={data} />
          <Addresses customer={data} />
        </div>
        <div>
          <Profile customer={data} />
          <Totals customer={data} />
          <CustomerGroupsPanel customer={data} />
          <Privacy customer={data} />
        </div>
      </div>
    </>
  );
}
