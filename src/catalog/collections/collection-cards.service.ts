import { byCreated, keysetPage } from '../../db/keyset.ts';
import type { ServiceDeps } from '../../db/service-deps.ts';
import type { ListPage } from '../../lib/cursors.ts';
import { notFound } from '../../lib/errors.ts';
import { storeCurrency } from '../../stores/stores.service.ts';
import type { CollectionCard, ProductCard } from '../catalog.schemas.ts';
import { toCard, withPriorPrices, type Page } from '../products/product-cards.service.ts';
import type { ReadPricing } from '../prices/prices.ts';
import {
  activeMemberCardsQuery,
  collectionCardsQuery,
  findCollectionBySlug,
} from './collections.repository.ts';

/** The storefront's read-only collections: as cards, and their active products. */

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
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: Page,
  pricing: ReadPricing | null = null,
): Promise<ListPage<CollectionCard>> {
  return byCreated(
    deps.cursors,
    `${storeId}:collections`,
    collectionCardsQuery(deps.db, storeId, pricing),
    page,
    toCollectionCard,
    'c.',
  );
}

export async function getCollectionCard(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  slug: string,
  pricing: ReadPricing | null = null,
): Promise<CollectionCard> {
  const row = await collectionCardsQuery(deps.db, storeId, pricing)
    .where('c.slug', '=', slug)
    .executeTakeFirst();
  if (!row) throw notFound(`No collection with the slug "${slug}".`);
  return toCollectionCard(row);
}

/** A collection's active products: manual ones in the merchant's order, smart ones by creation time. */
export async function listCollectionProductCards(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  slug: string,
  page: Page,
  pricing: ReadPricing | null = null,
): Promise<ListPage<ProductCard>> {
  const collection = await findCollectionBySlug(deps.db, storeId, slug);
  if (!collection) throw notFound(`No collection with the slug "${slug}".`);
  const [currency, rows] = await Promise.all([
    pricing?.currency ?? storeCurrency(deps, storeId),
    keysetPage({
      cursors: deps.cursors,
      scope: `${storeId}:collection:${collection.id}`,
      query: activeMemberCardsQuery(deps.db, storeId, collection.id, pricing),
      columns: ['cp.position', 'cp.product_id'],
      position: (row) => [row.position, row.id],
      page,
      toItem: (row) => row,
    }),
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
