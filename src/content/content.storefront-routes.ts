import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readCached, type ReadCache } from '../http/read-cache.ts';
import { requireStorefront } from '../http/principals.ts';
import { Page, PageQuery, problemResponses } from '../http/schemas.ts';
import type { ContentDeps } from './content.deps.ts';
import {
  StorefrontHandleParams,
  StorefrontKeyParams,
  StorefrontMenuSchema,
  StorefrontPageSchema,
  StorefrontRegionSchema,
  StorefrontSlugParams,
  treeSerializer,
} from './content.schemas.ts';
import { getStorefrontMenu, listStorefrontMenus } from './menus.service.ts';
import { getStorefrontPage, listStorefrontPages } from './pages.service.ts';
import { getPublishedRegion } from './regions.service.ts';

const tags = ['Storefront: content'];

/** Read-only content: menus, pages and published regions. Cacheable (ETag, decision `etags`). */
export const contentStorefrontRoutes: FastifyPluginAsyncTypebox<{
  deps: ContentDeps;
  readCache: ReadCache | null;
}> = async (app, { deps, readCache }) => {
  const cached = readCached(readCache);
  app.get(
    '/menus',
    {
      schema: {
        operationId: 'listMenus',
        tags,
        summary: 'Menus, ordered by handle',
        description: 'Cursor-paginated list envelope of menus `{handle, items}`.',
        querystring: PageQuery,
        response: { 200: Page(StorefrontMenuSchema), ...problemResponses },
      },
      ...cached,
    },
    async (request) => listStorefrontMenus(deps, requireStorefront(request).storeId, request.query),
  );

  app.get(
    '/menus/:handle',
    {
      schema: {
        operationId: 'getMenu',
        tags,
        summary: 'One menu by handle',
        params: StorefrontHandleParams,
        response: { 200: StorefrontMenuSchema, ...problemResponses },
      },
      ...cached,
    },
    async (request) => getStorefrontMenu(deps, requireStorefront(request).storeId, request.params.handle),
  );

  app.get(
    '/pages',
    {
      schema: {
        operationId: 'listPages',
        tags,
        summary: 'Pages, ordered by slug',
        description: 'Cursor-paginated list envelope of pages `{slug, title, body, updatedAt}`.',
        querystring: PageQuery,
        response: { 200: Page(StorefrontPageSchema), ...problemResponses },
      },
      ...cached,
    },
    async (request) => listStorefrontPages(deps, requireStorefront(request).storeId, request.query),
  );

  app.get(
    '/pages/:slug',
    {
      schema: {
        operationId: 'getPage',
        tags,
        summary: 'One page by slug',
        description: 'The body is plain text, never HTML: render it as text.',
        params: StorefrontSlugParams,
        response: { 200: StorefrontPageSchema, ...problemResponses },
      },
      ...cached,
    },
    async (request) => getStorefrontPage(deps, requireStorefront(request).storeId, request.params.slug),
  );

  app.get(
    '/regions/:key',
    {
      schema: {
        operationId: 'getRegion',
        tags,
        summary: "A region's published block tree",
        description: 'Always the published tree, never the draft. 404 for a region that was never published.',
        params: StorefrontKeyParams,
        response: { 200: StorefrontRegionSchema, ...problemResponses },
      },
      ...treeSerializer,
      ...cached,
    },
    async (request) => getPublishedRegion(deps, requireStorefront(request).storeId, request.params.key),
  );
};
