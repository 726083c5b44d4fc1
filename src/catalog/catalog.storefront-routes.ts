import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { cacheableOnSend } from '../http/caching.ts';
import { requireStorefront } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { CollectionCardSchema, ProductCardSchema, ProductDetailSchema } from './catalog.schemas.ts';
import {
  getCollectionCard,
  getProductDetail,
  listCollectionCards,
  listCollectionProductCards,
  listProductCards,
  type CatalogDeps,
} from './catalog.service.ts';

const tags = ['Storefront: catalog'];
const SlugParams = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

/** Read-only catalog. Only active products appear, anywhere on the storefront (spec 1, 4.1). */
export const catalogStorefrontRoutes: FastifyPluginAsyncTypebox<{ deps: CatalogDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/products',
    {
      schema: {
        operationId: 'listProducts',
        tags,
        summary: 'Active products as cards',
        description: 'Ordered by creation time. Cursor-paginated.',
        querystring: PageQuery,
        response: { 200: Page(ProductCardSchema), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => listProductCards(deps, requireStorefront(request).storeId, request.query),
  );

  app.get(
    '/products/:id',
    {
      schema: {
        operationId: 'getProduct',
        tags,
        summary: 'One active product with its variants',
        params: IdParams,
        response: { 200: ProductDetailSchema, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => getProductDetail(deps, requireStorefront(request).storeId, request.params.id),
  );

  app.get(
    '/collections',
    {
      schema: {
        operationId: 'listCollections',
        tags,
        summary: 'Collections',
        querystring: PageQuery,
        response: { 200: Page(CollectionCardSchema), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => listCollectionCards(deps, requireStorefront(request).storeId, request.query),
  );

  app.get(
    '/collections/:slug',
    {
      schema: {
        operationId: 'getCollection',
        tags,
        summary: 'One collection by slug',
        params: SlugParams,
        response: { 200: CollectionCardSchema, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => getCollectionCard(deps, requireStorefront(request).storeId, request.params.slug),
  );

  app.get(
    '/collections/:slug/products',
    {
      schema: {
        operationId: 'listCollectionProducts',
        tags,
        summary: "A collection's active products as cards",
        description:
          'Manual collections in the merchant’s order; smart collections by product creation time.',
        params: SlugParams,
        querystring: PageQuery,
        response: { 200: Page(ProductCardSchema), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) =>
      listCollectionProductCards(
        deps,
        requireStorefront(request).storeId,
        request.params.slug,
        request.query,
      ),
  );
};
