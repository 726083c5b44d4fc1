import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireStaff } from '../http/principals.ts';
import { Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { AppSchema, NewAppSchema } from './apps.schemas.ts';
import { installApp, listApps, type AppsDeps } from './apps.service.ts';

const tags = ['Admin: apps'];

/** Installed apps (decision `themes-and-apps`): owners and admins. */
export const appsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: AppsDeps }> = async (app, { deps }) => {
  app.post(
    '/apps',
    {
      schema: {
        operationId: 'adminInstallApp',
        'x-problems': ['app_already_installed'],
        tags,
        summary: 'Install an app (emits app.installed)',
        body: NewAppSchema,
        response: { 201: AppSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await installApp(deps, storeId, request.body));
    },
  );

  app.get(
    '/apps',
    {
      schema: {
        operationId: 'adminListApps',
        tags,
        summary: 'List installed apps',
        querystring: PageQuery,
        response: { 200: Page(AppSchema), ...problemResponses },
      },
    },
    async (request) => listApps(deps, requireStaff(request).storeId, request.query),
  );
};
