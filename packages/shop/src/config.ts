/**
 * Where the shop finds its publishable key and the API. Served by Storefront at /shop, the server
 * writes both into index.html as `<meta>` tags (decisions `front-ends-on-the-public-api` and `shop-publishable-key`): the
 * key of the demo store, or the one set with SHOP_PUBLISHABLE_KEY. Built on its own as another
 * store's starter, they come from VITE_STOREFRONT_KEY and VITE_STOREFRONT_API at build time
 * (docs/shop.md).
 */
function meta(name: string): string | null {
  const value = document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content.trim();
  return value ? value : null;
}

export interface ShopConfig {
  /** The API's base URL, e.g. `https://api.example.com`; the page's own origin when empty. */
  apiBaseUrl: string;
  /** The store's publishable key (`pk_…`): public by design, it only reads the catalog and makes carts. */
  publishableKey: string | null;
  /** The shop's own path prefix, e.g. `/shop` (no trailing slash; empty at a domain's root). */
  basePath: string;
}

export function readConfig(): ShopConfig {
  return {
    apiBaseUrl: meta('storefront-api') ?? import.meta.env.VITE_STOREFRONT_API ?? window.location.origin,
    publishableKey: meta('storefront-publishable-key') ?? import.meta.env.VITE_STOREFRONT_KEY ?? null,
    basePath: import.meta.env.BASE_URL.replace(/\/$/, ''),
  };
}
