import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireStaff } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import { StoreSettingsPatchSchema, StoreSettingsSchema } from './stores.schemas.ts';
import { changeStoreSettings, storeSettings, type StoresDeps } from './stores.service.ts';

const tags = ['Admin: settings'];

export const settingsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: StoresDeps }> = async (app, { deps }) => {
  app.get(
    '/settings',
    {
      schema: {
        operationId: 'adminGetSettings',
        tags,
        summary: 'Store settings',
        response: { 200: StoreSettingsSchema, ...problemResponses },
      },
    },
    async (request) => storeSettings(deps, requireStaff(request).storeId),
  );

  app.put(
    '/settings',
    {
      schema: {
        operationId: 'adminUpdateSettings',
        tags,
        summary: 'Change store settings (owner or admin)',
        description: 'Fields left out keep their value; slug and currency cannot change.',
        body: StoreSettingsPatchSchema,
        response: { 200: StoreSettingsSchema, ...problemResponses },
      },
    },
    async (request) => changeStoreSettings(deps, requireStaff(request).storeId, request.body),
  );
};
