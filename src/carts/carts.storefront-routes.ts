import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { IdParams, MoneySchema, problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/principals.ts';
import { OrderLineSchema } from '../orders/orders.schemas.ts';
import { cartEtag, createCart, findCart, priceCart, replaceCart } from './carts.service.ts';

const tags = ['Storefront: carts'];

const CartItemInput = Type.Object(
  {
    variantId: Type.String({ format: 'uuid' }),
    quantity: Type.Integer({ minimum: 1, maximum: 999 }),
  },
  { additionalProperties: false },
);

const CartBody = Type.Object(
  {
    items: Type.Array(CartItemInput, {
      maxItems: 1000,
      description: 'Lines of the same variant are merged.',
    }),
  },
  { additionalProperties: false },
);

export const CartSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    items: Type.Array(OrderLineSchema, { description: 'Priced lines (the same shape as order lines).' }),
    subtotal: MoneySchema,
    completed: Type.Boolean({ description: 'True once checked out; the cart is then read-only.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Cart' },
);

const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({ maxLength: 200, description: "The cart's ETag from a previous response." }),
  ),
});

/** Server-side carts (DESIGN D3). Stock is not checked here; checkout reserves it. */
export const cartsStorefrontRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('cache-control', 'no-store');
    return payload;
  });

  app.post(
    '/carts',
    {
      schema: {
        tags,
        summary: 'Create a cart',
        body: CartBody,
        response: { 201: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStorefront(request);
      const row = await createCart(ctx.db, storeId, request.body.items);
      const cart = await priceCart(ctx.db, row);
      return reply
        .code(201)
        .header('etag', cartEtag(row, cart))
        .header('location', `/storefront/v1/carts/${row.id}`)
        .send(cart);
    },
  );

  app.get(
    '/carts/:id',
    {
      schema: {
        tags,
        summary: 'Read a cart (prices are current)',
        params: IdParams,
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStorefront(request);
      const row = await findCart(ctx.db, storeId, request.params.id);
      const cart = await priceCart(ctx.db, row);
      return reply.header('etag', cartEtag(row, cart)).send(cart);
    },
  );

  app.put(
    '/carts/:id',
    {
      schema: {
        tags,
        summary: 'Replace every line of a cart',
        description:
          'Send the complete desired set of lines, not a delta. With If-Match (the ETag of your last read) the write fails with 412 if another tab changed the cart meanwhile.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: CartBody,
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStorefront(request);
      const row = await replaceCart(
        ctx.db,
        storeId,
        request.params.id,
        request.body.items,
        request.headers['if-match'],
      );
      const cart = await priceCart(ctx.db, row);
      return reply.header('etag', cartEtag(row, cart)).send(cart);
    },
  );
};
