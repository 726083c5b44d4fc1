import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../db/service-deps.ts';
import Type from 'typebox';
import { ANY_STOCK, cacheUntil, markPersonal, readCached, type ReadCache } from '../http/read-cache.ts';
import { requireStorefront } from '../http/principals.ts';
import { IdParams, Page, PageQueryWith, problemResponses } from '../http/schemas.ts';
import { CollectionCardSchema, ProductCardSchema, ProductDetailSchema } from './catalog.schemas.ts';
import { marketOfRead, readPricing } from './prices/prices.ts';
import {
  CountryQuery,
  ProductFacetsQuerySchema,
  ProductFacetsSchema,
  ProductSearchQuerySchema,
} from './search/search.schemas.ts';
import { isSearch, productFacets, searchProductCards, type SearchParams } from './search/search.service.ts';
import {
  getCollectionCard,
  listCollectionCards,
  listCollectionProductCards,
} from './collections/collection-cards.service.ts';
import { getProductByHandle, getProductDetail, listProductCards } from './products/product-cards.service.ts';

const tags = ['Storefront: catalog'];
/** Decision `markets`: `?country=` prices a read in that country's market. */
const MarketQuery = Type.Object({ country: CountryQuery });
const SlugParams = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

/** Read-only catalog. Only active products appear, anywhere on the storefront (spec 1, 4.1). */
export const catalogStorefrontRoutes: FastifyPluginAsyncTypebox<{
  deps: ServiceDeps;
  readCache: ReadCache | null;
  /**
   * Decision `price-function`: the customer groups of the request's customer token ([] without one),
   * given by the composition (the catalog does not read customers).
   */
  customerGroups?: ((request: FastifyRequest) => Promise<string[]>) | undefined;
}> = async (app, { deps, readCache, customerGroups }) => {
  /** How a read prices: the market of `country`, with the price lists of the buyer's groups. */
  const pricingOf = async (request: FastifyRequest, storeId: string, country: string | undefined) => {
    const [market, groups] = await Promise.all([
      marketOfRead(deps, storeId, country),
      customerGroups ? customerGroups(request) : [],
    ]);
    const pricing = await readPricing(deps, storeId, market, groups);
    // Priced with price lists: a member's prices are theirs, never shared; a guest's hold until a
    // list starts or ends (decision `price-function`).
    if (pricing?.lists && groups.length > 0) markPersonal(request);
    else if (pricing?.lists) cacheUntil(request, pricing.lists.until ?? null);
    return pricing;
  };
  const cached = readCached(readCache);
  /**
   * A search filtered by stock shows the stock of any product: stale when any of it moves. (Read
   * before validation on a cache hit, so `available` may still be the text "true".)
   */
  const stockOfSearch = (request: FastifyRequest) =>
    String((request.query as { available?: unknown }).available) === 'true' ? ANY_STOCK : null;
  app.get(
    '/products',
    {
      schema: {
        operationId: 'listProducts',
        tags,
        summary: 'Active products as cards; search, filter and sort them',
        description:
          'Without search parameters: every active product, ordered by creation time (the spec’s list). With `q`, `collection`, `tag`, `minPrice`, `maxPrice`, `available`, `option.<Name>` (repeatable; e.g. `option.Size=M`) or `sort`: a search, only active products, ordered by `sort`. Cursor-paginated for every sort; a cursor belongs to its search (another query, filter or sort answers 400).',
        querystring: ProductSearchQuerySchema,
        response: { 200: Page(ProductCardSchema), ...problemResponses },
      },
      ...readCached(readCache, stockOfSearch),
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const query = request.query as SearchParams;
      const pricing = await pricingOf(request, storeId, query.country);
      return isSearch(query)
        ? searchProductCards(deps, storeId, query, pricing)
        : listProductCards(deps, storeId, query, pricing);
    },
  );

  app.get(
    '/products/facets',
    {
      schema: {
        operationId: 'getProductFacets',
        tags,
        summary: 'Facets of a search: option values, price range, collections, stock',
        description:
          'The same filters as `GET /products`; every count is over the products that search finds (an option value counts the found products with a variant of that value).',
        querystring: ProductFacetsQuerySchema,
        response: { 200: ProductFacetsSchema, ...problemResponses },
      },
      ...readCached(readCache, () => ANY_STOCK),
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const query = request.query as SearchParams;
      return productFacets(deps, storeId, query, await pricingOf(request, storeId, query.country));
    },
  );

  app.get(
    '/products/:id',
    {
      schema: {
        operationId: 'getProduct',
        tags,
        summary: 'One active product with its variants',
        params: IdParams,
        querystring: MarketQuery,
        response: { 200: ProductDetailSchema, ...problemResponses },
      },
      // Its variants show live stock: dropped from the cache when this product's stock moves.
      ...readCached(readCache, (request) => (request.params as { id: string }).id),
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const pricing = await pricingOf(request, storeId, request.query.country);
      return getProductDetail(deps, storeId, request.params.id, pricing);
    },
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
          'The same body as `GET /products/{id}`. A handle the product had before answers 301 with `Location` set to the current handle’s URL and `{handle}` in the body.',
        params: HandleParams,
        querystring: MarketQuery,
        response: {
          200: ProductDetailSchema,
          301: Type.Object(
            { handle: Type.String({ description: 'The product’s current handle.' }) },
            { title: 'ProductMoved', description: 'The product moved to this handle; see Location.' },
          ),
          ...problemResponses,
        },
      },
      // Its body shows the stock of a product the URL does not name: stale when any stock moves.
      ...readCached(readCache, () => ANY_STOCK),
    },
    async (request, reply) => {
      const { storeId } = requireStorefront(request);
      const pricing = await pricingOf(request, storeId, request.query.country);
      const found = await getProductByHandle(deps, storeId, request.params.handle, pricing);
      if ('moved' in found)
        // Not cached anywhere: the handle may come back to this product (a browser keeps a 301).
        return reply
          .code(301)
          .header('cache-control', 'no-store')
          .header(
            'location',
            `/storefront/v1/products/handle/${encodeURIComponent(found.moved)}${
              request.query.country === undefined
                ? ''
                : `?country=${encodeURIComponent(request.query.country)}`
            }`,
          )
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
        querystring: PageQueryWith({ country: CountryQuery }),
        response: { 200: Page(CollectionCardSchema), ...problemResponses },
      },
      ...cached,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const pricing = await pricingOf(request, storeId, request.query.country);
      return listCollectionCards(deps, storeId, request.query, pricing);
    },
  );

  app.get(
    '/collections/:slug',
    {
      schema: {
        operationId: 'getCollection',
        tags,
        summary: 'One collection by slug',
        params: SlugParams,
        querystring: MarketQuery,
        response: { 200: CollectionCardSchema, ...problemResponses },
      },
      ...cached,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const pricing = await pricingOf(request, storeId, request.query.country);
      return getCollectionCard(deps, storeId, request.params.slug, pricing);
    },
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
        querystring: PageQueryWith({ country: CountryQuery }),
        response: { 200: Page(ProductCardSchema), ...problemResponses },
      },
      ...cached,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const pricing = await pricingOf(request, storeId, request.query.country);
      return listCollectionProductCards(deps, storeId, request.params.slug, request.query, pricing);
    },
  );
};
