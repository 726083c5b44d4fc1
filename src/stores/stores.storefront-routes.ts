import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cacheableOnSend } from '../http/caching.ts';
import { requireStorefront } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import { StorefrontStoreSchema } from './stores.schemas.ts';
import { storefrontStore, type StoresDeps } from './stores.service.ts';

export const storeStorefrontRoutes: FastifyPluginAsyncTypebox<{ deps: StoresDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/store',
    {
      schema: {
        operationId: 'getStore',
        tags: ['Storefront'],
        summary: 'The store summary',
        response: { 200: StorefrontStoreSchema, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => storefrontStore(deps, requireStorefront(request).storeId),
  );
};
