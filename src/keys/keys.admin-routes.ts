import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { byCreated } from '../http/pagination.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStaff } from '../staff/staff-auth.ts';
import {
  createStorefrontKey,
  keyRowToKey,
  revokeStorefrontKey,
  updateStorefrontKey,
} from './keys.service.ts';
import { notFound } from '../lib/errors.ts';

const tags = ['Admin: storefront keys'];
const PREFIX = '/integrations/storefront-keys';

const Origins = Type.Array(Type.String({ maxLength: 300 }), {
  maxItems: 50,
  description:
    'Browser origins (scheme://host[:port]) allowed to use the key. A request with another Origin is 403; requests without Origin (server code) pass. A guard against embedding on other sites, not a secret.',
});

const Budget = Type.Union([Type.Integer({ minimum: 1, maximum: 10_000_000 }), Type.Null()]);

const StorefrontKeySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    label: Type.String(),
    keyPrefix: Type.String({ description: 'The first 12 characters of the key, to recognise it.' }),
    allowedOrigins: Type.Array(Type.String()),
    rateLimits: Type.Object(
      {
        publicRead: Budget,
        publicWrite: Budget,
      },
      { description: 'Per-key budgets per window; null means the platform default.' },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'StorefrontKey' },
);

const CreatedKeySchema = Type.Intersect([
  StorefrontKeySchema,
  Type.Object({ key: Type.String({ description: 'The full pk_ key. Shown only in this response.' }) }),
]);

/** Publishable keys for the Storefront API: owners and admins. */
export const keysAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    PREFIX,
    {
      schema: {
        tags,
        summary: 'Create a publishable key',
        body: Type.Object(
          { label: Type.String({ minLength: 1, maxLength: 200 }), allowedOrigins: Type.Optional(Origins) },
          { additionalProperties: false },
        ),
        response: { 201: CreatedKeySchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const key = await createStorefrontKey(ctx.db, storeId, {
        label: request.body.label,
        allowedOrigins: request.body.allowedOrigins ?? [],
      });
      return reply.code(201).header('cache-control', 'no-store').send(key);
    },
  );

  app.get(
    PREFIX,
    {
      schema: {
        tags,
        summary: 'List publishable keys (never the full key)',
        querystring: PageQuery,
        response: { 200: Page(StorefrontKeySchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const query = ctx.db.selectFrom('storefront_keys').selectAll().where('store_id', '=', storeId);
      return byCreated(ctx.cursors, `${storeId}:storefront-keys`, query, request.query, keyRowToKey);
    },
  );

  app.get(
    `${PREFIX}/:id`,
    {
      schema: {
        tags,
        summary: 'One publishable key',
        params: IdParams,
        response: { 200: StorefrontKeySchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const row = await ctx.db
        .selectFrom('storefront_keys')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('id', '=', request.params.id)
        .executeTakeFirst();
      if (!row) throw notFound('No storefront key with that id in this store.');
      return keyRowToKey(row);
    },
  );

  app.patch(
    `${PREFIX}/:id`,
    {
      schema: {
        tags,
        summary: "Change a key's label, allowed origins or rate-limit overrides",
        params: IdParams,
        body: Type.Object(
          {
            label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            allowedOrigins: Type.Optional(Origins),
            rateLimits: Type.Optional(
              Type.Object(
                { publicRead: Type.Optional(Budget), publicWrite: Type.Optional(Budget) },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: StorefrontKeySchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const key = await updateStorefrontKey(ctx.db, storeId, request.params.id, request.body);
      ctx.keys.forgetStore(storeId);
      return key;
    },
  );

  app.delete(
    `${PREFIX}/:id`,
    {
      schema: {
        tags,
        summary: 'Revoke a publishable key',
        description: 'The key answers 401 on every process within 1 second.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      await revokeStorefrontKey(ctx.db, storeId, request.params.id);
      ctx.keys.forgetStore(storeId);
      return reply.code(204).send(null);
    },
  );
};
