import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { noStoreOnSend } from '../http/caching.ts';
import { requireStorefront } from '../http/principals.ts';
import Type, { type TSchema } from 'typebox';
import type { ProblemTitle } from '../http/problems.ts';
import { AddressInputSchema, IdParams, problemResponses, Uuid } from '../http/schemas.ts';
import { ShippingOptionSchema } from '../shipping/shipping.schemas.ts';
import { CartBodySchema, CartCountrySchema, CartSchema, IfMatchHeaders } from './carts.schemas.ts';
import {
  cartShippingOptions,
  createCart,
  readCart,
  replaceCart,
  setShippingAddress,
  setShippingMethod,
  type CartsDeps,
  type PricedCart,
  setCartCountry,
} from './carts.service.ts';
import {
  addDiscountCode,
  addGiftCard,
  removeDiscountCode,
  removeGiftCard,
  setDiscountCode,
} from './cart-codes.service.ts';
import type { GiftCardLookupDeps } from '../gift-cards/gift-cards.ledger.ts';

const tags = ['Storefront: carts'];

/** A discount code as a buyer types it (any case; surrounding spaces dropped). */
const CodePattern = '^\\s*[A-Za-z0-9_-]{1,64}\\s*$';

const CodeParams = Type.Object(
  { id: Uuid, code: Type.String({ pattern: CodePattern, description: 'The code, in any case.' }) },
  { additionalProperties: false },
);

/** Answers a cart read or write: the cart, with its entity tag in ETag. */
async function sendCart(reply: FastifyReply, priced: Promise<PricedCart>): Promise<FastifyReply> {
  const { cart, etag } = await priced;
  return reply.header('etag', etag).send(cart);
}

/**
 * The schema of a write to the cart in the path: it answers the cart with its entity tag in ETag,
 * and If-Match makes it conditional (412 when the cart changed since that read).
 */
function cartWrite<
  const S extends {
    operationId: string;
    'x-problems': readonly ProblemTitle[];
    summary: string;
    description: string;
    params: TSchema;
    body?: TSchema;
  },
