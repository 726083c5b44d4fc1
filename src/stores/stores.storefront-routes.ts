import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { cacheableOnSend } from '../http/caching.ts';
import type { AppContext } from '../http/context.ts';
import { problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/storefront-auth.ts';
import { findStoreById } from './stores.repository.ts';
import { notFound } from '../lib/errors.ts';

export const StorefrontStore = Type.Object(
  {
    name: Type.String(),
    slug: Type.String(),
    currency: Type.String({ description: 'ISO 4217 code; every price of the store is in it.' }),
  },
  { title: 'StorefrontStore' },
);

export const storeStorefrontRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/store',
    {
      schema: {
        tags: ['Storefront'],
        summary: 'The store summary',
        response: { 200: StorefrontStore, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const store = await findStoreById(ctx.db, storeId);
      if (!store) throw notFound('The store no longer exists.');
      return { name: store.name, slug: store.slug, currency: store.currency.trim() };
    },
  );
};
