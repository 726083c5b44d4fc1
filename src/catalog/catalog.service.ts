import { byCreated, keysetPage } from '../db/keyset.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound } from '../lib/errors.ts';
import { storeCurrency } from '../stores/stores.service.ts';
import type { CollectionCard, ProductCard, ProductDetail } from './catalog.schemas.ts';
import type { ProductRow } from './catalog.tables.ts';
import {
  activeMemberCardsQuery,
  collectionCardsQuery,
  findCollectionBySlug,
} from './collections.repository.ts';
import { available } from './inventory.ts';
import { productImages } from './product-images.ts';
import {
  activeCardsQuery,
  findActiveProduct,
  findActiveProductByHandle,
  variantsOfProduct,
} from './products.repository.ts';
import type { ServiceDeps } from '../db/service-deps.ts';

/**
 * The catalog: products with their variants and stock, and collections. `deps.db` may be a
 * transaction. The storefront's read-only catalog is here; admin use cases are in
 * products.service.ts and collections.service.ts.
 */
export type CatalogDeps = ServiceDeps;

type Page = { limit?: number | undefined; cursor?: string | undefined };

/** The store's currency, read once per process (it never changes). */
export { storeCurrency } from '../stores/stores.service.ts';

function toCard(
  row: Pick<ProductRow, 'id' | 'title' | 'handle' | 'image' | 'price_amount' | 'compare_at_amount'>,
  currency: string,
): ProductCard {
  return {
    id: row.id,
    title: row.title,
    handle: row.handle,
    image: row.image,
    priceAmount: row.price_amount ?? 0,
    compareAtAmount: row.compare_at_amount,
    currency,
  };
}

/** Active products as cards, by creation time. Only active products appear on the storefront. */
export async function listProductCards(
  deps: Pick<CatalogDeps, 'db' | 'cursors'>,
  storeId: string,
  page: Page,
): Promise<ListPage<ProductCard>> {
  const [currency, rows] = await Promise.all([
    storeCurrency(deps, storeId),
    byCreated(
      deps.cursors,
      `${storeId}:products`,
      activeCardsQuery(deps.db, storeId),
      page,
      (row) => row,
      'p.',
    ),
  ]);
  return { items: rows.items.map((row) => toCard(row, currency)), nextCursor: rows.nextCursor };
}

/** One active product with its variants and their live stock. */
export async function getProductDetail(
  deps: Pick<CatalogDeps, 'db'>,
  storeId: string,
  productId: string,
): Promise<ProductDetail> {
  const [product, variants, currency, images] = await Promise.all([
    findActiveProduct(deps.db, storeId, productId),
    variantsOfProduct(deps.db, storeId, productId),
    storeCurrency(deps, storeId),
    productImages(deps.db, storeId, [productId]),
  ]);
  if (!product) throw notFound('No active product with that id in this store.');
  return {
    ...toCard(product, currency),
    description: product.description,
    seo: { title: product.seo_title, description: product.seo_description },
    options: product.options,
    images: images.get(productId) ?? [],
    // Archived variants (D46) are not on the storefront.
    variants: variants
      .filter((v) => v.archived_at === null)
      .map((v) => ({
        id: v.id,
        sku: v.sku,
        label: v.label,
        options: v.options,
        priceAmount: v.price_amount,
        compareAtAmount: v.compare_at_amount,
        available: available(v),
        imageId: v.image_id,
      })),
  };
}

/**
 * The product a handle names (D46): its detail for the current handle; for an earlier one, where it
 * moved (`moved`, the route answers 301); 404 when no active product answers to it.
 */
export async function getProductByHandle(
  deps: Pick<CatalogDeps, 'db'>,
  storeId: string,
  handle: string,
): Promise<{ moved: string } | { product: ProductDetail }> {
  const found = await findActiveProductByHandle(deps.db, storeId, handle.toLowerCase());
  if (!found) throw notFound(`No active product with the handle "${handle}".`);
  if (found.moved) return { moved: found.handle };
  return { product: await getProductDetail(deps, storeId, found.id) };
}

function toCollectionCard(row: {
  id: string;
  title: string;
  slug: string;
  product_count: number;
  min_price: number | null;
  max_price: number | null;
  on_sale: boolean;
}): CollectionCard {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    productCount: Number(row.product_count),
    priceRange:
      row.min_price === null || row.max_price === null
        ? null
        : { min: Number(row.min_price), max: Number(row.max_price) },
    onSale: row.on_sale,
  };
}

/** The store's collections as cards (with their active products' count, price range and sale), by creation time. */
export function listCollectionCards(
  deps: Pick<CatalogDeps, 'db' | 'cursors'>,
  storeId: string,
  page: Page,
): Promise<ListPage<CollectionCard>> {
  return byCreated(
    deps.cursors,
    `${storeId}:collections`,
    collectionCardsQuery(deps.db, storeId),
    page,
    toCollectionCard,
    'c.',
  );
}

export async function getCollectionCard(
  deps: Pick<CatalogDeps, 'db'>,
  storeId: string,
  slug: string,
): Promise<CollectionCard> {
  const row = await collectionCardsQuery(deps.db, storeId).where('c.slug', '=', slug).executeTakeFirst();
  if (!row) throw notFound(`No collection with the slug "${slug}".`);
  return toCollectionCard(row);
}

/** A collection's active products: manual ones in the merchant's order, smart ones by creation time. */
export async function listCollectionProductCards(
  deps: Pick<CatalogDeps, 'db' | 'cursors'>,
  storeId: string,
  slug: string,
  page: Page,
): Promise<ListPage<ProductCard>> {
  const collection = await findCollectionBySlug(deps.db, storeId, slug);
  if (!collection) throw notFound(`No collection with the slug "${slug}".`);
  const [currency, rows] = await Promise.all([
    storeCurrency(deps, storeId),
    keysetPage({
      cursors: deps.cursors,
      scope: `${storeId}:collection:${collection.id}`,
      query: activeMemberCardsQuery(deps.db, storeId, collection.id),
      columns: ['cp.position', 'cp.product_id'],
      position: (row) => [row.position, row.id],
      page,
      toItem: (row) => row,
    }),
  ]);
  return { items: rows.items.map((row) => toCard(row, currency)), nextCursor: rows.nextCursor };
}
