import { byCreated } from '../../db/keyset.ts';
import type { ServiceDeps } from '../../db/service-deps.ts';
import type { ListPage } from '../../lib/cursors.ts';
import { notFound } from '../../lib/errors.ts';
import { storeCurrency } from '../../stores/stores.service.ts';
import type { ProductCard, ProductDetail } from '../catalog.schemas.ts';
import type { ProductRow } from '../catalog.tables.ts';
import { available } from '../inventory/inventory.ts';
import { productImages } from '../media/product-images.ts';
import { variantsOfProduct } from '../variants/product-variants.ts';
import { priorPrices, variantPricesIn, type ReadPricing } from '../prices/prices.ts';
import { activeCardsQuery, findActiveProduct, findActiveProductByHandle } from './products.repository.ts';

/**
 * The storefront's read-only products: active products as cards, one with its variants and their
 * live stock, by id or handle. `deps.db` may be a transaction.
 */

export type Page = { limit?: number | undefined; cursor?: string | undefined };

/** A product as a card, in the store's currency (storefront lists, search, collections). */
export function toCard(
  row: Pick<
    ProductRow,
    'id' | 'title' | 'handle' | 'image' | 'price_amount' | 'compare_at_amount' | 'gift_card'
  >,
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
    giftCard: row.gift_card,
  };
}

/**
 * Cards with the prior price of those on sale (decision `prior-price`), in the market they are
 * priced in (the default without one): one statement, only when a card is on sale.
 */
export async function withPriorPrices(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  pricing: ReadPricing | null,
  cards: ProductCard[],
): Promise<ProductCard[]> {
  const onSale = cards.filter((card) => card.compareAtAmount !== null).map((card) => card.id);
  if (onSale.length === 0) return cards;
  const { byProduct } = await priorPrices(deps.db, storeId, { id: pricing?.marketId ?? storeId }, onSale);
  return cards.map((card) => {
    const prior = byProduct.get(card.id);
    return prior === undefined ? card : { ...card, priorPrice: prior };
  });
}

/** Active products as cards, by creation time. Only active products appear on the storefront. */
export async function listProductCards(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: Page,
  pricing: ReadPricing | null = null,
): Promise<ListPage<ProductCard>> {
  const [currency, rows] = await Promise.all([
    pricing?.currency ?? storeCurrency(deps, storeId),
    byCreated(
      deps.cursors,
      `${storeId}:products`,
      activeCardsQuery(deps.db, storeId, pricing),
      page,
      (row) => row,
      'p.',
    ),
  ]);
  return {
    items: await withPriorPrices(
      deps,
      storeId,
      pricing,
      rows.items.map((row) => toCard(row, currency)),
    ),
    nextCursor: rows.nextCursor,
  };
}

/** One active product with its variants and their live stock. */
export async function getProductDetail(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  productId: string,
  pricing: ReadPricing | null = null,
): Promise<ProductDetail> {
  const [product, variants, currency, images] = await Promise.all([
    findActiveProduct(deps.db, storeId, productId, pricing),
    variantsOfProduct(deps.db, storeId, productId),
    pricing?.currency ?? storeCurrency(deps, storeId),
    productImages(deps.db, storeId, [productId]),
  ]);
  if (!product) throw notFound('No active product with that id in this store.');
  // In a market other than the default, each variant's price there (decision `market-prices`),
  // and the prior prices of those on sale (decision `prior-price`).
  const [inMarket, prior] = await Promise.all([
    pricing === null
      ? null
      : variantPricesIn(
          deps.db,
          storeId,
          pricing,
          variants.map((v) => v.id),
        ),
    // Only a product with a compare-at somewhere can be on sale.
    pricing !== null || variants.some((v) => v.compare_at_amount !== null)
      ? priorPrices(deps.db, storeId, { id: pricing?.marketId ?? storeId }, [productId])
      : { byProduct: new Map<string, number>(), byVariant: new Map<string, number>() },
  ]);
  const lowest = prior.byProduct.get(productId);
  return {
    ...toCard(product, currency),
    ...(lowest === undefined || product.compare_at_amount === null ? {} : { priorPrice: lowest }),
    description: product.description,
    seo: { title: product.seo_title, description: product.seo_description },
    options: product.options,
    images: images.get(productId) ?? [],
    // Archived variants (decision `product-options`) are not on the storefront.
    variants: variants
      .filter((v) => v.archived_at === null)
      .map((v) => ({
        id: v.id,
        sku: v.sku,
        label: v.label,
        options: v.options,
        priceAmount: inMarket?.get(v.id)?.priceAmount ?? v.price_amount,
        compareAtAmount: inMarket ? (inMarket.get(v.id)?.compareAtAmount ?? null) : v.compare_at_amount,
        available: available(v),
        imageId: v.image_id,
        ...(prior.byVariant.has(v.id) ? { priorPrice: prior.byVariant.get(v.id)! } : {}),
      })),
  };
}

/**
 * The product a handle names (decision `product-handles`): its detail for the current handle; for an earlier one, where it
 * moved (`moved`, the route answers 301); 404 when no active product answers to it.
 */
export async function getProductByHandle(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  handle: string,
  pricing: ReadPricing | null = null,
): Promise<{ moved: string } | { product: ProductDetail }> {
  const found = await findActiveProductByHandle(deps.db, storeId, handle.toLowerCase());
  if (!found) throw notFound(`No active product with the handle "${handle}".`);
  if (found.moved) return { moved: found.handle };
  return { product: await getProductDetail(deps, storeId, found.id, pricing) };
}
