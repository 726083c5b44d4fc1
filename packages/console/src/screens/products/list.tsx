/**
 * The products list: search by title or SKU, filters (status, collection, stock) and the order
 * (newest first by default; oldest, title A–Z, price either way), all kept in the address
 * (`/admin/products?q=mug&stock=low&sort=price_asc`) so back, forward, reload and a shared link
 * show the same list; cursor pages, back to the first page whenever the search, a filter or the
 * order changes (a cursor belongs to its list).
 */
import { Link, useSearchParams } from 'react-router';
import { useCollectionChoices } from '../../data/collections.ts';
import {
  isLive,
  LOW_STOCK,
  PRODUCT_SORTS,
  STOCK_FILTERS,
  useProducts,
  type ProductSort,
  type StockFilter,
} from '../../data/products.ts';
import {
  DataTable,
  Empty,
  Notice,
  PageHeader,
  Pager,
  SelectField,
  StatusBadge,
  useCursorPager,
} from '../../ui/components.tsx';
import { formatDateTime } from '../../ui/dates.ts';
import { QueryView } from '../../ui/queries.tsx';
import { SearchForm, useUrlFilter, useUrlParam, useUrlSearch } from '../../ui/search.tsx';
import {
  priceRange,
  STATUS_OPTIONS,
  stockSummary,
  Thumb,
  useArrivalNotice,
  type ProductStatus,
} from '../catalog-parts.tsx';
import { ExportCsvButton, ImportLink } from '../imports-parts.tsx';

const PAGE_SIZE = 20;
const STATUSES = STATUS_OPTIONS.map((option) => option.value);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The order when the address names none. */
const DEFAULT_SORT: ProductSort = 'created_desc';

const SORT_OPTIONS: Record<ProductSort, string> = {
  created_desc: 'Newest first',
  created_asc: 'Oldest first',
  title_asc: 'Title A–Z',
  price_asc: 'Price, low to high',
  price_desc: 'Price, high to low',
};

const STOCK_OPTIONS: Record<StockFilter, string> = {
  in_stock: 'In stock',
  low: `Low (${LOW_STOCK} or fewer)`,
  out: 'Out of stock',
};

/** How the empty list names the stock filter: "No products match … that are low on stock." */
const STOCK_WORDS: Record<StockFilter, string> = {
  in_stock: 'that are in stock',
  low: `that are low on stock (${LOW_STOCK} or fewer)`,
  out: 'that are out of stock',
};

/** The search, the filters and the order, as the address has them. */
interface ListControls {
  q: string;
  status: ProductStatus | undefined;
  /** A collection's id ('' for any). */
  collection: string;
  stock: StockFilter | undefined;
  sort: ProductSort;
}

export function ProductsList() {
  const [, setParams] = useSearchParams();
  const search = useUrlSearch();
  const [status, setStatus] = useUrlFilter<ProductStatus>('status', STATUSES);
  const [collectionParam, setCollection] = useUrlParam('collection');
  // Only a collection's id is sent: anything else in the address is ignored (the API would refuse it).
  const collection = UUID.test(collectionParam) ? collectionParam : '';
  const [stock, setStock] = useUrlFilter<StockFilter>('stock', STOCK_FILTERS);
  const [sort = DEFAULT_SORT, setSort] = useUrlFilter<ProductSort>('sort', PRODUCT_SORTS);
  const collections = useCollectionChoices();
  const notice = useArrivalNotice();
  const controls: ListControls = { q: search.q, status, collection, stock, sort };
  const collectionTitle = collections.data?.find((choice) => choice.id === collection)?.title;

  return (
    <>
      <PageHeader
        title="Products"
        actions={
          <>
            <ImportLink kind="products" />
            <ExportCsvButton kind="products" />
            <Link className="button primary" to="/products/new">
              Add product
            </Link>
          </>
        }
      />
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <SearchForm label="Products" placeholder="Title or SKU" search={search}>
        <SelectField
          label="Status"
          name="status"
          value={status ?? ''}
          options={[{ value: '', label: 'All' }, ...STATUS_OPTIONS]}
          onChange={(event) => setStatus(event.target.value)}
        />
        <SelectField
          label="Collection"
          name="collection"
          value={collection}
          options={[
            { value: '', label: 'Any' },
            ...(collections.data ?? []).map((choice) => ({ value: choice.id, label: choice.title })),
            // A collection in the address that is not (or not yet) listed stays chosen.
            ...(collection && collectionTitle === undefined
              ? [{ value: collection, label: collections.isPending ? 'Loading…' : 'Unknown collection' }]
              : []),
          ]}
          onChange={(event) => setCollection(event.target.value)}
        />
        <SelectField
          label="Stock"
          name="stock"
          value={stock ?? ''}
          options={[
            { value: '', label: 'Any' },
            ...STOCK_FILTERS.map((value) => ({ value, label: STOCK_OPTIONS[value] })),
          ]}
          onChange={(event) => setStock(event.target.value)}
        />
        <SelectField
          label="Sort by"
          name="sort"
          value={sort}
          options={PRODUCT_SORTS.map((value) => ({ value, label: SORT_OPTIONS[value] }))}
          // The default order is left out of the address.
          onChange={(event) => setSort(event.target.value === DEFAULT_SORT ? '' : event.target.value)}
        />
      </SearchForm>
      {/* A new search, filter or order starts again at page 1 (a cursor belongs to its list). */}
      <ProductsTable
        key={JSON.stringify(controls)}
        controls={controls}
        collectionTitle={collectionTitle}
        onClear={() =>
          setParams(
            (current) => new URLSearchParams(current.has('sort') ? { sort: current.get('sort')! } : {}),
            { replace: true },
          )
        }
      />
    </>
  );
}

