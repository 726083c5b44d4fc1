import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../http/context.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import {
  appRowToApp,
  createTheme,
  installApp,
  publishTheme,
  themeRowToTheme,
} from './themes-apps.service.ts';
import { AppSchema, CreateThemeBody, InstallAppBody, ThemeSchema } from './webhooks.schemas.ts';
import { notFound } from '../lib/errors.ts';
import { byCreated } from '../db/keyset.ts';
import { requireStaff } from '../http/principals.ts';

/** Themes and apps (DESIGN D19): owners and admins. */
export const themesAppsAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/themes',
    {
      schema: {
        tags: ['Admin: themes'],
        summary: 'Create a theme (not live until published)',
        body: CreateThemeBody,
        response: { 201: ThemeSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return reply.code(201).send(await createTheme(ctx.db, storeId, request.body, ctx.clock.now()));
    },
  );

  app.get(
    '/themes',
    {
      schema: {
        tags: ['Admin: themes'],
        summary: 'List themes',
        querystring: PageQuery,
        response: { 200: Page(ThemeSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const query = ctx.db.selectFrom('themes').selectAll().where('store_id', '=', storeId);
      return byCreated(ctx.cursors, `${storeId}:themes`, query, request.query, themeRowToTheme);
    },
  );

  app.get(
    '/themes/:id',
    {
      schema: {
        tags: ['Admin: themes'],
        summary: 'One theme',
        params: IdParams,
        response: { 200: ThemeSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const row = await ctx.db
        .selectFrom('themes')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('id', '=', request.params.id)
        .executeTakeFirst();
      if (!row) throw notFound('No theme with that id in this store.');
      return themeRowToTheme(row);
    },
  );

  app.post(
    '/themes/:id/publish',
    {
      schema: {
        tags: ['Admin: themes'],
        summary: 'Make a theme the live theme (emits theme.published)',
        description: 'The previously live theme is unpublished. Publishing the live theme again is a no-op.',
        params: IdParams,
        response: { 200: ThemeSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return publishTheme(ctx.db, storeId, request.params.id, ctx.clock.now());
    },
  );

  app.post(
    '/apps',
    {
      schema: {
        tags: ['Admin: apps'],
        summary: 'Install an app (emits app.installed)',
        body: InstallAppBody,
        response: { 201: AppSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return reply.code(201).send(await installApp(ctx.db, storeId, request.body, ctx.clock.now()));
    },
  );

  app.get(
    '/apps',
    {
      schema: {
        tags: ['Admin: apps'],
        summary: 'List installed apps',
        querystring: PageQuery,
        response: { 200: Page(AppSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const query = ctx.db.selectFrom('apps').selectAll().where('store_id', '=', storeId);
      return byCreated(ctx.cursors, `${storeId}:apps`, query, request.query, appRowToApp);
    },
  );
};
