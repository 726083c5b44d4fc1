/** Home: the published `home-hero` region, rendered from its blocks, the collections and the newest products. */
import type { Block } from '@storefront/blocks';
import { isStatus, shopApi } from '../api.ts';
import { useCollectionCards } from '../collections.ts';
import { useResource } from '../data.ts';
import { inCountry, marketKey, useMarket, useMarketCurrency } from '../market.ts';
import { Link } from '../router.tsx';
import { Blocks, CollectionCards, ErrorMessage, Loading, PageTitle, ProductGrid } from '../ui.tsx';

/** The store's collections with their price ranges (in the shopper's market) and sale markers; nothing when it has none. */
export function CollectionsSection({ title }: { title: string }) {
  const { country } = useMarket();
  const collections = useCollectionCards(country);
  const currency = useMarketCurrency();
  if (!collections.data || collections.data.length === 0) return null;
  return (
    <section aria-labelledby="collections-title">
      <h2 id="collections-title">{title}</h2>
      <CollectionCards collections={collections.data} currency={currency} />
    </section>
  );
}

export function HomePage() {
  const store = useResource('store', () => shopApi().store.get());
  const { country } = useMarket();
  // A region never published is simply not shown.
  const hero = useResource('region:home-hero', () =>
    shopApi()
      .regions.get('home-hero')
      .catch((error: unknown) => {
        if (isStatus(error, 404)) return null;
        throw error;
      }),
  );
  // Newest first, so what the merchant just published shows here (`sort` is decision `storefront-search`'s; the generated
  // types know it once the client is regenerated).
  const products = useResource(marketKey('products:newest', country), () =>
    shopApi().products.list({ limit: 8, sort: 'newest', ...inCountry(country) }),
  );
  const name = store.data?.name ?? 'Shop';

  return (
    <>
      <PageTitle title={name}>
        <span class="visually-hidden">{name}</span>
      </PageTitle>
      {hero.data ? (
        <section class="hero" aria-label="Featured">
          <Blocks blocks={hero.data.blocks as Block[]} />
        </section>
      ) : null}
      <section aria-labelledby="latest-title">
        <h2 id="latest-title">Latest products</h2>
        {products.error ? (
          <ErrorMessage error={products.error} onRetry={products.reload} />
        ) : !products.data ? (
          <Loading label="Loading products…" />
        ) : products.data.items.length === 0 ? (
          <p>No products yet.</p>
        ) : (
          <>
            <ProductGrid products={products.data.items} />
            <p class="see-all">
              <Link to="/search">See all products</Link>
            </p>
          </>
        )}
      </section>
      <CollectionsSection title="Collections" />
    </>
  );
}
