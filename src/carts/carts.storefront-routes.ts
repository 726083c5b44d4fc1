import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireStorefront } from '../http/principals.ts';
import { IdParams, problemResponses } from '../http/schemas.ts';
import { CartBodySchema, CartSchema, IfMatchHeaders } from './carts.schemas.ts';
import { createCart, readCart, replaceCart, type CartsDeps } from './carts.service.ts';

const tags = ['Storefront: carts'];

/** Server-side carts (DESIGN D3). Stock is not checked here; checkout reserves it. */
export const cartsStorefrontRoutes: FastifyPluginAsyncTypebox<{ deps: CartsDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('cache-control', 'no-store');
    return payload;
  });

  app.post(
    '/carts',
    {
      schema: {
        operationId: 'createCart',
        'x-response-headers': { 201: ['ETag', 'Location'] },
        tags,
        summary: 'Create a cart',
        body: CartBodySchema,
        response: { 201: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { cart, etag } = await createCart(deps, requireStorefront(request).storeId, request.body.items);
      return reply
        .code(201)
        .header('etag', etag)
        .header('location', `/storefront/v1/carts/${cart.id}`)
        .send(cart);
    },
  );

  app.get(
    '/carts/:id',
    {
      schema: {
        operationId: 'getCart',
        'x-response-headers': { 200: ['ETag'] },
        tags,
        summary: 'Read a cart (prices are current)',
        params: IdParams,
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { cart, etag } = await readCart(deps, requireStorefront(request).storeId, request.params.id);
      return reply.header('etag', etag).send(cart);
    },
  );

  app.put(
    '/carts/:id',
    {
      schema: {
        operationId: 'replaceCart',
        'x-problems': ['cart_completed'],
        'x-response-headers': { 200: ['ETag'] },
        tags,
        summary: 'Replace every line of a cart',
        description:
          'Send the complete desired set of lines, not a delta. With If-Match (the ETag of your last read) the write fails with 412 if another tab changed the cart meanwhile.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: CartBodySchema,
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { cart, etag } = await replaceCart(
        deps,
        requireStorefront(request).storeId,
        request.params.id,
        request.body.items,
        request.headers['if-match'],
      );
      return reply.header('etag', etag).send(cart);
    },
  );
};
