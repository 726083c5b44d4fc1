import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { IdParams, Page, problemResponses, Uuid } from '../http/schemas.ts';
import { requireStaff } from '../http/principals.ts';
import type { OrdersDeps } from './orders.deps.ts';
import {
  AdminOrderSchema,
  CancelOrderBodySchema,
  AdminOrdersQuerySchema,
  RefundBodySchema,
  RefundStartedSchema,
} from './orders.schemas.ts';
import {
  FulfillmentBodySchema,
  FulfillmentPatchSchema,
  FulfillmentSchema,
  ReturnBodySchema,
  ReturnPreviewSchema,
  ReturnSchema,
} from './shipments.schemas.ts';
import { adminOrder, listOrders } from './orders.service.ts';
import { requestRefund } from './refunds.service.ts';
import { cancelFulfillment, changeFulfillment, createFulfillment } from './fulfillments.service.ts';
import { cancelOrder } from './cancellation.service.ts';
import { createReturn, previewReturn } from './returns.service.ts';

const tags = ['Admin: orders'];

export const ordersAdminRoutes: FastifyPluginAsyncTypebox<{ deps: OrdersDeps }> = async (app, { deps }) => {
  app.get(
    '/orders',
    {
      schema: {
        operationId: 'adminListOrders',
        tags,
        summary:
          'Orders, newest first; by status and fulfilment status, and searched by number, email or name',
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
          'At most the paid total minus refunds made or pending. 202: the refund settles when the provider confirms it (order.refunded, refund notice mail). A refund of a `manual` payment (a draft order paid outside) is settled at once without a provider: the money goes back outside.',
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
        request.body.giftCardsFirst,
      );
      return reply.code(202).send(started);
    },
  );

  app.post(
    '/orders/:id/cancel',
    {
      schema: {
        operationId: 'adminCancelOrder',
        'x-problems': ['order_fulfilled', 'order_expired'],
        tags,
        summary: 'Cancel an order: release or restock its units, refund what was paid',
        description:
          'A pending order releases its reservation and its payment is cancelled (a payment that still arrives is refunded in full). A paid order that has not shipped puts its units back on hand (`restock`, default true) and refunds what was captured (`refund`, default true; it settles with order.refunded and its own mail). An order with a shipped or delivered fulfilment is 409 `order_fulfilled`: record a return. Records order.cancelled and mails the buyer. Idempotent: cancelling a cancelled order answers 200 with the order.',
        params: IdParams,
        body: CancelOrderBodySchema,
        response: { 200: AdminOrderSchema, ...problemResponses },
      },
      // No body at all is the defaults (restock and refund).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) =>
      cancelOrder(
        { ...deps, log: request.log },
        requireStaff(request).storeId,
        request.params.id,
        request.body,
      ),
  );

  app.post(
    '/orders/:id/returns',
    {
      schema: {
        operationId: 'adminCreateReturn',
        'x-problems': ['order_not_paid', 'return_exceeds_fulfilled', 'refund_too_large', 'refund_rejected'],
        tags,
        summary: 'Record units that came back: restock them, refund their share',
        description:
          'At most what shipped minus what was returned already. Each line is restocked unless `restock` is false (inventory.updated). `refundAmount` left out refunds the units’ share of what was paid for goods (at most what is left to refund); 0 refunds nothing. The refund goes through the refund path (order.refunded when it settles). Records return.created and, unless notifyCustomer is false, mails the buyer.',
        params: IdParams,
        body: ReturnBodySchema,
        response: { 201: ReturnSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const made = await createReturn(
        { ...deps, log: request.log },
        storeId,
        request.params.id,
        request.body,
      );
      return reply.code(201).send(made);
    },
  );

  app.post(
    '/orders/:id/returns/preview',
    {
      schema: {
        operationId: 'adminPreviewReturn',
        'x-problems': ['order_not_paid', 'return_exceeds_fulfilled'],
        tags,
        summary: 'What a return would refund by default (nothing is written)',
        params: IdParams,
        body: ReturnBodySchema,
        response: { 200: ReturnPreviewSchema, ...problemResponses },
      },
    },
    async (request) => previewReturn(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  const FulfillmentParams = Type.Object({ id: Uuid, fulfillmentId: Uuid });

  app.post(
    '/orders/:id/fulfillments',
    {
      schema: {
        operationId: 'adminCreateFulfillment',
        'x-problems': ['order_not_paid', 'fulfillment_exceeds_order'],
        tags,
        summary: 'Ship units of a paid order, with carrier and tracking',
        description:
          'Partial or complete: at most what was ordered minus what shipped already. A known carrier (UPS, USPS, FedEx, DHL, Royal Mail, Canada Post, Australia Post, PostNL, La Poste, Deutsche Post) with a number gets its tracking URL made. Records fulfillment.created and, unless notifyCustomer is false, mails the buyer a shipping confirmation.',
        params: IdParams,
        body: FulfillmentBodySchema,
        response: { 201: FulfillmentSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createFulfillment(deps, storeId, request.params.id, request.body));
    },
  );

  app.patch(
    '/orders/:id/fulfillments/:fulfillmentId',
    {
      schema: {
        operationId: 'adminUpdateFulfillment',
        'x-problems': ['fulfillment_cancelled'],
        tags,
        summary: 'Change a fulfilment’s tracking, or mark it delivered',
        params: FulfillmentParams,
        body: FulfillmentPatchSchema,
        response: { 200: FulfillmentSchema, ...problemResponses },
      },
    },
    async (request) =>
      changeFulfillment(
        deps,
        requireStaff(request).storeId,
        request.params.id,
        request.params.fulfillmentId,
        request.body,
      ),
  );

  app.post(
    '/orders/:id/fulfillments/:fulfillmentId/cancel',
    {
      schema: {
        operationId: 'adminCancelFulfillment',
        'x-problems': ['fulfillment_delivered'],
        tags,
        summary: 'Cancel a fulfilment (its units count as not shipped again)',
        description: 'Idempotent: cancelling a cancelled fulfilment answers it as it is.',
        params: FulfillmentParams,
        response: { 200: FulfillmentSchema, ...problemResponses },
      },
    },
    async (request) =>
      cancelFulfillment(deps, requireStaff(request).storeId, request.params.id, request.params.fulfillmentId),
  );
};
