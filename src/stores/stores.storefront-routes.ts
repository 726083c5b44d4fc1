import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readCached, type ReadCache } from '../http/read-cache.ts';
import { requireStorefront } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import { StorefrontStoreSchema, StorefrontTaxSchema } from './stores.schemas.ts';
import { pricesIncludeTax, storefrontStore, type StoresDeps } from './stores.service.ts';

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

  app.get(
    '/store/tax',
    {
      schema: {
        operationId: 'getStoreTax',
        tags: ['Storefront'],
        summary: 'How the store shows tax: whether its prices include it',
        description:
          'Decision `prices-include-tax`: when `pricesIncludeTax` is true, label prices “incl. VAT” (or “incl. tax”). A change shows here within a second.',
        response: { 200: StorefrontTaxSchema, ...problemResponses },
      },
    },
    async (request) => ({
      pricesIncludeTax: await pricesIncludeTax(deps, requireStorefront(request).storeId),
    }),
  );
};