>(schema: S) {
  return {
    ...schema,
    'x-response-headers': { 200: ['ETag'] } as const,
    tags,
    headers: IfMatchHeaders,
    response: { 200: CartSchema, ...problemResponses },
  };
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
   * Decisions `price-function` and `cart-promotions`: the customer of a request's customer token and
   * their groups, whose price lists and promotions price the cart (given by the composition: carts
   * do not read customers).
   */
  customerBuyer?:
    ((request: FastifyRequest) => Promise<{ customerId: string; groupIds: string[] } | null>) | undefined;
  /** Decision `gift-card-codes`: gift cards found by code, each lookup one of the client's guesses. */
  giftCards: GiftCardLookupDeps;
}> = async (app, { deps, customerBuyer, giftCards }) => {
  /** The carts' deps for this request: with its customer and their groups when it carries a customer token. */
  const depsOf = async (request: FastifyRequest): Promise<CartsDeps> => {
    if (!customerBuyer || !/^Bearer\s+ct_/i.test(String(request.headers.authorization ?? ''))) return deps;
    const buyer = await customerBuyer(request);
    return buyer === null ? deps : { ...deps, groupIds: buyer.groupIds, customerId: buyer.customerId };
  };
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
      schema: cartWrite({
        operationId: 'replaceCart',
        'x-problems': ['cart_completed'],
        summary: 'Replace every line of a cart',
        description:
          'Send the complete desired set of lines, not a delta. With If-Match (the ETag of your last read) the write fails with 412 if another tab changed the cart meanwhile.',
        params: IdParams,
        body: CartBodySchema,
      }),
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
      schema: cartWrite({
        operationId: 'setCartShippingAddress',
        'x-problems': ['cart_completed'],
        summary: 'Set where the cart ships to',
        description:
          'The address is checked against its country’s rules (required fields, ISO 3166-2 region, postal-code format): a bad field is 400 with its pointer (`/postalCode`). With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        body: AddressInputSchema,
      }),
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
      schema: cartWrite({
        operationId: 'setCartCountry',
        'x-problems': ['cart_completed'],
        summary: 'Set the country the cart is priced for (its market)',
        description:
          'Before an address is known, the country picks the market whose currency and prices the cart shows (decision `markets`); the address’s country wins once given. A write that moves the cart to another market prices every line there and says so in `notices` (`market_changed`). With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        body: CartCountrySchema,
      }),
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
      schema: cartWrite({
        operationId: 'setCartShippingMethod',
        'x-problems': ['cart_completed', 'shipping_address_required', 'shipping_method_unavailable'],
        summary: 'Choose the cart’s shipping method',
        description:
          'One of the cart’s shipping options (GET /carts/{id}/shipping-options); the cart’s totals then include its amount. A later change of the lines or the address that the method cannot serve clears it, and that answer carries a `shipping_method_cleared` notice. With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        body: Type.Object({ id: Uuid }, { title: 'ShippingMethodChoice', additionalProperties: false }),
      }),
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
      schema: cartWrite({
        operationId: 'setCartDiscountCode',
        'x-problems': ['cart_completed', 'discount_invalid'],
        summary: 'Set the cart’s one discount code',
        description:
          'Replaces the cart’s codes with this one (POST /carts/{id}/discount-codes/{code} adds one to them). A code that cannot be used now is 409 `discount_invalid`, as at checkout. The cart’s totals then show its discount. With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        body: Type.Object(
          {
            code: Type.String({ pattern: CodePattern, description: 'Case-insensitive.' }),
          },
          { title: 'DiscountCodeInput', additionalProperties: false },
        ),
      }),
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
      schema: cartWrite({
        operationId: 'removeCartDiscountCode',
        'x-problems': ['cart_completed'],
        summary: 'Remove the cart’s discount codes',
        description: 'Removes every code the cart holds.',
        params: IdParams,
      }),
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(reply, setDiscountCode(await depsOf(request), storeId, cartId, null, ifMatch));
    },
  );

  app.post(
    '/carts/:id/discount-codes/:code',
    {
      schema: cartWrite({
        operationId: 'addCartDiscountCode',
        'x-problems': ['cart_completed', 'discount_invalid', 'too_many_discount_codes'],
        summary: 'Add a discount code to the cart',
        description:
          'A cart holds up to 5 codes; every automatic promotion it qualifies for applies without one, and the engine picks the best total the store’s combination rules allow (`promotions` says what applies). A code that cannot be used now is 409 `discount_invalid`; a sixth is 409 `too_many_discount_codes`; a code the cart holds already changes nothing. A code that can be used but takes nothing off stays on the cart with a `discount_not_applicable` notice saying why. With If-Match, 412 if the cart changed meanwhile.',
        params: CodeParams,
      }),
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        addDiscountCode(await depsOf(request), storeId, cartId, request.params.code, ifMatch),
      );
    },
  );

  app.delete(
    '/carts/:id/discount-codes/:code',
    {
      schema: cartWrite({
        operationId: 'removeCartDiscountCodeNamed',
        'x-problems': ['cart_completed'],
        summary: 'Remove one discount code from the cart',
        description: 'A code the cart does not hold changes nothing.',
        params: CodeParams,
      }),
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        removeDiscountCode(await depsOf(request), storeId, cartId, request.params.code, ifMatch),
      );
    },
  );

  app.post(
    '/carts/:id/gift-cards',
    {
      schema: cartWrite({
        operationId: 'addCartGiftCard',
        'x-problems': ['cart_completed', 'gift_card_invalid', 'too_many_gift_cards', 'rate_limited'],
        summary: 'Pay part of the cart with a gift card',
        description:
          'Adds a gift card by its code (any case; spaces and dashes ignored). The cart keeps the card, never its code, and shows it in `giftCards` by its last 4 characters with what it pays; `totals.amountDue` is what is left for the payment provider. A code no card of the store has, or a card disabled, expired, empty or in another currency, is 409 `gift_card_invalid`; a sixth card is 409 `too_many_gift_cards`. Each call spends one of the client’s guesses (RATE_LIMIT_GIFT_CARD per window): past them, 429 `rate_limited`. With If-Match, 412 if the cart changed meanwhile.',
        params: IdParams,
        body: Type.Object(
          { code: Type.String({ minLength: 1, maxLength: 64, description: 'The gift card’s code.' }) },
          { title: 'GiftCardCodeInput', additionalProperties: false },
        ),
      }),
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        addGiftCard(
          { ...(await depsOf(request)), giftCards },
          storeId,
          cartId,
          request.body.code,
          request.ip,
          ifMatch,
        ),
      );
    },
  );

  app.delete(
    '/carts/:id/gift-cards/:last4',
    {
      schema: cartWrite({
        operationId: 'removeCartGiftCard',
        'x-problems': ['cart_completed'],
        summary: 'Remove a gift card from the cart',
        description:
          'Removes the card whose code ends in `last4` (any case). A card the cart does not hold changes nothing.',
        params: Type.Object(
          {
            id: Uuid,
            last4: Type.String({
              pattern: '^[A-Za-z0-9]{4}$',
              description: 'The last 4 characters of its code.',
            }),
          },
          { additionalProperties: false },
        ),
      }),
    },
    async (request, reply) => {
      const { storeId, cartId, ifMatch } = cartWriteOf(request);
      return sendCart(
        reply,
        removeGiftCard(await depsOf(request), storeId, cartId, request.params.last4, ifMatch),
      );
    },
  );
};
