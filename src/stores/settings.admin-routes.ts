import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { problemResponses } from '../http/schemas.ts';
import { requireStaff } from '../staff/staff-auth.ts';
import { notFound } from '../lib/errors.ts';
import type { StoreRow } from './stores.tables.ts';

const tags = ['Admin: settings'];

const SettingsSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    slug: Type.String(),
    currency: Type.String(),
    replyToEmail: Type.Union([Type.String(), Type.Null()], {
      description: "Reply-To of every store mail (D33: always an address; the owner's by default).",
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'StoreSettings' },
);

function settingsOf(row: StoreRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    currency: row.currency.trim(),
    replyToEmail: row.reply_to_email,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export const settingsAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/settings',
    { schema: { tags, summary: 'Store settings', response: { 200: SettingsSchema, ...problemResponses } } },
    async (request) => {
      const { storeId } = requireStaff(request);
      const row = await ctx.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirst();
      if (!row) throw notFound('The store no longer exists.');
      return settingsOf(row);
    },
  );

  app.put(
    '/settings',
    {
      schema: {
        tags,
        summary: 'Change store settings (owner or admin)',
        description: 'Fields left out keep their value; slug and currency cannot change.',
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })),
            replyToEmail: Type.Optional(
              Type.String({
                format: 'email',
                maxLength: 254,
                description: 'Reply-To of every store mail. Always an address: null or "" is 400.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: SettingsSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const { name, replyToEmail } = request.body;
      const row = await ctx.db
        .updateTable('stores')
        .set({
          updated_at: ctx.clock.now(),
          ...(name !== undefined ? { name: name.trim() } : {}),
          ...(replyToEmail !== undefined ? { reply_to_email: replyToEmail.trim().toLowerCase() } : {}),
        })
        .where('id', '=', storeId)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound('The store no longer exists.');
      return settingsOf(row);
    },
  );
};
