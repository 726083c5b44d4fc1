import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { ServiceDeps } from '../db/service-deps.ts';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import {
  CustomerGroupBodySchema,
  CustomerGroupIdsSchema,
  CustomerGroupSchema,
  CustomerGroupsBodySchema,
} from './customer-groups.schemas.ts';
import {
  createCustomerGroup,
  deleteCustomerGroup,
  getCustomerGroup,
  listCustomerGroups,
  renameCustomerGroup,
  setCustomerGroups,
} from './customer-groups.service.ts';

const tags = ['Admin: customers'];

/** Customer groups (decision `customer-groups`): named sets of customers that price lists are limited to. */
export const customerGroupsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps }> = async (
  app,
  { deps },
) => {
  app.post(
    '/customer-groups',
    {
      schema: {
        operationId: 'adminCreateCustomerGroup',
        'x-problems': ['customer_group_exists'],
        tags,
        summary: 'Add a customer group',
        description:
          'A name unique in the store, whatever its case (409 `customer_group_exists`). Put customers in it with `PUT /customers/{id}/groups`; limit price lists to it with `customerGroupIds`.',
        body: CustomerGroupBodySchema,
        response: { 201: CustomerGroupSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createCustomerGroup(deps, storeId, request.body));
    },
  );

  app.get(
    '/customer-groups',
    {
      schema: {
        operationId: 'adminListCustomerGroups',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Customer groups, oldest first, with their member counts',
        querystring: PageQuery,
        response: { 200: Page(CustomerGroupSchema), ...problemResponses },
      },
    },
    async (request) => listCustomerGroups(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/customer-groups/:id',
    {
      schema: {
        operationId: 'adminGetCustomerGroup',
        'x-problems': ['not_found'],
        tags,
        summary: 'A customer group',
        params: IdParams,
        response: { 200: CustomerGroupSchema, ...problemResponses },
      },
    },
    async (request) => getCustomerGroup(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/customer-groups/:id',
    {
      schema: {
        operationId: 'adminUpdateCustomerGroup',
        'x-problems': ['not_found', 'customer_group_exists'],
        tags,
        summary: 'Rename a customer group',
        params: IdParams,
        body: CustomerGroupBodySchema,
        response: { 200: CustomerGroupSchema, ...problemResponses },
      },
    },
    async (request) =>
      renameCustomerGroup(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/customer-groups/:id',
    {
      schema: {
        operationId: 'adminDeleteCustomerGroup',
        'x-problems': ['not_found'],
        tags,
        summary: 'Delete a customer group',
        description:
          'Its customers leave it (without `customer.updated`), and price lists no longer name it; a price list limited to groups that are all deleted applies to nobody, never to everyone.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await deleteCustomerGroup(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/customers/:id/groups',
    {
      schema: {
        operationId: 'adminSetCustomerGroups',
        'x-problems': ['not_found', 'validation_failed'],
        tags,
        summary: 'Set the groups a customer is in',
        description:
          'Replaces the customer’s groups (`[]`: none). An id that is not a group of the store is 400 at `/groupIds/<i>`. `customer.updated` names `groups` when they changed.',
        params: IdParams,
        body: CustomerGroupsBodySchema,
        response: { 200: CustomerGroupIdsSchema, ...problemResponses },
      },
    },
    async (request) =>
      setCustomerGroups(deps, requireStaff(request).storeId, request.params.id, request.body),
  );
};
