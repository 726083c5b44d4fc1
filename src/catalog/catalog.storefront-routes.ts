import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { cacheableOnSend } from '../http/caching.ts';
import type { AppContext } from '../http/context.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/principals.ts';
import { CollectionCard, ProductCard, ProductDetail } from './catalog.schemas.ts';
import { available } from './inventory.ts';
import { notFound } from '../lib/errors.ts';
import { byCreated, keysetPage } from '../db/keyset.ts';

const tags = ['Storefront: catalog'];
const SlugParams = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

interface CardRow {
  id: string;
  title: string;
  image: string | null;
  price_amount: number | null;
  currency: string;
}

const toCard = (row: CardRow) => ({
  id: row.id,
  title: row.title,
  image: row.image,
  priceAmount: row.price_amount ?? 0,
  currency: row.currency.trim(),
});

/** Read-only catalog. Only active products appear, anywhere on the storefront (spec 1, 4.1). */
export const catalogStorefrontRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  app.get(
    '/products',
    {
      schema: {
        tags,
        summary: 'Active products as cards',
        description: 'Ordered by creation time. Cursor-paginated.',
        querystring: PageQuery,
        response: { 200: Page(ProductCard), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const query = ctx.db
        .selectFrom('products as p')
        .innerJoin('stores as s', 's.id', 'p.store_id')
        .select(['p.id', 'p.title', 'p.image', 'p.price_amount', 'p.created_at', 's.currency'])
        .where('p.store_id', '=', storeId)
        .where('p.status', '=', 'active');
      return byCreated(ctx.cursors, `${storeId}:products`, query, request.query, toCard, 'p.');
    },
  );

  app.get(
    '/products/:id',
    {
      schema: {
        tags,
        summary: 'One active product with its variants',
        params: IdParams,
        response: { 200: ProductDetail, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const [product, variants] = await Promise.all([
        ctx.db
          .selectFrom('products as p')
          .innerJoin('stores as s', 's.id', 'p.store_id')
          .select(['p.id', 'p.title', 'p.image', 'p.price_amount', 'p.description', 's.currency'])
          .where('p.store_id', '=', storeId)
          .where('p.id', '=', request.params.id)
          .where('p.status', '=', 'active')
          .executeTakeFirst(),
        ctx.db
          .selectFrom('variants')
          .select(['id', 'sku', 'label', 'price_amount', 'compare_at_amount', 'on_hand', 'reserved'])
          .where('store_id', '=', storeId)
          .where('product_id', '=', request.params.id)
          .orderBy('position')
          .execute(),
      ]);
      if (!product) throw notFound('No active product with that id in this store.');
      return {
        ...toCard(product),
        description: product.description,
        variants: variants.map((v) => ({
          id: v.id,
          sku: v.sku,
          label: v.label,
          priceAmount: v.price_amount,
          compareAtAmount: v.compare_at_amount,
          available: available(v),
        })),
      };
    },
  );

  app.get(
    '/collections',
    {
      schema: {
        tags,
        summary: 'Collections',
        querystring: PageQuery,
        response: { 200: Page(CollectionCard), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const query = ctx.db
        .selectFrom('collections')
        .select(['id', 'title', 'slug', 'created_at'])
        .where('store_id', '=', storeId);
      return byCreated(ctx.cursors, `${storeId}:collections`, query, request.query, (row) => ({
        id: row.id,
        title: row.title,
        slug: row.slug,
      }));
    },
  );

  const findCollection = async (storeId: string, slug: string) => {
    const row = await ctx.db
      .selectFrom('collections')
      .select(['id', 'title', 'slug'])
      .where('store_id', '=', storeId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    if (!row) throw notFound(`No collection with the slug "${slug}".`);
    return row;
  };

  app.get(
    '/collections/:slug',
    {
      schema: {
        tags,
        summary: 'One collection by slug',
        params: SlugParams,
        response: { 200: CollectionCard, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => findCollection(requireStorefront(request).storeId, request.params.slug),
  );

  app.get(
    '/collections/:slug/products',
    {
      schema: {
        tags,
        summary: "A collection's active products as cards",
        description:
          'Manual collections in the merchant’s order; smart collections by product creation time.',
        params: SlugParams,
        querystring: PageQuery,
        response: { 200: Page(ProductCard), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const collection = await findCollection(storeId, request.params.slug);
      const query = ctx.db
        .selectFrom('collection_products as cp')
        .innerJoin('products as p', (join) =>
          join.onRef('p.store_id', '=', 'cp.store_id').onRef('p.id', '=', 'cp.product_id'),
        )
        .innerJoin('stores as s', 's.id', 'p.store_id')
        .select(['p.id', 'p.title', 'p.image', 'p.price_amount', 's.currency', 'cp.position'])
        .where('cp.store_id', '=', storeId)
        .where('cp.collection_id', '=', collection.id)
        .where('p.status', '=', 'active');
      return keysetPage({
        cursors: ctx.cursors,
        scope: `${storeId}:collection:${collection.id}`,
        query,
        columns: ['cp.position', 'cp.product_id'],
        position: (row) => [row.position, row.id],
        page: request.query,
        toItem: toCard,
      });
    },
  );
};
