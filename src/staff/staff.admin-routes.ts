import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { NewStaffMemberSchema, StaffMemberSchema, StaffRoleSchema } from './staff.schemas.ts';
import {
  addStaffMember,
  changeStaffRole,
  getStaffMember,
  listStaff,
  removeStaffMember,
  type StaffDeps,
} from './staff.service.ts';

const tags = ['Admin: staff'];

/** Staff management: owners only. */
export const staffAdminRoutes: FastifyPluginAsyncTypebox<{ deps: StaffDeps }> = async (app, { deps }) => {
  app.get(
    '/staff',
    {
      schema: {
        operationId: 'adminListStaff',
        tags,
        summary: 'List staff members',
        querystring: PageQuery,
        response: { 200: Page(StaffMemberSchema), ...problemResponses },
      },
    },
    async (request) => listStaff(deps, requireStaff(request).storeId, request.query),
  );

  app.post(
    '/staff',
    {
      schema: {
        operationId: 'adminAddStaffMember',
        'x-problems': ['staff_exists'],
        tags,
        summary: 'Add a staff member',
        description: 'They sign in with an emailed code (POST /admin/v1/auth/sign-in).',
        body: NewStaffMemberSchema,
        response: { 201: StaffMemberSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await addStaffMember(deps, storeId, request.body));
    },
  );

  app.get(
    '/staff/:id',
    {
      schema: {
        operationId: 'adminGetStaffMember',
        tags,
        summary: 'One staff member',
        params: IdParams,
        response: { 200: StaffMemberSchema, ...problemResponses },
      },
    },
    async (request) => getStaffMember(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/staff/:id',
    {
      schema: {
        operationId: 'adminUpdateStaffMember',
        'x-problems': ['last_owner'],
        tags,
        summary: "Change a staff member's role",
        description: 'Demoting the last owner is 409 last_owner.',
        params: IdParams,
        body: Type.Object(
          { role: StaffRoleSchema },
          { title: 'StaffMemberChange', additionalProperties: false },
        ),
        response: { 200: StaffMemberSchema, ...problemResponses },
      },
    },
    async (request) =>
      changeStaffRole(deps, requireStaff(request).storeId, request.params.id, request.body.role),
  );

  app.delete(
    '/staff/:id',
    {
      schema: {
        operationId: 'adminRemoveStaffMember',
        'x-problems': ['last_owner'],
        tags,
        summary: 'Remove a staff member (ends their sessions)',
        description: 'Removing the last owner is 409 last_owner.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await removeStaffMember(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
