import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { byCreated } from '../http/pagination.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { StaffMemberSchema, StaffRoleSchema } from './staff.schemas.ts';
import { requireStaff } from './staff-auth.ts';
import { addStaffMember, changeStaffRole, removeStaffMember, staffRowToMember } from './staff.service.ts';
import { notFound } from '../lib/errors.ts';

const tags = ['Admin: staff'];

/** Staff management: owners only. */
export const staffAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/staff',
    {
      schema: {
        tags,
        summary: 'List staff members',
        querystring: PageQuery,
        response: { 200: Page(StaffMemberSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner');
      const query = ctx.db.selectFrom('staff_members').selectAll().where('store_id', '=', storeId);
      return byCreated(ctx.cursors, `${storeId}:staff`, query, request.query, staffRowToMember);
    },
  );

  app.post(
    '/staff',
    {
      schema: {
        tags,
        summary: 'Add a staff member',
        description: 'They sign in with an emailed code (POST /admin/v1/auth/sign-in).',
        body: Type.Object(
          { email: Type.String({ format: 'email', maxLength: 254 }), role: StaffRoleSchema },
          { additionalProperties: false },
        ),
        response: { 201: StaffMemberSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner');
      return reply.code(201).send(await addStaffMember(ctx.db, storeId, request.body));
    },
  );

  app.get(
    '/staff/:id',
    {
      schema: {
        tags,
        summary: 'One staff member',
        params: IdParams,
        response: { 200: StaffMemberSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner');
      const row = await ctx.db
        .selectFrom('staff_members')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('id', '=', request.params.id)
        .executeTakeFirst();
      if (!row) throw notFound('No staff member with that id in this store.');
      return staffRowToMember(row);
    },
  );

  app.patch(
    '/staff/:id',
    {
      schema: {
        tags,
        summary: "Change a staff member's role",
        description: 'Demoting the last owner is 409 last_owner.',
        params: IdParams,
        body: Type.Object({ role: StaffRoleSchema }, { additionalProperties: false }),
        response: { 200: StaffMemberSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner');
      return changeStaffRole(ctx.db, storeId, request.params.id, request.body.role);
    },
  );

  app.delete(
    '/staff/:id',
    {
      schema: {
        tags,
        summary: 'Remove a staff member (ends their sessions)',
        description: 'Removing the last owner is 409 last_owner.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner');
      await removeStaffMember(ctx.db, storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
