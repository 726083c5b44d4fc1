import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readCached, type ReadCache } from '../http/read-cache.ts';
import { requireStorefront } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import { StorefrontStoreSchema } from './stores.schemas.ts';
import { storefrontStore, type StoresDeps } from './stores.service.ts';

export const storeStorefrontRoutes: FastifyPluginAsyncTypebox<{
  deps: StoresDeps;
  readCache: ReadCache | null;
}> = async (app, { deps, readCache }) => {
  const cached = readCached(readCache);
  app.get(
    '/store',
    {
      schema: {
        operationId: 'getStore',
        tags: ['Storefront'],
        summary: 'The store summary',
        response: { 200: StorefrontStoreSchema, ...problemResponses },
      },
      ...cached,
    },
    async (request) => storefrontStore(deps, requireStorefront(request).storeId),
  );
};
