/**
 * The privacy log (owners and admins): every export of a customer's data and every erasure, by a
 * staff member from the console or the API, or by the customer from the shop; newest first, with
 * "Load more". An erased customer's entries keep their id only.
 */
import { Link } from 'react-router';
import { usePrivacyLog, type PrivacyLogEntry } from '../../data/customers.ts';
import { DataTable, PageHeader, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { QueryView } from '../../ui/queries.tsx';

function Who({ entry }: { entry: PrivacyLogEntry }) {
  if (entry.actor === 'customer') return <>The customer</>;
  return <>{entry.staffEmail ?? 'A staff member'}</>;
}

export function PrivacyLog() {
  const log = usePrivacyLog();
  return (
    <>
      <PageHeader title="Privacy log" actions={<Link to="/customers">All customers</Link>} />
      <p className="muted">Every export of a customer&apos;s data and every erasure, newest first.</p>
      <QueryView
        query={log}
        loading="Loading the privacy log…"
        keepData
        empty={<p>No customer&apos;s data has been exported or erased yet.</p>}
        isEmpty={(data) => data.pages.every((page) => page.items.length === 0)}
      >
        {(data) => {
          const entries = data.pages.flatMap((page) => page.items);
          return (
            <>
              <DataTable
                wrap="orders-table-wrap"
                className="row-headed"
                caption="Exports and erasures, newest first"
                columns={['Date', 'Action', 'Customer', 'By']}
                busy={log.isFetching}
              >
                {entries.map((entry) => (
                  <tr key={entry.id}>
                    <th scope="row">
                      <time dateTime={entry.createdAt}>{formatDateTime(entry.createdAt)}</time>
                    </th>
                    <td>
                      <StatusBadge status={entry.action === 'erase' ? 'erased' : 'exported'} />
                    </td>
                    <td>
                      {entry.action === 'erase' ? (
                        <code>{entry.customerId}</code>
                      ) : (
                        <Link to={`/customers/${entry.customerId}`}>
                          <code>{entry.customerId}</code>
                        </Link>
                      )}
                    </td>
                    <td>
                      <Who entry={entry} />
                    </td>
                  </tr>
                ))}
              </DataTable>
              {log.hasNextPage ? (
                <div className="load-more">
                  <button
                    type="button"
                    onClick={() => void log.fetchNextPage()}
                    disabled={log.isFetchingNextPage}
                  >
                    {log.isFetchingNextPage ? 'Loading more…' : 'Load more'}
                  </button>
                </div>
              ) : null}
            </>
          );
        }}
      </QueryView>
    </>
  );
}
