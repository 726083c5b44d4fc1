import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { IdParams, Page, PageQuery, PageQueryWith, problemResponses } from '../http/schemas.ts';
import {
  AdminCollectionSchema,
  AdminProductSchema,
  AdminVariantSchema,
  CollectionInputSchema,
  CollectionPatchSchema,
  ProductInputSchema,
  ProductPatchSchema,
  ProductStatusSchema,
  VariantInputSchema,
  VariantPatchSchema,
} from './catalog.schemas.ts';
import {
  createCollection,
  deleteCollection,
  loadAdminCollection,
  toAdminCollection,
  updateCollection,
} from './collections.service.ts';
import {
  addVariant,
  createProduct,
  deleteProduct,
  deleteVariant,
  loadAdminProduct,
  loadAdminProducts,
  updateProduct,
  updateVariant,
} from './products.service.ts';
import { byCreated } from '../db/keyset.ts';
import { requireStaff } from '../http/principals.ts';

const productTags = ['Admin: catalog'];
const NoContent = { 204: Type.Null(), ...problemResponses };

/** Catalog management. Every staff role may edit the catalog. */
export const catalogAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/products',
    {
      schema: {
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
      return reply.code(201).send(await createProduct(ctx.db, storeId, request.body));
    },
  );

  app.get(
    '/products',
    {
      schema: {
        tags: productTags,
        summary: 'All products (any status)',
        querystring: PageQueryWith({ status: Type.Optional(ProductStatusSchema) }),
        response: { 200: Page(AdminProductSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      const scope = `${storeId}:admin-products:${request.query.status ?? '*'}`;
      let query = ctx.db.selectFrom('products').selectAll().where('store_id', '=', storeId);
      if (request.query.status) query = query.where('status', '=', request.query.status);
      const page = await byCreated(ctx.cursors, scope, query, request.query, (row) => row);
      return { items: await loadAdminProducts(ctx.db, storeId, page.items), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/products/:id',
    {
      schema: {
        tags: productTags,
        summary: 'One product',
        params: IdParams,
        response: { 200: AdminProductSchema, ...problemResponses },
      },
    },
    async (request) => loadAdminProduct(ctx.db, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/products/:id',
    {
      schema: {
        tags: productTags,
        summary: 'Change a product',
        description:
          'draft/archived → active emits product.created; active → draft/archived emits product.deleted; other changes to an active product emit product.updated.',
        params: IdParams,
        body: ProductPatchSchema,
        response: { 200: AdminProductSchema, ...problemResponses },
      },
    },
    async (request) => updateProduct(ctx.db, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/products/:id',
    {
      schema: { tags: productTags, summary: 'Delete a product', params: IdParams, response: NoContent },
    },
    async (request, reply) => {
      await deleteProduct(ctx.db, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/products/:id/variants',
    {
      schema: {
        tags: productTags,
        summary: 'Add a variant to a product',
        params: IdParams,
        body: VariantInputSchema,
        response: { 201: AdminVariantSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await addVariant(ctx.db, storeId, request.params.id, request.body));
    },
  );

  app.patch(
    '/variants/:id',
    {
      schema: {
        tags: productTags,
        summary: 'Change a variant: price, SKU, label, stock on hand',
        description: 'A change of sellable stock emits inventory.updated.',
        params: IdParams,
        body: VariantPatchSchema,
        response: { 200: AdminVariantSchema, ...problemResponses },
      },
    },
    async (request) => updateVariant(ctx.db, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/variants/:id',
    {
      schema: { tags: productTags, summary: 'Delete a variant', params: IdParams, response: NoContent },
    },
    async (request, reply) => {
      await deleteVariant(ctx.db, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/collections',
    {
      schema: {
        tags: productTags,
        summary: 'Create a manual or smart collection',
        body: CollectionInputSchema,
        response: { 201: AdminCollectionSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createCollection(ctx.db, storeId, request.body));
    },
  );

  app.get(
    '/collections',
    {
      schema: {
        tags: productTags,
        summary: 'Collections',
        querystring: PageQuery,
        response: { 200: Page(AdminCollectionSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      const query = ctx.db.selectFrom('collections').selectAll().where('store_id', '=', storeId);
      const page = await byCreated(
        ctx.cursors,
        `${storeId}:admin-collections`,
        query,
        request.query,
        (row) => row,
      );
      return {
        items: await Promise.all(page.items.map((row) => toAdminCollection(ctx.db, row))),
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/collections/:id',
    {
      schema: {
        tags: productTags,
        summary: 'One collection',
        params: IdParams,
        response: { 200: AdminCollectionSchema, ...problemResponses },
      },
    },
    async (request) => loadAdminCollection(ctx.db, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/collections/:id',
    {
      schema: {
        tags: productTags,
        summary: 'Change a collection (title, slug, ordered productIds for manual, rules for smart)',
        params: IdParams,
        body: CollectionPatchSchema,
        response: { 200: AdminCollectionSchema, ...problemResponses },
      },
    },
    async (request) =>
      updateCollection(ctx.db, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/collections/:id',
    {
      schema: { tags: productTags, summary: 'Delete a collection', params: IdParams, response: NoContent },
    },
    async (request, reply) => {
      await deleteCollection(ctx.db, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
