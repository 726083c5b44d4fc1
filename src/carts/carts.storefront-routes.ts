import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { noStoreOnSend } from '../http/caching.ts';
import { requireStorefront } from '../http/principals.ts';
import Type from 'typebox';
import { AddressInputSchema, IdParams, problemResponses, Uuid } from '../http/schemas.ts';
import { ShippingOptionSchema } from '../shipping/shipping.schemas.ts';
import { CartBodySchema, CartCountrySchema, CartSchema, IfMatchHeaders } from './carts.schemas.ts';
import {
  cartShippingOptions,
  createCart,
  readCart,
  replaceCart,
  setDiscountCode,
  setShippingAddress,
  setShippingMethod,
  type CartsDeps,
  type PricedCart,
  setCartCountry,
} from './carts.service.ts';

const tags = ['Storefront: carts'];

/** Answers a cart read or write: the cart, with its entity tag in ETag. */
async function sendCart(reply: FastifyReply, priced: Promise<PricedCart>): Promise<FastifyReply> {
  const { cart, etag } = await priced;
  return reply.header('etag', etag).send(cart);
}

/** What a write to the cart in the path acts on: the store, the cart, and the client's If-Match. */
function cartWriteOf(
  request: FastifyRequest & { params: { id: string }; headers: { 'if-match'?: string | undefined } },
): { storeId: string; cartId: string; ifMatch: string | undefined } {
  return {
    storeId: requireStorefront(request).storeId,
    cartId: request.params.id,
    ifMatch: request.headers['if-match'],
  };
}

/** Server-side carts (decision `cart-full-replace`). Stock is not checked here; checkout reserves it. */
export const cartsStorefrontRoutes: FastifyPluginAsyncTypebox<{
  deps: CartsDeps;
  /**
   * Decision `price-function`: the customer groups of a request's customer token, whose price
   * lists price the cart (given by the composition: carts do not read customers).
   */
  customerGroups?: ((request: FastifyRequest) => Promise<string[]>) | undefined;
}> = async (app, { deps, customerGroups }) => {
  /** The carts' deps for this request: with its customer's groups when it carries a customer token. */
  const depsOf = async (request: FastifyRequest): Promise<CartsDeps> =>
    customerGroups && /^Bearer\s+ct_/i.test(String(request.headers.authorization ?? ''))
      ? { ...deps, groupIds: await customerGroups(request) }
      : deps;
  app.addHook('onSend', noStoreOnSend);

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
      const { cart, etag } = await createCart(
        await depsOf(request),
        requireStorefront(request).storeId,
        request.body.items,
        request.body.country,
      );
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
      return sendCart(
        reply,
        readCart(await depsOf(request), requireStorefront(request).storeId, request.params.id),
      );
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
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        replaceCart(
          await depsOf(request),
          storeId,
          cartId,
          request.body.items,
          ifMatch,
          request.body.country,
        ),
      );
    },
  );

  app.put(
    '/carts/:id/shipping-address',
    {
      schema: {
        operationId: 'setCartShippingAddress',
        'x-problems': ['cart_completed'],
        'x-response-headers': { 200: ['ETag'] },
        tags,
        summary: 'Set where the cart ships to',
        description:
          'The address is checked against its country’s rules (required fields, ISO 3166-2 region, postal-code format): a bad field is 400 with its pointer (`/postalCode`). With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: AddressInputSchema,
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        setShippingAddress(await depsOf(request), storeId, cartId, request.body, ifMatch),
      );
    },
  );

  app.put(
    '/carts/:id/country',
    {
      schema: {
        operationId: 'setCartCountry',
        'x-problems': ['cart_completed'],
        'x-response-headers': { 200: ['ETag'] },
        tags,
        summary: 'Set the country the cart is priced for (its market)',
        description:
          'Before an address is known, the country picks the market whose currency and prices the cart shows (decision `markets`); the address’s country wins once given. A write that moves the cart to another market prices every line there and says so in `notices` (`market_changed`). With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: CartCountrySchema,
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        setCartCountry(await depsOf(request), storeId, cartId, request.body.country, ifMatch),
      );
    },
  );

  app.get(
    '/carts/:id/shipping-options',
    {
      schema: {
        operationId: 'listCartShippingOptions',
        'x-problems': ['shipping_address_required'],
        tags,
        summary: 'The shipping methods the cart can take to its address, cheapest first',
        description:
          'The methods of the zone the cart’s address belongs to (its most specific), active, that can carry the cart’s lines (weight tiers; free from a subtotal). Empty when no line requires shipping or no zone covers the address.',
        params: IdParams,
        response: {
          200: Type.Object(
            { items: Type.Array(ShippingOptionSchema), nextCursor: Type.Null() },
            { title: 'ShippingOptionList' },
          ),
          ...problemResponses,
        },
      },
    },
    async (request) => ({
      items: await cartShippingOptions(
        await depsOf(request),
        requireStorefront(request).storeId,
        request.params.id,
      ),
      nextCursor: null,
    }),
  );

  app.put(
    '/carts/:id/shipping-method',
    {
      schema: {
        operationId: 'setCartShippingMethod',
        'x-problems': ['cart_completed', 'shipping_address_required', 'shipping_method_unavailable'],
        'x-response-headers': { 200: ['ETag'] },
        tags,
        summary: 'Choose the cart’s shipping method',
        description:
          'One of the cart’s shipping options (GET /carts/{id}/shipping-options); the cart’s totals then include its amount. A later change of the lines or the address that the method cannot serve clears it, and that answer carries a `shipping_method_cleared` notice. With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: Type.Object({ id: Uuid }, { title: 'ShippingMethodChoice', additionalProperties: false }),
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        setShippingMethod(await depsOf(request), storeId, cartId, request.body.id, ifMatch),
      );
    },
  );

  app.put(
    '/carts/:id/discount-code',
    {
      schema: {
        operationId: 'setCartDiscountCode',
        'x-problems': ['cart_completed', 'discount_invalid'],
        'x-response-headers': { 200: ['ETag'] },
        tags,
        summary: 'Apply a discount code to the cart',
        description:
          'A code that cannot be used now is 409 `discount_invalid`, as at checkout. The cart’s totals then show its discount. With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        headers: IfMatchHeaders,
        body: Type.Object(
          {
            code: Type.String({ pattern: '^\\s*[A-Za-z0-9_-]{1,64}\\s*$', description: 'Case-insensitive.' }),
          },
          { title: 'DiscountCodeInput', additionalProperties: false },
        ),
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        setDiscountCode(await depsOf(request), storeId, cartId, request.body.code, ifMatch),
      );
    },
  );

  app.delete(
    '/carts/:id/discount-code',
    {
      schema: {
        operationId: 'removeCartDiscountCode',
        'x-problems': ['cart_completed'],
        'x-response-headers': { 200: ['ETag'] },
        tags,
        summary: 'Remove the cart’s discount code',
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 200: CartSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(reply, setDiscountCode(await depsOf(request), storeId, cartId, null, ifMatch));
    },
  );
};
