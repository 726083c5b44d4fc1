import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { noStoreOnSend } from '../http/caching.ts';
import { problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/principals.ts';
import type { OrdersDeps } from '../orders/orders.deps.ts';
import { CheckoutBodySchema, CheckoutResultSchema } from '../orders/orders.schemas.ts';
import { checkout, checkoutInput, checkoutOfKey, type CheckoutDeps } from './checkout.service.ts';
import { customerGroupIdsOf, customerOf, type CustomerAuthDeps } from '../customers/customers.auth.ts';

/** POST /checkout: a cart becomes a pending order and a payment intent, once per Idempotency-Key. */
export const checkoutStorefrontRoutes: FastifyPluginAsyncTypebox<{
  deps: OrdersDeps & Pick<CheckoutDeps, 'taxService' | 'giftCards'>;
  customers: CustomerAuthDeps;
}> = async (app, { deps, customers }) => {
  app.addHook('onSend', noStoreOnSend);

  app.post(
    '/checkout',
    {
      schema: {
        operationId: 'createCheckout',
        'x-problems': [
          'not_found',
          'idempotency_key_required',
          'idempotency_key_reused',
          'idempotency_in_progress',
          'cart_empty',
          'cart_completed',
          'cart_changed',
          'insufficient_stock',
          'discount_invalid',
          'gift_card_invalid',
          'gift_card_balance_too_low',
          'rate_limited',
          'order_too_large',
          'too_many_pending_orders',
          'shipping_method_unavailable',
          'shipping_unavailable',
          'provider_unavailable',
          'tax_unavailable',
          'unauthorized',
        ],
        'x-response-headers': { 201: ['Idempotent-Replayed'] },
        tags: ['Storefront: checkout'],
        summary: 'Turn a cart into a pending order and a payment intent',
        description:
          'Requires an Idempotency-Key header (UUID). Retrying with the same key and body replays the first answer (Idempotent-Replayed: true); stock is reserved once. A signed-in customer (`Authorization: Bearer ct_…` beside `X-Publishable-Key`) may omit `email`; the order is theirs (`GET /customers/me/orders`). Without a token the order belongs to the customer of its email, whose account shows it once it is paid. The order holds its stock for PAYMENT_HOLD (10 min) until the buyer tries to pay at the provider, then until ORDER_TTL (30 min) from checkout (`order.expiresAt`).',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: 'A UUID; required.' })),
        }),
        // A signed-in customer's token is optional (decision `customer-accounts`).
        security: [
          { publishableKey: [] },
          { publishableKeyBearer: [] },
          { publishableKey: [], customerToken: [] },
        ],
        body: CheckoutBodySchema,
        response: { 201: CheckoutResultSchema, ...problemResponses },
      },
      config: {
        idempotent: {
          name: 'checkout',
          storeId: (request) => requireStorefront(request).storeId,
          // The order carries its key: a retry after a crash answers with it (decision `checkout-after-a-crash`).
          recover: async (request, key) => {
            const made = await checkoutOfKey(deps, requireStorefront(request).storeId, key);
            return made ? { status: 201, body: made } : null;
          },
        },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStorefront(request);
      const customer = await customerOf(customers, request);
      const input = checkoutInput(
        request.body,
        request.ip,
        customer && { id: customer.customerId, email: customer.email },
      );
      // Decision `price-function`: a signed-in customer is priced with their groups' price lists.
      const groupIds = customer ? await customerGroupIdsOf(customers, request) : [];
      void reply.code(201);
      return checkout(
        { ...deps, log: request.log, groupIds },
        storeId,
        input,
        request.idempotencyKey,
        request.storeIdempotentAnswer ?? undefined,
      );
    },
  );
};
