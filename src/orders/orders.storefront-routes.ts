import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { noStoreOnSend } from '../http/caching.ts';
import { IdParams, problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/principals.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { StorefrontOrderSchema } from './orders.schemas.ts';
import { storefrontOrder } from './orders.service.ts';

export const ordersStorefrontRoutes: FastifyPluginAsyncTypebox<{ deps: OrdersDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onSend', noStoreOnSend);

  app.get(
    '/orders/:id',
    {
      schema: {
        operationId: 'getOrder',
        tags: ['Storefront: checkout'],
        summary: 'An order, for polling its status after payment',
        params: IdParams,
        response: { 200: StorefrontOrderSchema, ...problemResponses },
      },
    },
    async (request) => storefrontOrder(deps, requireStorefront(request).storeId, request.params.id),
  );
};
