import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { ServiceDeps } from '../db/service-deps.ts';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { PromotionBodySchema, PromotionPatchSchema, PromotionSchema } from './promotions.schemas.ts';
import {
  createPromotion,
  deletePromotion,
  getPromotion,
  listPromotions,
  updatePromotion,
} from './promotions.service.ts';

const tags = ['Admin: promotions'];

/** Promotions (decision `promotions-resource`); discount codes are promotions too. */
export const promotionsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps }> = async (
  app,
  { deps },
) => {
  app.post(
    '/promotions',
    {
      schema: {
        operationId: 'adminCreatePromotion',
        'x-problems': ['validation_failed', 'promotion_code_exists'],
        tags,
        summary: 'Create a promotion',
        description:
          'A code promotion (`code`) or an automatic one (`automatic: true`). `percent` values are percentages (`12.5`), `amount` values minor units. A taken code is 409 `promotion_code_exists`, whatever its case.',
        body: PromotionBodySchema,
        response: { 201: PromotionSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createPromotion(deps, storeId, request.body));
    },
  );

  app.get(
    '/promotions',
    {
      schema: {
        operationId: 'adminListPromotions',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Promotions, oldest first, with their uses so far',
        querystring: PageQuery,
        response: { 200: Page(PromotionSchema), ...problemResponses },
      },
    },
    async (request) => listPromotions(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/promotions/:id',
    {
      schema: {
        operationId: 'adminGetPromotion',
        'x-problems': ['not_found'],
        tags,
        summary: 'A promotion',
        params: IdParams,
        response: { 200: PromotionSchema, ...problemResponses },
      },
    },
    async (request) => getPromotion(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/promotions/:id',
    {
      schema: {
        operationId: 'adminUpdatePromotion',
        'x-problems': ['not_found', 'validation_failed', 'promotion_code_exists'],
        tags,
        summary: 'Change a promotion',
        params: IdParams,
        body: PromotionPatchSchema,
        response: { 200: PromotionSchema, ...problemResponses },
      },
    },
    async (request) => updatePromotion(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/promotions/:id',
    {
      schema: {
        operationId: 'adminDeletePromotion',
        'x-problems': ['not_found'],
        tags,
        summary: 'Delete a promotion',
        description: 'Orders placed with it keep their figures and its code.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await deletePromotion(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
