import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import {
  AdminProductSchema,
  AdminProductsQuerySchema,
  AdminVariantSchema,
  ProductInputSchema,
  ProductPatchSchema,
  MAX_VARIANT_LOOKUP,
  VariantInputSchema,
  VariantLookupQuerySchema,
  VariantLookupListSchema,
  VariantPatchSchema,
} from './catalog.schemas.ts';
import {
  AdminCollectionSchema,
  CollectionInputSchema,
  CollectionPatchSchema,
  CollectionPreviewInputSchema,
  CollectionPreviewSchema,
} from './collections/collection.schemas.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import {
  createCollection,
  deleteCollection,
  getCollection,
  listCollectionProducts,
  listCollections,
  previewRules,
  updateCollection,
} from './collections/collections.service.ts';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  updateProduct,
} from './products/products.service.ts';
import { addVariant, deleteVariant, lookupVariants, updateVariant } from './variants/variants.service.ts';

const productTags = ['Admin: catalog'];
const NoContent = { 204: Type.Null(), ...problemResponses };

/** Catalog management. Every staff role may edit the catalog. */
export const catalogAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.post(
    '/products',
    {
      schema: {
        operationId: 'adminCreateProduct',
        'x-problems': ['sku_unavailable', 'limit_reached'],
        tags: productTags,
        summary: 'Create a product with its variants',
        description:
          'An active product needs at least one variant. Emits product.created when created active.',
        body: ProductInputSchema,
        response: { 201: AdminProductSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createProduct(deps, storeId, request.body));
    },
  );

  app.get(
    '/products',
    {
      schema: {
        operationId: 'adminListProducts',
        tags: productTags,
        summary: 'All products (any status)',
        querystring: AdminProductsQuerySchema,
        response: { 200: Page(AdminProductSchema), ...problemResponses },
      },
    },
    async (request) => listProducts(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/products/:id',
    {
      schema: {
        operationId: 'adminGetProduct',
        tags: productTags,
        summary: 'One product',
        params: IdParams,
        response: { 200: AdminProductSchema, ...problemResponses },
      },
    },
    async (request) => getProduct(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/products/:id',
    {
      schema: {
        operationId: 'adminUpdateProduct',
        tags: productTags,
        summary: 'Change a product',
        description:
          'draft/archived → active emits product.created; active → draft/archived emits product.deleted; other changes to an active product emit product.updated.',
        params: IdParams,
        body: ProductPatchSchema,
        response: { 200: AdminProductSchema, ...problemResponses },
      },
    },
    async (request) => updateProduct(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/products/:id',
    {
      schema: {
        operationId: 'adminDeleteProduct',
        tags: productTags,
        summary: 'Delete a product',
        params: IdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteProduct(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/products/:id/variants',
    {
      schema: {
        operationId: 'adminCreateVariant',
        'x-problems': ['sku_unavailable', 'limit_reached'],
        tags: productTags,
        summary: 'Add a variant to a product',
        params: IdParams,
        body: VariantInputSchema,
        response: { 201: AdminVariantSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await addVariant(deps, storeId, request.params.id, request.body));
    },
  );

  app.get(
    '/variants',
    {
      schema: {
        operationId: 'adminLookupVariants',
        tags: productTags,
        summary: 'Find variants by SKU or id',
        description: `The store's variants whose SKU (compared exactly) or id is one of those given (\`?sku=A&sku=B&id=…\`, at most ${MAX_VARIANT_LOOKUP} of each), with their products' titles, archived ones too; none given: none. For a form resolving pasted SKUs without reading the whole catalog.`,
        querystring: VariantLookupQuerySchema,
        response: { 200: VariantLookupListSchema, ...problemResponses },
      },
    },
    async (request) => lookupVariants(deps, requireStaff(request).storeId, request.query),
  );

  app.patch(
    '/variants/:id',
    {
      schema: {
        operationId: 'adminUpdateVariant',
        'x-problems': ['sku_unavailable', 'stock_reserved'],
        tags: productTags,
        summary: 'Change a variant: price, SKU, label, stock on hand',
        description: 'A change of sellable stock emits inventory.updated.',
        params: IdParams,
        body: VariantPatchSchema,
        response: { 200: AdminVariantSchema, ...problemResponses },
      },
    },
    async (request) => updateVariant(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/variants/:id',
    {
      schema: {
        operationId: 'adminDeleteVariant',
        tags: productTags,
        summary: 'Delete a variant',
        params: IdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteVariant(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/collections',
    {
      schema: {
        operationId: 'adminCreateCollection',
        'x-problems': ['slug_unavailable', 'limit_reached'],
        tags: productTags,
        summary: 'Create a manual or smart collection',
        body: CollectionInputSchema,
        response: { 201: AdminCollectionSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createCollection(deps, storeId, request.body));
    },
  );

  app.get(
    '/collections',
    {
      schema: {
        operationId: 'adminListCollections',
        tags: productTags,
        summary: 'Collections',
        querystring: PageQuery,
        response: { 200: Page(AdminCollectionSchema), ...problemResponses },
      },
    },
    async (request) => listCollections(deps, requireStaff(request).storeId, request.query),
  );

  app.post(
    '/collections/preview',
    {
      schema: {
        operationId: 'adminPreviewCollection',
        tags: productTags,
        summary: 'The products smart-collection rules would match',
        description:
          'Checks the rules as creating a smart collection does (400 with pointers under /rules) and answers the first `limit` matching products of any status, in the collection order, with how many match. Writes nothing.',
        body: CollectionPreviewInputSchema,
        response: { 200: CollectionPreviewSchema, ...problemResponses },
      },
    },
    async (request) => previewRules(deps, requireStaff(request).storeId, request.body),
  );

  app.get(
    '/collections/:id/products',
    {
      schema: {
        operationId: 'adminListCollectionProducts',
        tags: productTags,
        summary: "A collection's products (any status), in its order",
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Page(AdminProductSchema), ...problemResponses },
      },
    },
    async (request) =>
      listCollectionProducts(deps, requireStaff(request).storeId, request.params.id, request.query),
  );

  app.get(
    '/collections/:id',
    {
      schema: {
        operationId: 'adminGetCollection',
        tags: productTags,
        summary: 'One collection',
        params: IdParams,
        response: { 200: AdminCollectionSchema, ...problemResponses },
      },
    },
    async (request) => getCollection(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/collections/:id',
    {
      schema: {
        operationId: 'adminUpdateCollection',
        'x-problems': ['slug_unavailable'],
        tags: productTags,
        summary: 'Change a collection (title, slug, ordered productIds for manual, rules for smart)',
        params: IdParams,
        body: CollectionPatchSchema,
        response: { 200: AdminCollectionSchema, ...problemResponses },
      },
    },
    async (request) => updateCollection(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/collections/:id',
    {
      schema: {
        operationId: 'adminDeleteCollection',
        tags: productTags,
        summary: 'Delete a collection',
        params: IdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteCollection(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
