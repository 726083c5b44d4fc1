import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStaff } from '../http/principals.ts';
import {
  AdminCustomerDetailSchema,
  AdminCustomerSchema,
  AdminCustomersQuerySchema,
  PrivacyLogEntrySchema,
} from './customers.schemas.ts';
import { adminCustomer, listCustomers } from './admin-customers.service.ts';
import {
  CustomerExportSchema,
  eraseCustomer,
  exportCustomer,
  listPrivacyLog,
  type PrivacyDeps,
} from './privacy.service.ts';

const tags = ['Admin: customers'];

/** The merchant's customers (decision `erasure-is-immediate`): list, detail, export and erasure, and the privacy log. */
export const customersAdminRoutes: FastifyPluginAsyncTypebox<{ deps: PrivacyDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/customers',
    {
      schema: {
        operationId: 'adminListCustomers',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Customers, newest first, with their order totals',
        description:
          'Everyone who has checked out (guests, `hasAccount: false`) or signed in (accounts). `q` is an email prefix when it holds an `@`, otherwise part of the name or email, case and accents ignored.',
        querystring: AdminCustomersQuerySchema,
        response: { 200: Page(AdminCustomerSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return listCustomers(deps, storeId, request.query);
    },
  );

  app.get(
    '/customers/:id',
    {
      schema: {
        operationId: 'adminGetCustomer',
        'x-problems': ['not_found'],
        tags,
        summary: 'A customer with their addresses, totals and newest orders',
        params: IdParams,
        response: { 200: AdminCustomerDetailSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return adminCustomer(deps, storeId, request.params.id);
    },
  );

  app.get(
    '/customers/:id/export',
    {
      schema: {
        operationId: 'adminExportCustomer',
        'x-problems': ['not_found'],
        tags,
        summary: 'Everything the store holds about a customer, as JSON',
        description:
          'Their profile, addresses, groups, every order as staff see it, the mail kept for them and their sessions. Recorded in the privacy log with who asked.',
        params: IdParams,
        response: { 200: CustomerExportSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const staff = requireStaff(request);
      const data = await exportCustomer(deps, staff.storeId, request.params.id, {
        kind: 'staff',
        staffId: staff.staffId,
        email: staff.email,
      });
      void reply.header('content-disposition', `attachment; filename="customer-${request.params.id}.json"`);
      return data;
    },
  );

  app.delete(
    '/customers/:id',
    {
      schema: {
        operationId: 'adminEraseCustomer',
        'x-problems': ['not_found'],
        tags,
        summary: 'Erase a customer (a right-to-be-forgotten request)',
        description:
          'Deletes the customer, their addresses and sessions, and scrubs their email, names, addresses and phone from their orders, carts and the mail kept for them, at once and for good. Order numbers, lines, amounts and payments stay, so the accounts still add up; orders not yet shipped lose their address. `customer.deleted` carries the id alone. Recorded in the privacy log with who asked.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const staff = requireStaff(request);
      await eraseCustomer(deps, staff.storeId, request.params.id, {
        kind: 'staff',
        staffId: staff.staffId,
        email: staff.email,
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/privacy-log',
    {
      schema: {
        operationId: 'adminListPrivacyLog',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Customer exports and erasures, newest first: who did what to whom',
        querystring: PageQuery,
        response: { 200: Page(PrivacyLogEntrySchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return listPrivacyLog(deps, storeId, request.query);
    },
  );
};
