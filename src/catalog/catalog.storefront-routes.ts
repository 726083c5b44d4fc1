import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { readCached, type ReadCache } from '../http/read-cache.ts';
import { requireStorefront } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { CollectionCardSchema, ProductCardSchema, ProductDetailSchema } from './catalog.schemas.ts';
import {
  getCollectionCard,
  getProductByHandle,
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
export const catalogStorefrontRoutes: FastifyPluginAsyncTypebox<{
  deps: CatalogDeps;
  readCache: ReadCache | null;
}> = async (app, { deps, readCache }) => {
  const cached = readCached(readCache);
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
      ...cached,
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
      // Its variants show live stock: dropped from the cache when this product's stock moves.
      ...readCached(readCache, (request) => (request.params as { id: string }).id),
    },
    async (request) => getProductDetail(deps, requireStorefront(request).storeId, request.params.id),
  );

  const HandleParams = Type.Object(
    { handle: Type.String({ minLength: 1, maxLength: 100 }) },
    { additionalProperties: false },
  );
  app.get(
    '/products/handle/:handle',
    {
      schema: {
        operationId: 'getProductByHandle',
        tags,
        summary: 'One active product by its handle (an earlier handle: 301 to the current one)',
        description:
          'The same body as `GET /products/{id}`. A handle the product had before answers 301 with `Location` set to the current handle’s URL and `{handle}` in the body (D46).',
        params: HandleParams,
        response: {
          200: ProductDetailSchema,
          301: Type.Object(
            { handle: Type.String({ description: 'The product’s current handle.' }) },
            { title: 'ProductMoved', description: 'The product moved to this handle; see Location.' },
          ),
          ...problemResponses,
        },
      },
      // ETag, Cache-Control and 304s as every catalog read, without the process's cache (its body
      // shows the stock of a product the URL does not name).
      ...readCached(null),
    },
    async (request, reply) => {
      const found = await getProductByHandle(deps, requireStorefront(request).storeId, request.params.handle);
      if ('moved' in found)
        // Not cached anywhere: the handle may come back to this product (a browser keeps a 301).
        return reply
          .code(301)
          .header('cache-control', 'no-store')
          .header('location', `/storefront/v1/products/handle/${encodeURIComponent(found.moved)}`)
          .send({ handle: found.moved });
      return found.product;
    },
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
      ...cached,
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
      ...cached,
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
      ...cached,
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
