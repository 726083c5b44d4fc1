import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, PageQueryWith, problemResponses } from '../http/schemas.ts';
import {
  DeliveryListQuerySchema,
  DeliverySchema,
  EndpointPatchSchema,
  EndpointSchema,
  EndpointWithSecretSchema,
  NewEndpointSchema,
  ReplayResultSchema,
  ReplaySchema,
  TestSendResultSchema,
  TestSendSchema,
} from './webhooks.schemas.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayEvents,
  retryDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  type WebhookDeps,
} from './webhooks.service.ts';

const tags = ['Admin: webhooks'];
const ENDPOINTS = '/webhooks/endpoints';
const DELIVERIES = '/webhooks/deliveries';

/**
 * Webhook endpoints and deliveries (decisions `webhook-endpoints` and `webhook-delivery`): owners and admins. Secrets appear only in the
 * create and rotate responses (with `cache-control: no-store`).
 */
export const webhooksAdminRoutes: FastifyPluginAsyncTypebox<{ deps: WebhookDeps }> = async (
  app,
  { deps },
) => {
  app.post(
    ENDPOINTS,
    {
      schema: {
        operationId: 'adminCreateWebhookEndpoint',
        'x-problems': ['limit_reached'],
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Returns the signing secret (whsec_…) once. https only (plain http to loopback only with ALLOW_HTTP_WEBHOOKS=1); private, loopback, link-local, multicast and metadata addresses are refused.',
        body: NewEndpointSchema,
        response: { 201: EndpointWithSecretSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const endpoint = await createEndpoint(deps, storeId, request.body);
      return reply.code(201).header('cache-control', 'no-store').send(endpoint);
    },
  );

  app.get(
    ENDPOINTS,
    {
      schema: {
        operationId: 'adminListWebhookEndpoints',
        tags,
        summary: 'List webhook endpoints (never the secret)',
        querystring: PageQueryWith({}),
        response: { 200: Page(EndpointSchema), ...problemResponses },
      },
    },
    async (request) => listEndpoints(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        operationId: 'adminGetWebhookEndpoint',
        tags,
        summary: 'One webhook endpoint',
        params: IdParams,
        response: { 200: EndpointSchema, ...problemResponses },
      },
    },
    async (request) => getEndpoint(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        operationId: 'adminUpdateWebhookEndpoint',
        tags,
        summary: 'Change the URL, events, description, or enable/disable an endpoint',
        description:
          'A disabled endpoint gets no new deliveries; its pending ones wait and go once it is enabled again.',
        params: IdParams,
        body: EndpointPatchSchema,
        response: { 200: EndpointSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return updateEndpoint(deps, storeId, request.params.id, request.body);
    },
  );

  app.delete(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        operationId: 'adminDeleteWebhookEndpoint',
        tags,
        summary: 'Delete an endpoint and its deliveries',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      await deleteEndpoint(deps, storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${ENDPOINTS}/:id/rotate-secret`,
    {
      schema: {
        operationId: 'adminRotateWebhookSecret',
        tags,
        summary: 'Issue a new signing secret',
        description:
          'The new secret is shown once. For 24 hours the previous secret keeps signing too: x-webhook-signature then carries two values, "<new>, <previous>".',
        params: IdParams,
        response: { 200: EndpointWithSecretSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const endpoint = await rotateEndpointSecret(deps, storeId, request.params.id);
      return reply.header('cache-control', 'no-store').send(endpoint);
    },
  );

  app.post(
    `${ENDPOINTS}/:id/test`,
    {
      schema: {
        operationId: 'adminSendTestWebhook',
        tags,
        summary: 'Send a signed test event now',
        description:
          "Sends one event envelope now, with a fresh id, `test: true`, and sample data of the event type (valid against the event's schema, in the store's currency), signed like a real delivery, and answers with what the endpoint answered. The send is listed in the deliveries log as a `test` delivery; it is never retried and goes to no other endpoint. Works on disabled endpoints too.",
        params: IdParams,
        body: TestSendSchema,
        response: { 200: TestSendResultSchema, ...problemResponses },
      },
      // The body is optional: a bare POST sends the default event type.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return sendTestEvent(deps, storeId, request.params.id, request.body);
    },
  );

  app.post(
    `${ENDPOINTS}/:id/replay`,
    {
      schema: {
        operationId: 'adminReplayWebhooks',
        'x-problems': ['endpoint_disabled', 'replay_in_progress'],
        tags,
        summary: 'Re-send events since a time (after an outage)',
        description:
          'Queues every matching event created at or after `since` (and before `until`) again, with the same event ids. Events older than EVENT_RETENTION are gone.',
        params: IdParams,
        body: ReplaySchema,
        response: { 202: ReplayResultSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(202).send(await replayEvents(deps, storeId, request.params.id, request.body));
    },
  );

  app.get(
    DELIVERIES,
    {
      schema: {
        operationId: 'adminListWebhookDeliveries',
        tags,
        summary: 'List deliveries with attempts, last status code, last error and next attempt time',
        querystring: DeliveryListQuerySchema,
        response: { 200: Page(DeliverySchema), ...problemResponses },
      },
    },
    async (request) => listDeliveries(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    `${DELIVERIES}/:id`,
    {
      schema: {
        operationId: 'adminGetWebhookDelivery',
        tags,
        summary: 'One delivery',
        params: IdParams,
        response: { 200: DeliverySchema, ...problemResponses },
      },
    },
    async (request) => getDelivery(deps, requireStaff(request).storeId, request.params.id),
  );

  app.post(
    `${DELIVERIES}/:id/retry`,
    {
      schema: {
        operationId: 'adminRetryWebhookDelivery',
        'x-problems': ['endpoint_disabled', 'test_delivery_not_retryable'],
        tags,
        summary: 'Send a delivery again now',
        description:
          'A failed (dead-lettered) or delivered delivery gets one more attempt; a pending one becomes due at once. A test delivery is not sent again (409 test_delivery_not_retryable): send a new test.',
        params: IdParams,
        response: { 202: DeliverySchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(202).send(await retryDelivery(deps, storeId, request.params.id));
    },
  );
};
