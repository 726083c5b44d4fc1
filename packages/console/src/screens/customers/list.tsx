/**
 * The customers list: search by email or name and the account filter (accounts, guests, all), both
 * kept in the address (`/admin/customers?q=ada&account=guests`) so back, forward, reload and a
 * shared link show the same list; newest first, 25 at a time with "Load more". A new search or
 * filter starts again at its first page.
 */
import { Link, useLocation } from 'react-router';
import { useStaffSession } from '../../data/staff.ts';
import { useCustomers, type AdminCustomer, type CustomerListQuery } from '../../data/customers.ts';
import { DataTable, Notice, PageHeader, SelectField } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { formatMoney } from '../../ui/money.ts';
import { QueryView } from '../../ui/queries.tsx';
import { SearchForm, useUrlFilter, useUrlSearch } from '../../ui/search.tsx';
import { ExportCsvButton, ImportLink } from '../imports-parts.tsx';

const ACCOUNT_FILTERS = ['accounts', 'guests'] as const;
type AccountFilter = (typeof ACCOUNT_FILTERS)[number];

const ACCOUNT_OPTIONS = [
  { value: '', label: 'All customers' },
  { value: 'accounts', label: 'With an account' },
  { value: 'guests', label: 'Guests (no account)' },
];

/** The list's query for the search and the filter the address has. */
function listQuery(q: string, account: AccountFilter | undefined): CustomerListQuery {
  return {
    ...(q ? { q } : {}),
    ...(account ? { hasAccount: account === 'accounts' } : {}),
  };
}

export function CustomersList() {
  const search = useUrlSearch();
  const { q } = search;
  const [account, setAccount] = useUrlFilter<AccountFilter>('account', ACCOUNT_FILTERS);
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const session = useStaffSession();
  const admin = session.data !== undefined && session.data.staff.role !== 'staff';

  return (
    <>
      <PageHeader
        title="Customers"
        actions={
          admin ? (
            <>
              <Link to="/customers/privacy-log">Privacy log</Link>
              <ImportLink kind="customers" />
              <ExportCsvButton kind="customers" />
            </>
          ) : undefined
        }
      />
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <SearchForm
        label="Customers"
        placeholder="Email or name"
        hint="With an @, emails starting with it; otherwise part of a name or email."
        search={search}
      >
        <SelectField
          label="Show"
          options={ACCOUNT_OPTIONS}
          value={account ?? ''}
          onChange={(event) => setAccount(event.target.value)}
        />
      </SearchForm>
      <CustomerPages key={`${q}\n${account ?? 'all'}`} q={q} account={account} />
    </>
  );
}

function emptyText(q: string, account: AccountFilter | undefined): string {
  const who =
    account === 'accounts'
      ? 'customers with an account'
      : account === 'guests'
        ? 'guest customers'
        : 'customers';
  if (q) return `No ${who} match “${q}”. Try the start of an email, or part of a name.`;
  if (account === 'accounts') return 'No customer has created an account in the shop yet.';
  if (account === 'guests') return 'No guest customers: everyone who ordered has an account.';
  return 'No customers yet. A customer is recorded at their first checkout, or when they create an account in the shop.';
}

function CustomerRow({ customer }: { customer: AdminCustomer }) {
  return (
    <tr>
      <th scope="row" className="email">
        <Link to={`/customers/${customer.id}`}>{customer.email}</Link>
      </th>
      <td>{customer.name ?? <span className="muted">—</span>}</td>
      <td className="num">{customer.ordersCount}</td>
      <td className="num">{formatMoney(customer.totalSpent.amount, customer.totalSpent.currency)}</td>
      <td>
        {customer.lastOrderAt ? (
          <time dateTime={customer.lastOrderAt}>{formatDateTime(customer.lastOrderAt)}</time>
        ) : (
          <span className="muted">None</span>
        )}
      </td>
      <td>{customer.hasAccount ? 'Yes' : 'No'}</td>
    </tr>
  );
}

function CustomerPages({ q, account }: { q: string; account: AccountFilter | undefined }) {
  const customers = useCustomers(listQuery(q, account));
  const filterLabel = ACCOUNT_OPTIONS.find((option) => option.value === (account ?? ''))?.label;
  return (
    <QueryView
      query={customers}
      loading="Loading customers…"
      keepData
      empty={<p>{emptyText(q, account)}</p>}
      isEmpty={(data) => data.pages.every((page) => page.items.length === 0)}
    >
      {(data) => {
        const items = data.pages.flatMap((page) => page.items);
        return (
          <>
            <DataTable
              wrap="orders-table-wrap"
              className="customers-table row-headed"
              caption={
                <>
                  {filterLabel}
                  {q ? ` matching “${q}”` : ''}, newest first
                </>
              }
              columns={[
                'Email',
                'Name',
                { label: 'Paid orders', num: true },
                { label: 'Total spent', num: true },
                'Last order',
                'Account',
              ]}
              busy={customers.isFetching}
            >
              {items.map((customer) => (
                <CustomerRow key={customer.id} customer={customer} />
              ))}
            </DataTable>
            <div className="load-more">
              <p className="muted" role="status">
                {items.length} {items.length === 1 ? 'customer' : 'customers'} shown
                {customers.hasNextPage ? '' : ', all of them'}.
              </p>
              {customers.hasNextPage ? (
                <button
                  type="button"
                  onClick={() => void customers.fetchNextPage()}
                  disabled={customers.isFetchingNextPage}
                >
                  {customers.isFetchingNextPage ? 'Loading more…' : 'Load more'}
                </button>
              ) : null}
            </div>
          </>
        );
      }}
    </QueryView>
  );
}
