/**
 * Price lists (docs/markets.md "Price lists", decision `price-lists`): sales and overrides of
 * variants' prices for a while, in some markets, for some customer groups. The list (type, who it
 * is for, dates, whether it is in force, how many prices), the form that adds or changes one with
 * its prices pasted as CSV (list-form.tsx), and deleting one after a confirmation. Staff may look;
 * owners and admins change them.
 */
import { Link } from 'react-router';
import { useCustomerGroups, type CustomerGroup } from '../../data/customer-groups.ts';
import { useMarkets, type Market } from '../../data/markets.ts';
import {
  useDeletePriceList,
  usePriceList,
  usePriceLists,
  type PriceListSummary,
} from '../../data/price-lists.ts';
import { useStoreSettings } from '../../data/settings.ts';
import { useStaffSession } from '../../data/staff.ts';
import { ACTIONS, DataTable, ErrorBanner, Loading, PageHeader, StatusBadge } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { ListBanners, RowActions, useListEditor, type Editing } from '../../ui/list-editor.tsx';
import { QueryView, readingForForm } from '../../ui/queries.tsx';
import { priceListStatus } from './draft.ts';
import { PriceListForm } from './list-form.tsx';
import '../orders.css';
import '../markets/markets.css';
import './price-lists.css';

/** The names of the ids a list is limited to, or what none means. */
function namesOf(ids: readonly string[], all: readonly { id: string; name: string }[], none: string): string {
  if (ids.length === 0) return none;
  return ids.map((id) => all.find((each) => each.id === id)?.name ?? 'a deleted one').join(', ');
}

export function PriceLists() {
  const session = useStaffSession();
  const settings = useStoreSettings();
  const lists = usePriceLists();
  const markets = useMarkets();
  const groups = useCustomerGroups();
  const editor = useListEditor('[data-add-list]');
  const { editing } = editor;
  const edited = usePriceList(editing?.id ?? null);
  const remove = useDeletePriceList({
    onDone: (list) => editor.deleted(`The price list “${list.name}” was deleted.`),
  });
  const readOnly = session.data?.staff.role === 'staff';
  const storeCurrency = settings.data?.currency;

  const open = (next: Editing) => {
    remove.reset();
    editor.open(next);
  };
  const ready = storeCurrency !== undefined && markets.data && groups.data;
  // A saved list's form starts from the server's copy of now, not one cached on an earlier visit.
  const formList = editing?.id && !readingForForm(edited) ? (edited.data ?? null) : null;

  return (
    <>
      <PageHeader
        title="Price lists"
        actions={
          readOnly ? null : (
            <button type="button" className="primary" data-add-list onClick={() => open({ id: null })}>
              Add price list
            </button>
          )
        }
      >
        <p className="muted">
          Sales and special prices for a while, in some <Link to="/markets">markets</Link>, for some{' '}
          <Link to="/customer-groups">customer groups</Link>. A shopper pays the lowest sale that applies,
          else the newest override that applies, else the market’s price. “Why this price?” on a product’s
          variants shows which one wins.
        </p>
      </PageHeader>
      <ListBanners readOnly={readOnly} things="price lists" notice={editor.notice} error={remove.error} />
      {editing && ready ? (
        editing.id !== null && !formList ? (
          edited.isError ? (
            <ErrorBanner error={edited.error} onRetry={() => void edited.refetch()} />
          ) : (
            <Loading label="Loading the price list…" />
          )
        ) : (
          <PriceListForm
            key={editing.id ?? 'new'}
            list={formList}
            markets={markets.data.items}
            groups={groups.data.items}
            storeCurrency={storeCurrency}
            onDone={editor.done}
          />
        )
      ) : null}
      <QueryView query={lists} loading="Loading price lists…" empty={<p>No price lists yet.</p>} keepData>
        {(data) => (
          <PriceListTable
            lists={data.items}
            markets={markets.data?.items ?? []}
            groups={groups.data?.items ?? []}
            readOnly={readOnly}
            busy={remove.isPending}
            onEdit={(list) => open({ id: list.id })}
            onDelete={(list) => {
              editor.clearNotice();
              remove.mutate(list);
            }}
          />
        )}
      </QueryView>
    </>
  );
}

function PriceListTable({
  lists,
  markets,
  groups,
  readOnly,
  busy,
  onEdit,
  onDelete,
}: {
  lists: readonly PriceListSummary[];
  markets: readonly Market[];
  groups: readonly CustomerGroup[];
  readOnly: boolean;
  busy: boolean;
  onEdit: (list: PriceListSummary) => void;
  onDelete: (list: PriceListSummary) => void;
}) {
  return (
    <DataTable
      wrap="orders-table-wrap"
      className="row-headed price-lists-table"
      caption="Price lists, oldest first"
      columns={[
        'Price list',
        'Type',
        'Markets',
        'Customer groups',
        'Starts',
        'Ends',
        'Status',
        { label: 'Prices', num: true },
        !readOnly && ACTIONS,
      ]}
    >
      {lists.map((list) => (
        <tr key={list.id}>
          <th scope="row">{list.name}</th>
          <td>{list.kind === 'sale' ? 'Sale' : 'Override'}</td>
          <td>{namesOf(list.marketIds, markets, 'All markets')}</td>
          <td>{namesOf(list.customerGroupIds, groups, 'Everyone')}</td>
          <td>{list.startsAt ? formatDateTime(list.startsAt) : 'At once'}</td>
          <td>{list.endsAt ? formatDateTime(list.endsAt) : 'No end'}</td>
          <td>
            <StatusBadge status={priceListStatus(list)} />
          </td>
          <td className="num">{list.priceCount}</td>
          {readOnly ? null : (
            <td>
              <RowActions
                id={list.id}
                named={`the price list ${list.name}`}
                busy={busy}
                onEdit={() => onEdit(list)}
                confirm={{
                  title: `Delete the price list “${list.name}”?`,
                  body: (
                    <p>Its {list.priceCount} prices stop applying at once. Variants keep their own prices.</p>
                  ),
                  label: 'Delete price list',
                }}
                onDelete={() => onDelete(list)}
              />
            </td>
          )}
        </tr>
      ))}
    </DataTable>
  );
}
