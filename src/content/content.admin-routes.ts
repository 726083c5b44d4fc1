import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import { Page, PageQuery, problemResponses } from '../http/schemas.ts';
import type { ContentDeps } from './content.deps.ts';
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
  StorefrontRegionSchema,
  treeSerializer,
} from './content.schemas.ts';
import { deleteMenu, getAdminMenu, listAdminMenus, putMenu } from './menus.service.ts';
import { deletePage, getAdminPage, listAdminPages, putPage } from './pages.service.ts';
import {
  deleteRegion,
  getAdminRegion,
  listRegionSummaries,
  publishRegion,
  saveRegionDraft,
} from './regions.service.ts';
import { validateRegionBody } from './regions.validator.ts';

const tags = ['Admin: content'];
const NoContent = { 204: Type.Null(), ...problemResponses };

/** Menus, pages and regions. Every staff role (owner, admin, staff) may edit content. */
export const contentAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ContentDeps }> = async (app, { deps }) => {
  // ---- Menus ----

  app.get(
    '/menus',
    {
      schema: {
        operationId: 'adminListMenus',
        tags,
        summary: 'Menus, ordered by handle',
        querystring: PageQuery,
        response: { 200: Page(AdminMenuSchema), ...problemResponses },
      },
    },
    async (request) => listAdminMenus(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/menus/:handle',
    {
      schema: {
        operationId: 'adminGetMenu',
        tags,
        summary: 'One menu',
        params: MenuHandleParams,
        response: { 200: AdminMenuSchema, ...problemResponses },
      },
    },
    async (request) => getAdminMenu(deps, requireStaff(request).storeId, request.params.handle),
  );

  app.put(
    '/menus/:handle',
    {
      schema: {
        operationId: 'adminPutMenu',
        tags,
        summary: 'Create a menu or replace its items',
        description:
          'Up to 100 items `{label, url}`. A url is an absolute http(s) URL or a path starting with / (javascript:, data:, vbscript: and //host are refused). Emits content.updated {kind: "menu", handle} when the menu is created or changed; an identical PUT changes nothing.',
        params: MenuHandleParams,
        body: MenuInputSchema,
        response: { 200: AdminMenuSchema, ...problemResponses },
      },
    },
    async (request) => putMenu(deps, requireStaff(request).storeId, request.params.handle, request.body),
  );

  app.delete(
    '/menus/:handle',
    {
      schema: {
        operationId: 'adminDeleteMenu',
        tags,
        summary: 'Delete a menu',
        description: 'Emits content.updated {kind: "menu", handle, deleted: true}.',
        params: MenuHandleParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteMenu(deps, requireStaff(request).storeId, request.params.handle);
      return reply.code(204).send(null);
    },
  );

  // ---- Pages ----

  app.get(
    '/pages',
    {
      schema: {
        operationId: 'adminListPages',
        tags,
        summary: 'Pages, ordered by slug',
        querystring: PageQuery,
        response: { 200: Page(AdminPageSchema), ...problemResponses },
      },
    },
    async (request) => listAdminPages(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/pages/:slug',
    {
      schema: {
        operationId: 'adminGetPage',
        tags,
        summary: 'One page',
        params: PageSlugParams,
        response: { 200: AdminPageSchema, ...problemResponses },
      },
    },
    async (request) => getAdminPage(deps, requireStaff(request).storeId, request.params.slug),
  );

  app.put(
    '/pages/:slug',
    {
      schema: {
        operationId: 'adminPutPage',
        tags,
        summary: 'Create a page or replace its title and body',
        description:
          'The body is plain text (never HTML), up to 100 000 characters, stored exactly as sent. Emits content.updated {kind: "page", slug} when the page is created or changed; an identical PUT changes nothing.',
        params: PageSlugParams,
        body: PageInputSchema,
        response: { 200: AdminPageSchema, ...problemResponses },
      },
    },
    async (request) => putPage(deps, requireStaff(request).storeId, request.params.slug, request.body),
  );

  app.delete(
    '/pages/:slug',
    {
      schema: {
        operationId: 'adminDeletePage',
        tags,
        summary: 'Delete a page',
        description: 'Emits content.updated {kind: "page", slug, deleted: true}.',
        params: PageSlugParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deletePage(deps, requireStaff(request).storeId, request.params.slug);
      return reply.code(204).send(null);
    },
  );

  // ---- Regions ----

  app.get(
    '/regions',
    {
      schema: {
        operationId: 'adminListRegions',
        tags,
        summary: 'Regions, ordered by key (summaries without the trees)',
        querystring: PageQuery,
        response: { 200: Page(AdminRegionSummarySchema), ...problemResponses },
      },
    },
    async (request) => listRegionSummaries(deps, requireStaff(request).storeId, request.query),
  );

  for (const path of ['/regions/:key', '/regions/:key/draft']) {
    app.get(
      path,
      {
        schema: {
          operationId: path.endsWith('/draft') ? 'adminGetRegionDraft' : 'adminGetRegion',
          tags,
          summary: path.endsWith('/draft')
            ? "A region's draft (with its published tree)"
            : 'One region: draft and published tree',
          params: RegionKeyParams,
          response: { 200: AdminRegionSchema, ...problemResponses },
        },
        ...treeSerializer,
      },
      async (request) => getAdminRegion(deps, requireStaff(request).storeId, request.params.key),
    );
  }

  app.put(
    '/regions/:key/draft',
    {
      schema: {
        operationId: 'adminSaveRegionDraft',
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
    async (request) => saveRegionDraft(deps, requireStaff(request).storeId, request.params.key, request.body),
  );

  app.post(
    '/regions/:key/publish',
    {
      schema: {
        operationId: 'adminPublishRegion',
        tags,
        summary: "Publish a region's draft",
        description:
          'Copies the draft over the published tree; the storefront serves it from now on. Emits content.updated {kind: "region", key}. Publishing an unchanged draft returns the published region as it is, without an event. 404 when the region has no draft.',
        params: RegionKeyParams,
        response: { 200: StorefrontRegionSchema, ...problemResponses },
      },
      ...treeSerializer,
    },
    async (request) => publishRegion(deps, requireStaff(request).storeId, request.params.key),
  );

  app.delete(
    '/regions/:key',
    {
      schema: {
        operationId: 'adminDeleteRegion',
        tags,
        summary: 'Delete a region (draft and published tree)',
        description:
          'Emits content.updated {kind: "region", key, deleted: true} when the region had been published.',
        params: RegionKeyParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteRegion(deps, requireStaff(request).storeId, request.params.key);
      return reply.code(204).send(null);
    },
  );
};
