/** Home: the published `home-hero` region, rendered from its blocks, and the newest products. */
import type { Block } from '@storefront/blocks';
import { isStatus, shopApi } from '../api.ts';
import { useResource } from '../data.ts';
import { Blocks, ErrorMessage, Loading, PageTitle, ProductGrid } from '../ui.tsx';

export function HomePage() {
  const store = useResource('store', () => shopApi().store.get());
  // A region never published is simply not shown.
  const hero = useResource('region:home-hero', () =>
    shopApi()
      .regions.get('home-hero')
      .catch((error: unknown) => {
        if (isStatus(error, 404)) return null;
        throw error;
      }),
  );
  const products = useResource('products:home', () => shopApi().products.list({ limit: 8 }));
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
          <ProductGrid products={products.data.items} />
        )}
      </section>
    </>
  );
}
