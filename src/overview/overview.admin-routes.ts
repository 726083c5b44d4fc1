import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireStaff } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import { AdminOverviewSchema, OverviewQuerySchema } from './overview.schemas.ts';
import { storeOverview, type OverviewDeps } from './overview.service.ts';

const tags = ['Admin: overview'];

export const overviewAdminRoutes: FastifyPluginAsyncTypebox<{ deps: OverviewDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/overview',
    {
      schema: {
        operationId: 'adminGetOverview',
        tags,
        summary: 'The store at a glance: orders and revenue since a moment, and what needs attention',
        description:
          'Orders paid since `since` and their revenue, orders pending now and expired since `since`, low-stock variants, failed webhook deliveries and the sending domain status.',
        querystring: OverviewQuerySchema,
        response: { 200: AdminOverviewSchema, ...problemResponses },
      },
    },
    async (request) => storeOverview(deps, requireStaff(request).storeId, request.query),
  );
};
