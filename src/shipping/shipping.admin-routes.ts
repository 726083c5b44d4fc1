import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStaff } from '../http/principals.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import {
  MethodBodySchema,
  MethodParams,
  MethodPatchSchema,
  ShippingMethodSchema,
  ShippingZoneSchema,
  ZoneBodySchema,
  ZoneParams,
  ZonePatchSchema,
} from './shipping.schemas.ts';
import {
  changeMethod,
  changeZone,
  createMethod,
  createZone,
  getZone,
  listZones,
  removeMethod,
  removeZone,
} from './shipping.service.ts';

const tags = ['Admin: shipping'];

/** Shipping zones and their methods (decision `shipping-zones-and-methods`). */
export const shippingAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps }> = async (
  app,
  { deps },
) => {
  app.post(
    '/shipping/zones',
    {
      schema: {
        operationId: 'adminCreateShippingZone',
        'x-problems': ['shipping_zone_conflict', 'limit_reached'],
        tags,
        summary: 'Create a shipping zone',
        description:
          'A zone is where a set of shipping methods applies: countries (`*` for the rest of the world), optionally narrowed to regions or postal-code prefixes. A destination uses the zone with its most specific matching area: a postal-code prefix (the longest), then a region, then the country, then `*`. A place belongs to one zone at each level.',
        body: ZoneBodySchema,
        response: { 201: ShippingZoneSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createZone(deps, storeId, request.body));
    },
  );

  app.get(
    '/shipping/zones',
    {
      schema: {
        operationId: 'adminListShippingZones',
        tags,
        summary: 'Shipping zones with their methods, oldest first',
        querystring: PageQuery,
        response: { 200: Page(ShippingZoneSchema), ...problemResponses },
      },
    },
    async (request) => listZones(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/shipping/zones/:id',
    {
      schema: {
        operationId: 'adminGetShippingZone',
        tags,
        summary: 'A shipping zone with its methods',
        params: ZoneParams,
        response: { 200: ShippingZoneSchema, ...problemResponses },
      },
    },
    async (request) => getZone(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/shipping/zones/:id',
    {
      schema: {
        operationId: 'adminUpdateShippingZone',
        'x-problems': ['shipping_zone_conflict'],
        tags,
        summary: 'Rename a zone or replace its areas',
        params: ZoneParams,
        body: ZonePatchSchema,
        response: { 200: ShippingZoneSchema, ...problemResponses },
      },
    },
    async (request) => changeZone(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/shipping/zones/:id',
    {
      schema: {
        operationId: 'adminDeleteShippingZone',
        tags,
        summary: 'Delete a zone and its methods',
        params: ZoneParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await removeZone(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/shipping/zones/:id/methods',
    {
      schema: {
        operationId: 'adminCreateShippingMethod',
        'x-problems': ['limit_reached'],
        tags,
        summary: 'Add a shipping method to a zone',
        params: ZoneParams,
        body: MethodBodySchema,
        response: { 201: ShippingMethodSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createMethod(deps, storeId, request.params.id, request.body));
    },
  );

  app.patch(
    '/shipping/zones/:id/methods/:methodId',
    {
      schema: {
        operationId: 'adminUpdateShippingMethod',
        tags,
        summary: 'Change a shipping method',
        description: 'Changing `kind` drops the fields the new kind does not use.',
        params: MethodParams,
        body: MethodPatchSchema,
        response: { 200: ShippingMethodSchema, ...problemResponses },
      },
    },
    async (request) =>
      changeMethod(
        deps,
        requireStaff(request).storeId,
        request.params.id,
        request.params.methodId,
        request.body,
      ),
  );

  app.delete(
    '/shipping/zones/:id/methods/:methodId',
    {
      schema: {
        operationId: 'adminDeleteShippingMethod',
        tags,
        summary: 'Delete a shipping method',
        params: MethodParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      await removeMethod(deps, storeId, request.params.id, request.params.methodId);
      return reply.code(204).send(null);
    },
  );
};
