/**
 * Promotions (docs/promotions.md, decision `promotions-resource`): what the store takes off an
 * order, with a code or automatically. The list (oldest first, 20 a page: the name, the code or
 * "Automatic", the rule in plain words, the dates and status, the uses so far), the form that adds
 * or changes one (promotion-form.tsx), and deleting one after a confirmation. Staff may look; owners
 * and admins change them.
 */
import { useCollectionChoices } from '../../data/collections.ts';
import { useCustomerGroups } from '../../data/customer-groups.ts';
import { useMarkets } from '../../data/markets.ts';
import { useProductTitles } from '../../data/products.ts';
import { useDeletePromotion, usePromotion, usePromotions, type Promotion } from '../../data/promotions.ts';
import { useStoreSettings } from '../../data/settings.ts';
import { useStaffSession } from '../../data/staff.ts';
import {
  ACTIONS,
  ErrorBanner,
  Loading,
  PageHeader,
  StatusBadge,
  useCursorPager,
} from '../../ui/components.tsx';
import { formatDateTime, periodStatus } from '../../ui/dates.ts';
import { ListBanners, RowActions, useListEditor, type Editing } from '../../ui/list-editor.tsx';
import { PagedTable, readingForForm } from '../../ui/queries.tsx';
import { PromotionForm, type Lookups } from './promotion-form.tsx';
import { namedProductIds, promotionSummary, usageText, type SummaryNames } from './summary.ts';
import '../orders.css';
import '../markets/markets.css';
import './promotions.css';

/** Used up when its uses reached its limit; else whether its dates have it in force now. */
function status(promotion: Promotion): string {
  if (promotion.usageLimit !== null && promotion.usedCount >= promotion.usageLimit) return 'used_up';
  return periodStatus(promotion);
}

export function Promotions() {
  const session = useStaffSession();
  const settings = useStoreSettings();
  const pager = useCursorPager();
  const promotions = usePromotions(pager.cursor);
  const collections = useCollectionChoices();
  const groups = useCustomerGroups();
  const markets = useMarkets();
  const editor = useListEditor('[data-add-promotion]');
  const { editing } = editor;
  const edited = usePromotion(editing?.id ?? null);
  const remove = useDeletePromotion({
    onDone: (promotion) => editor.deleted(`The promotion “${promotion.name}” was deleted.`),
  });
  const titles = useProductTitles((promotions.data?.items ?? []).flatMap(namedProductIds));
  const readOnly = session.data?.staff.role === 'staff';
  const currency = settings.data?.currency;

  const open = (next: Editing) => {
    remove.reset();
    editor.open(next);
  };
  const lookups: Lookups | null =
    currency && collections.data && groups.data && markets.data
      ? { currency, collections: collections.data, groups: groups.data.items, markets: markets.data.items }
      : null;
  const names: SummaryNames | null = lookups && {
    currency: lookups.currency,
    product: (id) => titles.get(id) ?? undefined,
    collection: (id) => lookups.collections.find((each) => each.id === id)?.title,
    group: (id) => lookups.groups.find((each) => each.id === id)?.name,
    market: (id) => lookups.markets.find((each) => each.id === id)?.name,
  };
  // A saved promotion's form starts from the server's copy of now.
  const formPromotion = editing?.id && !readingForForm(edited) ? (edited.data ?? null) : null;

  return (
    <>
      <PageHeader
        title="Promotions"
        actions={
          readOnly ? null : (
            <button type="button" className="primary" data-add-promotion onClick={() => open({ id: null })}>
              Add promotion
            </button>
          )
        }
      >
        <p className="muted">
          What your store takes off an order: a code the buyer types, or a deal that applies by itself. When
          several apply, the cart takes the combination that saves the buyer the most among those allowed.
        </p>
      </PageHeader>
      <ListBanners readOnly={readOnly} things="promotions" notice={editor.notice} error={remove.error} />
      {editing && lookups ? (
        editing.id !== null && !formPromotion ? (
          edited.isError ? (
            <ErrorBanner error={edited.error} onRetry={() => void edited.refetch()} />
          ) : (
            <Loading label="Loading the promotion…" />
          )
        ) : (
          <PromotionForm
            key={editing.id ?? 'new'}
            promotion={formPromotion}
            lookups={lookups}
            onDone={editor.done}
          />
        )
      ) : null}
      <PagedTable
        query={promotions}
        pager={pager}
        loading="Loading promotions…"
        empty={<p>No promotions yet.</p>}
        wrap="orders-table-wrap"
        className="row-headed promotions-table"
        caption="Promotions, oldest first"
        columns={['Promotion', 'Code', 'Rule', 'Starts', 'Ends', 'Status', 'Usage', !readOnly && ACTIONS]}
      >
        {(promotion) => (
          <tr key={promotion.id}>
            <th scope="row">{promotion.name}</th>
            <td>{promotion.code ? <code>{promotion.code}</code> : 'Automatic'}</td>
            <td>{names ? promotionSummary(promotion, names) : '…'}</td>
            <td>{promotion.startsAt ? formatDateTime(promotion.startsAt) : 'At once'}</td>
            <td>{promotion.endsAt ? formatDateTime(promotion.endsAt) : 'No end'}</td>
            <td>
              <StatusBadge status={status(promotion)} />
            </td>
            <td>{usageText(promotion)}</td>
            {readOnly ? null : (
              <td>
                <RowActions
                  id={promotion.id}
                  named={`the promotion ${promotion.name}`}
                  busy={remove.isPending}
                  onEdit={() => open({ id: promotion.id })}
                  confirm={{
                    title: `Delete the promotion “${promotion.name}”?`,
                    body: (
                      <p>
                        It stops applying at once
                        {promotion.code ? ` and the code ${promotion.code} is refused` : ''}. Orders placed
                        with it keep their figures.
                      </p>
                    ),
                    label: 'Delete promotion',
                  }}
                  onDelete={() => {
                    editor.clearNotice();
                    remove.mutate(promotion);
                  }}
                />
              </td>
            )}
          </tr>
        )}
      </PagedTable>
    </>
  );
}
