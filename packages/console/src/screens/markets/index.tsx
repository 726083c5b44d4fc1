/**
 * Markets (docs/markets.md, decision `markets`): where the store sells in which currency. The list
 * (the default market first: every country no other market names, in the store's currency), the
 * form that adds or changes one (market-form.tsx), and deleting one after a confirmation (its
 * countries join the default market). Staff may look; owners and admins change them.
 */
import { countryName } from '@storefront/address';
import { useDeleteMarket, useMarkets, type Market } from '../../data/markets.ts';
import { useStoreSettings } from '../../data/settings.ts';
import { useStaffSession } from '../../data/staff.ts';
import { ACTIONS, DataTable, Loading, PageHeader } from '../../ui/components.tsx';
import { ListBanners, RowActions, useListEditor, type Editing } from '../../ui/list-editor.tsx';
import { QueryView } from '../../ui/queries.tsx';
import { rateText, ROUNDING_NAMES } from '../market-parts.ts';
import { MarketForm } from './market-form.tsx';
import '../orders.css';
import './markets.css';

export function Markets() {
  const session = useStaffSession();
  const settings = useStoreSettings();
  const markets = useMarkets();
  const editor = useListEditor('[data-add-market]');
  const { editing } = editor;
  const remove = useDeleteMarket({
    onDone: (market) => editor.deleted(`The market “${market.name}” was deleted.`),
  });
  const readOnly = session.data?.staff.role === 'staff';
  const storeCurrency = settings.data?.currency;

  const open = (next: Editing) => {
    remove.reset();
    editor.open(next);
  };
  const editedMarket = editing?.id ? markets.data?.items.find((market) => market.id === editing.id) : null;

  return (
    <>
      <PageHeader
        title="Markets"
        actions={
          readOnly ? null : (
            <button type="button" className="primary" data-add-market onClick={() => open({ id: null })}>
              Add market
            </button>
          )
        }
      >
        <p className="muted">
          Where you sell in which currency. A shopper’s country picks the market; a variant’s price there is
          its price in the market’s currency (set on the product), else its store price converted at your rate
          and rounded by the market’s rule.
        </p>
      </PageHeader>
      <ListBanners readOnly={readOnly} things="markets" notice={editor.notice} error={remove.error} />
      {storeCurrency === undefined ? (
        <Loading />
      ) : (
        <>
          <QueryView query={markets} loading="Loading markets…" keepData>
            {(data) => (
              <MarketTable
                markets={data.items}
                storeCurrency={storeCurrency}
                readOnly={readOnly}
                busy={remove.isPending}
                onEdit={(market) => open({ id: market.id })}
                onDelete={(market) => {
                  editor.clearNotice();
                  remove.mutate(market);
                }}
              />
            )}
          </QueryView>
          {editing && (editing.id === null || editedMarket) ? (
            <MarketForm
              key={editing.id ?? 'new'}
              market={editedMarket ?? null}
              storeCurrency={storeCurrency}
              onDone={editor.done}
            />
          ) : null}
        </>
      )}
    </>
  );
}

function MarketTable({
  markets,
  storeCurrency,
  readOnly,
  busy,
  onEdit,
  onDelete,
}: {
  markets: readonly Market[];
  storeCurrency: string;
  readOnly: boolean;
  busy: boolean;
  onEdit: (market: Market) => void;
  onDelete: (market: Market) => void;
}) {
  return (
    <DataTable
      wrap="orders-table-wrap"
      className="row-headed markets-table"
      caption="Markets, the default first"
      columns={[
        'Market',
        'Countries',
        'Currency',
        'Exchange rate',
        'Rounding',
        'Prices include tax',
        !readOnly && ACTIONS,
      ]}
    >
      {markets.map((market) => (
        <tr key={market.id}>
          <th scope="row">
            {market.name}
            {market.default ? (
              <div>
                <span className="badge badge-default">Default</span>
              </div>
            ) : null}
          </th>
          <td>
            {market.default
              ? 'All other countries'
              : market.countries.map((code) => `${countryName(code)} (${code})`).join(', ')}
          </td>
          <td>{market.currency}</td>
          <td>
            {market.currency === storeCurrency ? (
              <span className="muted">Store prices</span>
            ) : (
              rateText(market.exchangeRate, storeCurrency, market.currency)
            )}
          </td>
          <td>
            {market.currency === storeCurrency ? (
              <span className="muted">—</span>
            ) : (
              ROUNDING_NAMES[market.rounding]
            )}
          </td>
          <td>{market.pricesIncludeTax ? 'Yes' : 'No'}</td>
          {readOnly ? null : (
            <td>
              <MarketActions market={market} busy={busy} onEdit={onEdit} onDelete={onDelete} />
            </td>
          )}
        </tr>
      ))}
    </DataTable>
  );
}

function MarketActions({
  market,
  busy,
  onEdit,
  onDelete,
}: {
  market: Market;
  busy: boolean;
  onEdit: (market: Market) => void;
  onDelete: (market: Market) => void;
}) {
  const countries = market.countries.map((code) => countryName(code)).join(', ');
  return (
    <RowActions
      id={market.id}
      named={`the market ${market.name}`}
      busy={busy}
      onEdit={() => onEdit(market)}
      confirm={
        market.default
          ? null
          : {
              title: `Delete the market “${market.name}”?`,
              body: (
                <p>
                  Its countries ({countries}) join the default market: shoppers there see the store’s currency
                  and prices again. Prices set on variants in {market.currency} are kept.
                </p>
              ),
              label: 'Delete market',
            }
      }
      onDelete={() => onDelete(market)}
    />
  );
}