function ProductsTable({
  controls,
  collectionTitle,
  onClear,
}: {
  controls: ListControls;
  collectionTitle: string | undefined;
  /** Removes the search and every filter (the order stays). */
  onClear: () => void;
}) {
  const { q, status, collection, stock, sort } = controls;
  const pager = useCursorPager();
  const products = useProducts({
    limit: PAGE_SIZE,
    sort,
    ...(q ? { q } : {}),
    ...(status ? { status } : {}),
    ...(collection ? { collection } : {}),
    ...(stock ? { stock } : {}),
    ...(pager.cursor ? { cursor: pager.cursor } : {}),
  });

  const filtered = q !== '' || status !== undefined || collection !== '' || stock !== undefined;
  return (
    <QueryView query={products} loading="Loading products…">
      {({ items, nextCursor }) => (
        <>
          <p className="visually-hidden" role="status">
            {items.length === 0
              ? 'No products found.'
              : `${items.length} product${items.length === 1 ? '' : 's'} on this page.`}
          </p>
          {items.length === 0 ? (
            <Empty>
              {filtered ? (
                <>
                  <p>
                    No products match{q ? ` “${q}”` : ''}
                    {status ? ` with the status ${status}` : ''}
                    {collection ? ` in the collection ${collectionTitle ?? 'chosen'}` : ''}
                    {stock ? ` ${STOCK_WORDS[stock]}` : ''}. Try another search or filter.
                  </p>
                  <button type="button" onClick={onClear}>
                    Clear the search and filters
                  </button>
                </>
              ) : (
                <p>
                  No products yet. <Link to="/products/new">Add your first product</Link>.
                </p>
              )}
            </Empty>
          ) : (
            <DataTable
              caption={`Products, ${SORT_OPTIONS[sort].toLowerCase()}`}
              columns={[
                { label: <span className="visually-hidden">Image</span> },
                'Product',
                'Status',
                'Inventory',
                'SKU',
                { label: 'Price', num: true },
                'Updated',
              ]}
              busy={products.isFetching}
            >
              {items.map((product) => {
                const skus = product.variants
                  .filter(isLive)
                  .map((v) => v.sku)
                  .filter((sku): sku is string => !!sku);
                return (
                  <tr key={product.id}>
                    <td className="thumb-cell">
                      <Thumb image={product.image} />
                    </td>
                    <td>
                      <Link to={`/products/${product.id}`}>{product.title}</Link>
                      <div className="muted small">
                        <span className="visually-hidden">Handle: </span>
                        {product.handle}
                      </div>
                      {product.tags.length > 0 ? (
                        <div className="muted small">{product.tags.join(', ')}</div>
                      ) : null}
                    </td>
                    <td>
                      <StatusBadge status={product.status} />
                    </td>
                    <td>{stockSummary(product)}</td>
                    <td>
                      {skus.length === 0 ? (
                        <span className="muted">—</span>
                      ) : (
                        <>
                          <code>{skus[0]}</code>
                          {skus.length > 1 ? <span className="muted"> +{skus.length - 1}</span> : null}
                        </>
                      )}
                    </td>
                    <td className="num">{priceRange(product)}</td>
                    <td>{formatDateTime(product.updatedAt)}</td>
                  </tr>
                );
              })}
            </DataTable>
          )}
          <Pager pager={pager} nextCursor={nextCursor} />
        </>
      )}
    </QueryView>
  );
}
