import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdParams, Page, problemResponses } from '../http/schemas.ts';
import { requireStaff } from '../http/principals.ts';
import type { OrdersDeps } from './orders.deps.ts';
import {
  AdminOrderSchema,
  AdminOrdersQuerySchema,
  RefundBodySchema,
  RefundStartedSchema,
} from './orders.schemas.ts';
import { adminOrder, listOrders } from './orders.service.ts';
import { requestRefund } from './refunds.service.ts';

const tags = ['Admin: orders'];

export const ordersAdminRoutes: FastifyPluginAsyncTypebox<{ deps: OrdersDeps }> = async (app, { deps }) => {
  app.get(
    '/orders',
    {
      schema: {
        operationId: 'adminListOrders',
        tags,
        summary: 'Orders, newest first; by status, and searched by number, email or name',
        querystring: AdminOrdersQuerySchema,
        response: { 200: Page(AdminOrderSchema), ...problemResponses },
      },
    },
    async (request) => listOrders(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/orders/:id',
    {
      schema: {
        operationId: 'adminGetOrder',
        tags,
        summary: 'One order with lines, payments and refunds',
        params: IdParams,
        response: { 200: AdminOrderSchema, ...problemResponses },
      },
    },
    async (request) => adminOrder(deps, requireStaff(request).storeId, request.params.id),
  );

  app.post(
    '/orders/:id/refunds',
    {
      schema: {
        operationId: 'adminCreateRefund',
        'x-problems': ['order_not_paid', 'refund_too_large', 'refund_rejected', 'provider_unavailable'],
        tags,
        summary: 'Refund part or all of a paid order',
        description:
          'At most the paid total minus refunds made or pending. 202: the refund settles when the provider confirms it (order.refunded, refund notice mail).',
        params: IdParams,
        body: RefundBodySchema,
        response: { 202: RefundStartedSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const started = await requestRefund(
        { ...deps, log: request.log },
        storeId,
        request.params.id,
        request.body.amount,
        request.body.reason,
      );
      return reply.code(202).send(started);
    },
  );
};
