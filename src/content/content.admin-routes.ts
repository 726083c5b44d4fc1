import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { Page, PageQuery, problemResponses } from '../http/schemas.ts';
import {
  AdminMenuSchema,
  AdminPageSchema,
  AdminRegionSchema,
  AdminRegionSummarySchema,
  MenuHandleParams,
  MenuInputSchema,
  PageInputSchema,
  PageSlugParams,
  RegionDraftInputSchema,
  RegionKeyParams,
  StorefrontRegion,
  treeSerializer,
} from './content.schemas.ts';
import { deleteMenu, findMenu, menuRowToAdmin, putMenu } from './menus.service.ts';
import { deletePage, findPage, pageRowToAdmin, putPage } from './pages.service.ts';
import {
  deleteRegion,
  loadAdminRegion,
  publishRegion,
  regionRowToSummary,
  saveRegionDraft,
  unpublishedChanges,
} from './regions.service.ts';
import { validateRegionBody } from './regions.validator.ts';
import { keysetPage } from '../db/keyset.ts';
import { requireStaff } from '../http/principals.ts';

const tags = ['Admin: content'];
const NoContent = { 204: Type.Null(), ...problemResponses };

/** Menus, pages and regions. Every staff role (owner, admin, staff) may edit content. */
export const contentAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // ---- Menus ----

  app.get(
    '/menus',
    {
      schema: {
        tags,
        summary: 'Menus, ordered by handle',
        querystring: PageQuery,
        response: { 200: Page(AdminMenuSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return keysetPage({
        cursors: ctx.cursors,
        scope: `${storeId}:admin-menus`,
        query: ctx.db.selectFrom('menus').selectAll().where('store_id', '=', storeId),
        columns: ['handle'],
        position: (row) => [row.handle],
        page: request.query,
        toItem: menuRowToAdmin,
      });
    },
  );

  app.get(
    '/menus/:handle',
    {
      schema: {
        tags,
        summary: 'One menu',
        params: MenuHandleParams,
        response: { 200: AdminMenuSchema, ...problemResponses },
      },
    },
    async (request) =>
      menuRowToAdmin(await findMenu(ctx.db, requireStaff(request).storeId, request.params.handle)),
  );

  app.put(
    '/menus/:handle',
    {
      schema: {
        tags,
        summary: 'Create a menu or replace its items',
        description:
          'Up to 100 items `{label, url}`. A url is an absolute http(s) URL or a path starting with / (javascript:, data:, vbscript: and //host are refused). Emits content.updated {kind: "menu", handle} when the menu is created or changed; an identical PUT changes nothing.',
        params: MenuHandleParams,
        body: MenuInputSchema,
        response: { 200: AdminMenuSchema, ...problemResponses },
      },
    },
    async (request) => putMenu(ctx.db, requireStaff(request).storeId, request.params.handle, request.body),
  );

  app.delete(
    '/menus/:handle',
    {
      schema: {
        tags,
        summary: 'Delete a menu',
        description: 'Emits content.updated {kind: "menu", handle, deleted: true}.',
        params: MenuHandleParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteMenu(ctx.db, requireStaff(request).storeId, request.params.handle);
      return reply.code(204).send(null);
    },
  );

  // ---- Pages ----

  app.get(
    '/pages',
    {
      schema: {
        tags,
        summary: 'Pages, ordered by slug',
        querystring: PageQuery,
        response: { 200: Page(AdminPageSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return keysetPage({
        cursors: ctx.cursors,
        scope: `${storeId}:admin-pages`,
        query: ctx.db.selectFrom('pages').selectAll().where('store_id', '=', storeId),
        columns: ['slug'],
        position: (row) => [row.slug],
        page: request.query,
        toItem: pageRowToAdmin,
      });
    },
  );

  app.get(
    '/pages/:slug',
    {
      schema: {
        tags,
        summary: 'One page',
        params: PageSlugParams,
        response: { 200: AdminPageSchema, ...problemResponses },
      },
    },
    async (request) =>
      pageRowToAdmin(await findPage(ctx.db, requireStaff(request).storeId, request.params.slug)),
  );

  app.put(
    '/pages/:slug',
    {
      schema: {
        tags,
        summary: 'Create a page or replace its title and body',
        description:
          'The body is plain text (never HTML), up to 100 000 characters, stored exactly as sent. Emits content.updated {kind: "page", slug} when the page is created or changed; an identical PUT changes nothing.',
        params: PageSlugParams,
        body: PageInputSchema,
        response: { 200: AdminPageSchema, ...problemResponses },
      },
    },
    async (request) => putPage(ctx.db, requireStaff(request).storeId, request.params.slug, request.body),
  );

  app.delete(
    '/pages/:slug',
    {
      schema: {
        tags,
        summary: 'Delete a page',
        description: 'Emits content.updated {kind: "page", slug, deleted: true}.',
        params: PageSlugParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deletePage(ctx.db, requireStaff(request).storeId, request.params.slug);
      return reply.code(204).send(null);
    },
  );

  // ---- Regions ----

  app.get(
    '/regions',
    {
      schema: {
        tags,
        summary: 'Regions, ordered by key (summaries without the trees)',
        querystring: PageQuery,
        response: { 200: Page(AdminRegionSummarySchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return keysetPage({
        cursors: ctx.cursors,
        scope: `${storeId}:admin-regions`,
        query: ctx.db
          .selectFrom('regions')
          .select(['id', 'key', 'draft_updated_at', 'published_at', 'created_at'])
          .select(unpublishedChanges.as('changed'))
          .where('store_id', '=', storeId),
        columns: ['key'],
        position: (row) => [row.key],
        page: request.query,
        toItem: regionRowToSummary,
      });
    },
  );

  for (const path of ['/regions/:key', '/regions/:key/draft']) {
    app.get(
      path,
      {
        schema: {
          tags,
          summary: path.endsWith('/draft')
            ? "A region's draft (with its published tree)"
            : 'One region: draft and published tree',
          params: RegionKeyParams,
          response: { 200: AdminRegionSchema, ...problemResponses },
        },
        ...treeSerializer,
      },
      async (request) => loadAdminRegion(ctx.db, requireStaff(request).storeId, request.params.key),
    );
  }

  app.put(
    '/regions/:key/draft',
    {
      schema: {
        tags,
        summary: "Save a region's draft tree (creates the region)",
        description:
          'The tree is validated against the block reference (docs/content.md); a 400 validation_failed lists every problem with the JSON Pointer of the offending node or field. The storefront keeps serving the published tree: no event until POST …/publish.',
        params: RegionKeyParams,
        body: RegionDraftInputSchema,
        response: { 200: AdminRegionSchema, ...problemResponses },
      },
      ...treeSerializer,
      // The tree rules run before schema validation so that every problem is reported with its
      // exact pointer (the schema's union branches would only say "must match a schema in anyOf").
      preValidation: async (request) => {
        validateRegionBody(request.body);
      },
    },
    async (request) =>
      saveRegionDraft(ctx.db, requireStaff(request).storeId, request.params.key, request.body),
  );

  app.post(
    '/regions/:key/publish',
    {
      schema: {
        tags,
        summary: "Publish a region's draft",
        description:
          'Copies the draft over the published tree; the storefront serves it from now on. Emits content.updated {kind: "region", key}. Publishing an unchanged draft returns the published region as it is, without an event. 404 when the region has no draft.',
        params: RegionKeyParams,
        response: { 200: StorefrontRegion, ...problemResponses },
      },
      ...treeSerializer,
    },
    async (request) => publishRegion(ctx.db, requireStaff(request).storeId, request.params.key),
  );

  app.delete(
    '/regions/:key',
    {
      schema: {
        tags,
        summary: 'Delete a region (draft and published tree)',
        description:
          'Emits content.updated {kind: "region", key, deleted: true} when the region had been published.',
        params: RegionKeyParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteRegion(ctx.db, requireStaff(request).storeId, request.params.key);
      return reply.code(204).send(null);
    },
  );
};
