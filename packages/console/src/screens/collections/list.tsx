/** The collections list: each one's type, products (manual) or rules (smart), shop address; cursor pages. */
import { Link } from 'react-router';
import { useCollections } from '../../data/collections.ts';
import { useCurrency } from '../../data/settings.ts';
import { DataTable, Notice, PageHeader, Pager, useCursorPager } from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { QueryView } from '../../ui/queries.tsx';
import { useArrivalNotice } from '../catalog-parts.tsx';
import { describeRules } from './rules.ts';

export function CollectionsList() {
  const pager = useCursorPager();
  const currency = useCurrency();
  const notice = useArrivalNotice();
  const collections = useCollections(pager.cursor);

  return (
    <>
      <PageHeader
        title="Collections"
        actions={
          <Link className="button primary" to="/collections/new">
            Add collection
          </Link>
        }
      >
        <p className="muted">
          Group products for the shop: pick them by hand, or by rules that keep the group current.
        </p>
      </PageHeader>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <QueryView
        query={collections}
        loading="Loading collections…"
        empty={
          <p>
            No collections yet. <Link to="/collections/new">Add your first collection</Link>.
          </p>
        }
      >
        {(data) => (
          <DataTable caption="Collections" columns={['Collection', 'Type', 'Products', 'Address', 'Updated']}>
            {data.items.map((collection) => (
              <tr key={collection.id}>
                <td>
                  <Link to={`/collections/${collection.id}`}>{collection.title}</Link>
                </td>
                <td>{collection.kind === 'manual' ? 'Manual' : 'Smart'}</td>
                <td>
                  {collection.kind === 'manual'
                    ? `${collection.productIds?.length ?? 0} product${collection.productIds?.length === 1 ? '' : 's'}`
                    : collection.rules
                      ? describeRules(collection.rules, currency)
                      : '—'}
                </td>
                <td>
                  <code>/collections/{collection.slug}</code>
                </td>
                <td>{formatDateTime(collection.updatedAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryView>
      {collections.data ? <Pager pager={pager} nextCursor={collections.data.nextCursor} /> : null}
    </>
  );
}
