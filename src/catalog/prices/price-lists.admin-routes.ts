import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { ServiceDeps } from '../../db/service-deps.ts';
import { requireStaff } from '../../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../../http/schemas.ts';
import {
  MAX_PRICE_LIST_PRICES,
  PriceListBodySchema,
  PriceListPatchSchema,
  PriceListSchema,
  PriceListSummarySchema,
} from './price-lists.schemas.ts';
import {
  createPriceList,
  deletePriceList,
  getPriceList,
  listPriceLists,
  updatePriceList,
} from './price-lists.ts';
import { explainPrice } from './price-explain.ts';
import { PriceExplanationQuery, PriceExplanationSchema } from './price-explain.schemas.ts';

const tags = ['Admin: markets and prices'];

const RULE =
  'Which price a buyer pays: the lowest `sale` price that applies, else the newest `override` that applies, else the market’s price. A list applies while in force (`startsAt` ≤ now < `endsAt`), in its markets (all when empty), to its customer groups (everyone when empty), in the currencies it has prices in.';

/** Price lists (decision `price-lists`): sales and overrides of variants' prices per currency. */
export const priceListsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/variants/:id/price',
    {
      schema: {
        operationId: 'adminExplainVariantPrice',
        tags,
        summary: 'Why a variant costs what it costs: for a country, a customer group, a time',
        description: `${RULE} The price is the one every read and checkout would show and charge.`,
        params: IdParams,
        querystring: PriceExplanationQuery,
        response: { 200: PriceExplanationSchema, ...problemResponses },
      },
    },
    async (request) => explainPrice(deps, requireStaff(request).storeId, request.params.id, request.query),
  );

  app.post(
    '/price-lists',
    {
      schema: {
        operationId: 'adminCreatePriceList',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Add a price list: a sale or an override of variants’ prices',
        description: `${RULE} At most ${MAX_PRICE_LIST_PRICES} prices, one per variant and currency; a variant, market or customer group that is not the store’s is 400 at its field.`,
        body: PriceListBodySchema,
        response: { 201: PriceListSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createPriceList(deps, storeId, request.body));
    },
  );

  app.get(
    '/price-lists',
    {
      schema: {
        operationId: 'adminListPriceLists',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Price lists, oldest first, without their prices',
        querystring: PageQuery,
        response: { 200: Page(PriceListSummarySchema), ...problemResponses },
      },
    },
    async (request) => listPriceLists(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/price-lists/:id',
    {
      schema: {
        operationId: 'adminGetPriceList',
        'x-problems': ['not_found'],
        tags,
        summary: 'A price list with its prices',
        params: IdParams,
        response: { 200: PriceListSchema, ...problemResponses },
      },
    },
    async (request) => getPriceList(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/price-lists/:id',
    {
      schema: {
        operationId: 'adminUpdatePriceList',
        'x-problems': ['not_found', 'validation_failed'],
        tags,
        summary: 'Change a price list',
        description:
          'The fields given change; `marketIds`, `customerGroupIds` and `prices` each replace the list’s. `null` clears a date.',
        params: IdParams,
        body: PriceListPatchSchema,
        response: { 200: PriceListSchema, ...problemResponses },
      },
    },
    async (request) => updatePriceList(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/price-lists/:id',
    {
      schema: {
        operationId: 'adminDeletePriceList',
        'x-problems': ['not_found'],
        tags,
        summary: 'Delete a price list',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await deletePriceList(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
