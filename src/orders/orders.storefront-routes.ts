import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { IdParams, problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/principals.ts';
import { isCountryCode } from '../lib/country.ts';
import { isEmail } from '../lib/validate.ts';
import { checkout, checkoutOfKey } from './checkout.service.ts';
import { idempotencyKeyOf, requestHash, withIdempotency } from './idempotency.ts';
import { CheckoutResponse, StorefrontOrderSchema } from './orders.schemas.ts';
import { storefrontOrder } from './orders.service.ts';
import { validationFailed } from '../lib/errors.ts';

const CheckoutBody = Type.Object(
  {
    cartId: Type.String({ format: 'uuid' }),
    email: Type.String({
      minLength: 3,
      maxLength: 254,
      description: "The buyer's address; receives order mail.",
    }),
    country: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; drives tax and shipping.' }),
    ),
    discountCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const ordersStorefrontRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('cache-control', 'no-store');
    return payload;
  });

  app.post(
    '/checkout',
    {
      schema: {
        tags: ['Storefront: checkout'],
        summary: 'Turn a cart into a pending order and a payment intent',
        description:
          'Requires an Idempotency-Key header (UUID). Retrying with the same key and body replays the first answer (Idempotent-Replayed: true); stock is reserved once.',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: 'A UUID; required.' })),
        }),
        body: CheckoutBody,
        response: { 201: CheckoutResponse, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStorefront(request);
      const key = idempotencyKeyOf(request);
      const body = request.body;
      const email = body.email.trim();
      const country = body.country?.toUpperCase();
      const errors = [];
      if (!isEmail(email)) errors.push({ pointer: '/email', detail: 'must be an email address' });
      if (country !== undefined && !isCountryCode(country))
        errors.push({ pointer: '/country', detail: 'must be an ISO 3166-1 alpha-2 country code' });
      if (errors.length > 0) throw validationFailed('The checkout request is invalid.', errors);

      return withIdempotency(
        {
          db: ctx.db,
          keyring: ctx.keyring,
          clock: ctx.clock,
          ttlMs: ctx.config.payments.idempotencyTtlMs,
          leaseMs: ctx.config.payments.idempotencyLeaseMs,
          storeId,
          route: 'checkout',
          key,
          hash: requestHash(body),
          // The order carries its key: a retry after a crash answers with it (D25).
          recover: async () => {
            const made = await checkoutOfKey(ctx, storeId, key);
            return made ? { status: 201, body: made } : null;
          },
        },
        reply,
        async () => {
          const result = await checkout(
            {
              db: ctx.db,
              keyring: ctx.keyring,
              clock: ctx.clock,
              provider: ctx.payments,
              orderTtlMs: ctx.config.payments.orderTtlMs,
              log: request.log,
            },
            storeId,
            { cartId: body.cartId, email, country, discountCode: body.discountCode },
            key,
          );
          return { status: 201, body: result };
        },
      );
    },
  );

  app.get(
    '/orders/:id',
    {
      schema: {
        tags: ['Storefront: checkout'],
        summary: 'An order, for polling its status after payment',
        params: IdParams,
        response: { 200: StorefrontOrderSchema, ...problemResponses },
      },
    },
    async (request) => storefrontOrder(ctx.db, requireStorefront(request).storeId, request.params.id),
  );
};
