import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { ServiceDeps } from '../db/service-deps.ts';
import { requireStaff } from '../http/principals.ts';
import { IdParams, problemResponses } from '../http/schemas.ts';
import { MarketBodySchema, MarketPatchSchema, MarketSchema } from './markets.schemas.ts';
import {
  createMarket,
  deleteMarket,
  getMarket,
  listMarkets,
  updateMarket,
  type MarketsDeps,
} from './markets.service.ts';

const tags = ['Admin: markets and prices'];

/** Markets (decision `markets`): the countries a store sells to in each currency. */
export const marketsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps & MarketsDeps }> = async (
  app,
  { deps },
) => {
  app.post(
    '/markets',
    {
      schema: {
        operationId: 'adminCreateMarket',
        'x-problems': ['market_conflict'],
        tags,
        summary: 'Add a market: countries sold to in one currency',
        description:
          'A country is in one market at most (409 `market_conflict`). Prices in the market are each variant’s explicit price in its currency, else its store price × `exchangeRate`, rounded by `rounding` in the currency’s ISO 4217 minor units.',
        body: MarketBodySchema,
        response: { 201: MarketSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createMarket(deps, storeId, request.body));
    },
  );

  app.get(
    '/markets',
    {
      schema: {
        operationId: 'adminListMarkets',
        tags,
        summary: 'Markets, the default first',
        response: {
          200: Type.Object(
            { items: Type.Array(MarketSchema), nextCursor: Type.Null() },
            { title: 'MarketList' },
          ),
          ...problemResponses,
        },
      },
    },
    async (request) => ({ items: await listMarkets(deps, requireStaff(request).storeId), nextCursor: null }),
  );

  app.get(
    '/markets/:id',
    {
      schema: {
        operationId: 'adminGetMarket',
        tags,
        summary: 'One market',
        params: IdParams,
        response: { 200: MarketSchema, ...problemResponses },
      },
    },
    async (request) => getMarket(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/markets/:id',
    {
      schema: {
        operationId: 'adminUpdateMarket',
        'x-problems': ['market_conflict'],
        tags,
        summary: 'Change a market',
        description:
          '`countries` replaces the market’s countries. The default market takes only `name` and `pricesIncludeTax` (the store setting).',
        params: IdParams,
        body: MarketPatchSchema,
        response: { 200: MarketSchema, ...problemResponses },
      },
    },
    async (request) => updateMarket(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/markets/:id',
    {
      schema: {
        operationId: 'adminDeleteMarket',
        'x-problems': ['market_is_default'],
        tags,
        summary: 'Delete a market (its countries join the default market)',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await deleteMarket(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
