/** A collection: its products, a cursor page at a time ("Load more"), in the shopper's market. */
import type { ProductCard } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { isStatus, shopApi } from '../api.ts';
import { useResource } from '../data.ts';
import { inCountry, marketKey, useMarket } from '../market.ts';
import { ErrorMessage, Loading, PageTitle, ProductGrid } from '../ui.tsx';
import { NotFound } from './not-found.tsx';

const PAGE_SIZE = 12;

export function CollectionPage({ slug }: { slug: string }) {
  const { country } = useMarket();
  const collection = useResource(marketKey(`collection:${slug}`, country), () =>
    shopApi().request('getCollection', { path: { slug }, query: inCountry(country) }),
  );
  const first = useResource(marketKey(`collection-products:${slug}`, country), () =>
    shopApi().collections.listProducts(slug, { limit: PAGE_SIZE, ...inCountry(country) }),
  );
  const [more, setMore] = useState<{ items: ProductCard[]; cursor: string | null; error: unknown }>({
    items: [],
    cursor: null,
    error: null,
  });
  const [loadingMore, setLoadingMore] = useState(false);
  // Another market's pages are not these: "Load more" starts again after the first.
  useEffect(() => setMore({ items: [], cursor: null, error: null }), [slug, country]);

  if (isStatus(collection.error, 404) || isStatus(first.error, 404)) return <NotFound what="collection" />;
  const error = collection.error ?? first.error;
  if (error) return <ErrorMessage error={error} onRetry={() => (collection.reload(), first.reload())} />;
  if (!collection.data || !first.data) return <Loading label="Loading the collection…" />;

  const items = [...first.data.items, ...more.items];
  const cursor = more.items.length > 0 ? more.cursor : first.data.nextCursor;

  async function loadMore() {
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await shopApi().collections.listProducts(slug, {
        limit: PAGE_SIZE,
        cursor,
        ...inCountry(country),
      });
      setMore((previous) => ({
        items: [...previous.items, ...page.items],
        cursor: page.nextCursor,
        error: null,
      }));
    } catch (loadError) {
      setMore((previous) => ({ ...previous, error: loadError }));
    } finally {
      setLoadingMore(false);
    }
  }

  return (
    <section class="collection">
      <PageTitle title={collection.data.title}>{collection.data.title}</PageTitle>
      {items.length === 0 ? <p>Nothing in this collection yet.</p> : <ProductGrid products={items} />}
      <p class="product-count" role="status">
        {`Showing ${items.length} ${items.length === 1 ? 'product' : 'products'}`}
      </p>
      {more.error ? <ErrorMessage error={more.error} /> : null}
      {cursor ? (
        <button
          type="button"
          class="button-secondary load-more"
          disabled={loadingMore}
          onClick={() => void loadMore()}
        >
          {loadingMore ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </section>
  );
}
