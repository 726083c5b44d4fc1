import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { IdParams, Page, PageQueryWith, problemResponses, Uuid } from '../http/schemas.ts';
import { themesAppsAdminRoutes } from './themes-apps.admin-routes.ts';
import {
  CreateEndpointBody,
  DeliverySchema,
  DeliveryStatusSchema,
  EndpointSchema,
  EndpointWithSecretSchema,
  ReplayBody,
  ReplayResponse,
  TestSendBody,
  TestSendResponse,
  UpdateEndpointBody,
} from './webhooks.schemas.ts';
import { WebhookSender } from './webhooks.sender.ts';
import {
  createEndpoint,
  deleteEndpoint,
  deliveriesQuery,
  deliveryRowToDelivery,
  endpointRowToEndpoint,
  getDelivery,
  getEndpointRow,
  replayEvents,
  retryDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  type WebhookServiceDeps,
} from './webhooks.service.ts';
import { byCreated } from '../db/keyset.ts';
import { requireStaff } from '../http/principals.ts';

const tags = ['Admin: webhooks'];
const ENDPOINTS = '/webhooks/endpoints';
const DELIVERIES = '/webhooks/deliveries';

/**
 * Webhook endpoints and deliveries (DESIGN D14, D15): owners and admins. Secrets appear only in the
 * create and rotate responses (with `cache-control: no-store`).
 */
export const webhooksAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const deps: WebhookServiceDeps = {
    db: ctx.db,
    keyring: ctx.keyring,
    allowHttp: ctx.config.webhooks.allowHttp,
    now: () => ctx.clock.now(),
  };

  // Test sends go out from the API process itself, through the same SSRF-guarded agents as the relay.
  const sender = new WebhookSender(ctx.config.webhooks);
  app.addHook('onClose', () => sender.close());

  await app.register(themesAppsAdminRoutes, { ctx });

  app.post(
    ENDPOINTS,
    {
      schema: {
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Returns the signing secret (whsec_…) once. https only (plain http to loopback only with ALLOW_HTTP_WEBHOOKS=1); private, loopback, link-local, multicast and metadata addresses are refused.',
        body: CreateEndpointBody,
        response: { 201: EndpointWithSecretSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const endpoint = await createEndpoint(deps, storeId, request.body);
      return reply.code(201).header('cache-control', 'no-store').send(endpoint);
    },
  );

  app.get(
    ENDPOINTS,
    {
      schema: {
        tags,
        summary: 'List webhook endpoints (never the secret)',
        querystring: PageQueryWith({}),
        response: { 200: Page(EndpointSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const now = ctx.clock.now();
      const query = ctx.db.selectFrom('webhook_endpoints').selectAll().where('store_id', '=', storeId);
      return byCreated(ctx.cursors, `${storeId}:webhook-endpoints`, query, request.query, (row) =>
        endpointRowToEndpoint(row, now),
      );
    },
  );

  app.get(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        tags,
        summary: 'One webhook endpoint',
        params: IdParams,
        response: { 200: EndpointSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return endpointRowToEndpoint(await getEndpointRow(ctx.db, storeId, request.params.id), ctx.clock.now());
    },
  );

  app.patch(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        tags,
        summary: 'Change the URL, events, description, or enable/disable an endpoint',
        description:
          'A disabled endpoint gets no new deliveries; its pending ones wait and go once it is enabled again.',
        params: IdParams,
        body: UpdateEndpointBody,
        response: { 200: EndpointSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return updateEndpoint(deps, storeId, request.params.id, request.body);
    },
  );

  app.delete(
    `${ENDPOINTS}/:id`,
    {
      schema: {
        tags,
        summary: 'Delete an endpoint and its deliveries',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      await deleteEndpoint(ctx.db, storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${ENDPOINTS}/:id/rotate-secret`,
    {
      schema: {
        tags,
        summary: 'Issue a new signing secret',
        description:
          'The new secret is shown once. For 24 hours the previous secret keeps signing too: x-webhook-signature then carries two values, "<new>, <previous>".',
        params: IdParams,
        response: { 200: EndpointWithSecretSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const endpoint = await rotateEndpointSecret(deps, storeId, request.params.id);
      return reply.header('cache-control', 'no-store').send(endpoint);
    },
  );

  app.post(
    `${ENDPOINTS}/:id/test`,
    {
      schema: {
        tags,
        summary: 'Send a signed test event now',
        description:
          'Sends one event envelope with data {storeId, test: true} and a fresh id, signed like a real delivery, and answers with what the endpoint answered. Not stored, not retried; works on disabled endpoints too.',
        params: IdParams,
        body: TestSendBody,
        response: { 200: TestSendResponse, ...problemResponses },
      },
      // The body is optional: a bare POST sends the default event type.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return sendTestEvent({ ...deps, sender }, storeId, request.params.id, request.body);
    },
  );

  app.post(
    `${ENDPOINTS}/:id/replay`,
    {
      schema: {
        tags,
        summary: 'Re-send events since a time (after an outage)',
        description:
          'Queues every matching event created at or after `since` (and before `until`) again, with the same event ids. Events older than EVENT_RETENTION are gone.',
        params: IdParams,
        body: ReplayBody,
        response: { 202: ReplayResponse, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const replayed = await replayEvents(deps, storeId, request.params.id, {
        since: new Date(request.body.since),
        until: request.body.until === undefined ? undefined : new Date(request.body.until),
      });
      return reply.code(202).send({ replayed });
    },
  );

  app.get(
    DELIVERIES,
    {
      schema: {
        tags,
        summary: 'List deliveries with attempts, last status code, last error and next attempt time',
        querystring: PageQueryWith({
          endpointId: Type.Optional(Uuid),
          status: Type.Optional(DeliveryStatusSchema),
        }),
        response: { 200: Page(DeliverySchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const { endpointId, status } = request.query;
      let query = deliveriesQuery(ctx.db, storeId);
      if (endpointId !== undefined) query = query.where('d.endpoint_id', '=', endpointId);
      if (status !== undefined) query = query.where('d.status', '=', status);
      return byCreated(
        ctx.cursors,
        `${storeId}:webhook-deliveries:${endpointId ?? ''}:${status ?? ''}`,
        query,
        request.query,
        deliveryRowToDelivery,
        'd.',
      );
    },
  );

  app.get(
    `${DELIVERIES}/:id`,
    {
      schema: {
        tags,
        summary: 'One delivery',
        params: IdParams,
        response: { 200: DeliverySchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return getDelivery(ctx.db, storeId, request.params.id);
    },
  );

  app.post(
    `${DELIVERIES}/:id/retry`,
    {
      schema: {
        tags,
        summary: 'Send a delivery again now',
        description:
          'A failed (dead-lettered) or delivered delivery gets one more attempt; a pending one becomes due at once.',
        params: IdParams,
        response: { 202: DeliverySchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      return reply.code(202).send(await retryDelivery(deps, storeId, request.params.id));
    },
  );
};
