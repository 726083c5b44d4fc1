import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cacheableOnSend } from '../http/caching.ts';
import type { AppContext } from '../http/context.ts';
import { Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/principals.ts';
import {
  StorefrontHandleParams,
  StorefrontKeyParams,
  StorefrontMenu,
  StorefrontPage,
  StorefrontRegion,
  StorefrontSlugParams,
  treeSerializer,
} from './content.schemas.ts';
import { findMenu, menuRowToStorefront } from './menus.service.ts';
import { findPage, pageRowToStorefront } from './pages.service.ts';
import { findPublishedRegion } from './regions.service.ts';
import { keysetPage } from '../db/keyset.ts';

const tags = ['Storefront: content'];

/** Read-only content: menus, pages and published regions. Cacheable (ETag, D13). */
export const contentStorefrontRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  app.get(
    '/menus',
    {
      schema: {
        tags,
        summary: 'Menus, ordered by handle',
        description: 'Cursor-paginated list envelope of menus `{handle, items}`.',
        querystring: PageQuery,
        response: { 200: Page(StorefrontMenu), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      return keysetPage({
        cursors: ctx.cursors,
        scope: `${storeId}:menus`,
        query: ctx.db.selectFrom('menus').select(['handle', 'items']).where('store_id', '=', storeId),
        columns: ['handle'],
        position: (row) => [row.handle],
        page: request.query,
        toItem: menuRowToStorefront,
      });
    },
  );

  app.get(
    '/menus/:handle',
    {
      schema: {
        tags,
        summary: 'One menu by handle',
        params: StorefrontHandleParams,
        response: { 200: StorefrontMenu, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) =>
      menuRowToStorefront(await findMenu(ctx.db, requireStorefront(request).storeId, request.params.handle)),
  );

  app.get(
    '/pages',
    {
      schema: {
        tags,
        summary: 'Pages, ordered by slug',
        description: 'Cursor-paginated list envelope of pages `{slug, title, body, updatedAt}`.',
        querystring: PageQuery,
        response: { 200: Page(StorefrontPage), ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      return keysetPage({
        cursors: ctx.cursors,
        scope: `${storeId}:pages`,
        query: ctx.db
          .selectFrom('pages')
          .select(['slug', 'title', 'body', 'updated_at'])
          .where('store_id', '=', storeId),
        columns: ['slug'],
        position: (row) => [row.slug],
        page: request.query,
        toItem: pageRowToStorefront,
      });
    },
  );

  app.get(
    '/pages/:slug',
    {
      schema: {
        tags,
        summary: 'One page by slug',
        description: 'The body is plain text, never HTML: render it as text.',
        params: StorefrontSlugParams,
        response: { 200: StorefrontPage, ...problemResponses },
      },
      onSend: cacheableOnSend,
    },
    async (request) =>
      pageRowToStorefront(await findPage(ctx.db, requireStorefront(request).storeId, request.params.slug)),
  );

  app.get(
    '/regions/:key',
    {
      schema: {
        tags,
        summary: "A region's published block tree",
        description: 'Always the published tree, never the draft. 404 for a region that was never published.',
        params: StorefrontKeyParams,
        response: { 200: StorefrontRegion, ...problemResponses },
      },
      ...treeSerializer,
      onSend: cacheableOnSend,
    },
    async (request) => findPublishedRegion(ctx.db, requireStorefront(request).storeId, request.params.key),
  );
};
