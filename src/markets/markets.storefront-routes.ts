import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ServiceDeps } from '../db/service-deps.ts';
import { readCached, type ReadCache } from '../http/read-cache.ts';
import { requireStorefront } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import { StorefrontMarketsSchema } from './markets.schemas.ts';
import { storefrontMarkets } from './markets.service.ts';

/** The store's markets for a shop's country selector (decision `markets`). */
export const marketsStorefrontRoutes: FastifyPluginAsyncTypebox<{
  deps: Pick<ServiceDeps, 'db'>;
  readCache: ReadCache | null;
}> = async (app, { deps, readCache }) => {
  app.get(
    '/store/markets',
    {
      schema: {
        operationId: 'getStoreMarkets',
        tags: ['Storefront'],
        summary: 'The markets a shop offers: each one’s countries, currency and tax display',
        description:
          'Decision `markets`: pass one of a market’s `countries` as `?country=` to catalog reads, and as `country` to carts, to show and charge that market’s currency and prices. The default market (`default: true`, `countries: []`) holds every other country and is what a read without a country gets.',
        response: { 200: StorefrontMarketsSchema, ...problemResponses },
      },
      ...readCached(readCache),
    },
    async (request) => storefrontMarkets(deps, requireStorefront(request).storeId),
  );
};
