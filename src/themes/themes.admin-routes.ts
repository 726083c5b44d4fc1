import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { NewThemeSchema, ThemeSchema } from './themes.schemas.ts';
import { createTheme, getTheme, listThemes, publishTheme, type ThemesDeps } from './themes.service.ts';

const tags = ['Admin: themes'];

/** Themes (decision `themes-and-apps`): owners and admins. */
export const themesAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ThemesDeps }> = async (app, { deps }) => {
  app.post(
    '/themes',
    {
      schema: {
        operationId: 'adminCreateTheme',
        tags,
        summary: 'Create a theme (not live until published)',
        body: NewThemeSchema,
        response: { 201: ThemeSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createTheme(deps, storeId, request.body));
    },
  );

  app.get(
    '/themes',
    {
      schema: {
        operationId: 'adminListThemes',
        tags,
        summary: 'List themes',
        querystring: PageQuery,
        response: { 200: Page(ThemeSchema), ...problemResponses },
      },
    },
    async (request) => listThemes(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/themes/:id',
    {
      schema: {
        operationId: 'adminGetTheme',
        tags,
        summary: 'One theme',
        params: IdParams,
        response: { 200: ThemeSchema, ...problemResponses },
      },
    },
    async (request) => getTheme(deps, requireStaff(request).storeId, request.params.id),
  );

  app.post(
    '/themes/:id/publish',
    {
      schema: {
        operationId: 'adminPublishTheme',
        tags,
        summary: 'Make a theme the live theme (emits theme.published)',
        description: 'The previously live theme is unpublished. Publishing the live theme again is a no-op.',
        params: IdParams,
        response: { 200: ThemeSchema, ...problemResponses },
      },
    },
    async (request) => publishTheme(deps, requireStaff(request).storeId, request.params.id),
  );
};
