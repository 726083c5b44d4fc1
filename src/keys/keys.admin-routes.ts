import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { CreatedKeySchema, KeyPatchSchema, NewKeySchema, StorefrontKeySchema } from './keys.schemas.ts';
import {
  createStorefrontKey,
  getStorefrontKey,
  listStorefrontKeys,
  revokeStorefrontKey,
  updateStorefrontKey,
  type KeysDeps,
} from './keys.service.ts';

const tags = ['Admin: storefront keys'];
const PREFIX = '/integrations/storefront-keys';

/** Publishable keys for the Storefront API: owners and admins. */
export const keysAdminRoutes: FastifyPluginAsyncTypebox<{ deps: KeysDeps }> = async (app, { deps }) => {
  app.post(
    PREFIX,
    {
      schema: {
        operationId: 'adminCreateStorefrontKey',
        'x-problems': ['limit_reached'],
        tags,
        summary: 'Create a publishable key',
        body: NewKeySchema,
        response: { 201: CreatedKeySchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const key = await createStorefrontKey(deps, storeId, request.body);
      return reply.code(201).header('cache-control', 'no-store').send(key);
    },
  );

  app.get(
    PREFIX,
    {
      schema: {
        operationId: 'adminListStorefrontKeys',
        tags,
        summary: 'List publishable keys (never the full key)',
        querystring: PageQuery,
        response: { 200: Page(StorefrontKeySchema), ...problemResponses },
      },
    },
    async (request) => listStorefrontKeys(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    `${PREFIX}/:id`,
    {
      schema: {
        operationId: 'adminGetStorefrontKey',
        tags,
        summary: 'One publishable key',
        params: IdParams,
        response: { 200: StorefrontKeySchema, ...problemResponses },
      },
    },
    async (request) => getStorefrontKey(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    `${PREFIX}/:id`,
    {
      schema: {
        operationId: 'adminUpdateStorefrontKey',
        tags,
        summary: "Change a key's label, allowed origins or rate-limit overrides",
        params: IdParams,
        body: KeyPatchSchema,
        response: { 200: StorefrontKeySchema, ...problemResponses },
      },
    },
    async (request) =>
      updateStorefrontKey(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    `${PREFIX}/:id`,
    {
      schema: {
        operationId: 'adminRevokeStorefrontKey',
        tags,
        summary: 'Revoke a publishable key',
        description: 'The key answers 401 on every process within 1 second.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await revokeStorefrontKey(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
