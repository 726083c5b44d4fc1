import type { EmittedData } from '../events/events.schemas.ts';
import type { PageUpdatedData } from './content.events.ts';
import { keysetPage } from '../db/keyset.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import type { ContentDeps } from './content.deps.ts';
import {
  deletePageBySlug,
  findPage,
  pagesQuery,
  storefrontPagesQuery,
  upsertPage,
} from './content.repository.ts';
import type { AdminPage, PageInput, StorefrontPage } from './content.schemas.ts';
import type { PageRow, StorefrontPageRow } from './content.tables.ts';

export function pageRowToAdmin(row: PageRow): AdminPage {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    body: row.body,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function pageRowToStorefront(row: StorefrontPageRow): StorefrontPage {
  return { slug: row.slug, title: row.title, body: row.body, updatedAt: row.updated_at.toISOString() };
}

const noPage = (slug: string) => notFound(`No page with the slug "${slug}".`);

/** The admin list, ordered by slug. */
export function listAdminPages(
  deps: ContentDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<AdminPage>> {
  return keysetPage({
    cursors: deps.cursors,
    scope: `${storeId}:admin-pages`,
    query: pagesQuery(deps.db, storeId),
    columns: ['slug'],
    position: (row) => [row.slug],
    page,
    toItem: pageRowToAdmin,
  });
}

/** The storefront list, ordered by slug. */
export function listStorefrontPages(
  deps: ContentDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<StorefrontPage>> {
  return keysetPage({
    cursors: deps.cursors,
    scope: `${storeId}:pages`,
    query: storefrontPagesQuery(deps.db, storeId),
    columns: ['slug'],
    position: (row) => [row.slug],
    page,
    toItem: pageRowToStorefront,
  });
}

async function pageRow(deps: Pick<ContentDeps, 'db'>, storeId: string, slug: string): Promise<PageRow> {
  const row = await findPage(deps.db, storeId, slug);
  if (!row) throw noPage(slug);
  return row;
}

export async function getAdminPage(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  slug: string,
): Promise<AdminPage> {
  return pageRowToAdmin(await pageRow(deps, storeId, slug));
}

export async function getStorefrontPage(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  slug: string,
): Promise<StorefrontPage> {
  return pageRowToStorefront(await pageRow(deps, storeId, slug));
}

/**
 * Creates the page or replaces its title and body. The body is plain text and is stored exactly as
 * sent (never rewritten or sanitised; clients render it as text). The title is trimmed. A write
 * that changes nothing is not a change: no update, no event. Otherwise content.updated
 * {kind: 'page', slug} in the same transaction.
 */
export async function putPage(
  deps: Pick<ContentDeps, 'db' | 'clock'>,
  storeId: string,
  slug: string,
  input: PageInput,
): Promise<AdminPage> {
  const errors: FieldError[] = [];
  const title = input.title.trim();
  if (title === '') errors.push({ pointer: '/title', detail: 'must not be blank', in: 'body' });
  if (errors.length > 0) {
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw validationFailed(`The page is invalid: ${first.pointer.slice(1)} ${first.detail}${more}.`, errors);
  }

  return deps.db.transaction().execute(async (trx) => {
    const written = await upsertPage(trx, { storeId, slug, title, body: input.body, now: deps.clock.now() });
    if (written) {
      await recordEvent(trx, {
        storeId,
        type: 'content.updated',
        resource: `content:page:${slug}`,
        data: { kind: 'page', slug } satisfies EmittedData<typeof PageUpdatedData>,
      });
      return pageRowToAdmin(written);
    }
    const current = await findPage(trx, storeId, slug);
    if (!current) throw new Error(`page "${slug}" vanished during its own upsert`);
    return pageRowToAdmin(current);
  });
}

/** Deletes the page and records content.updated {kind: 'page', slug, deleted: true}; 404 when unknown. */
export async function deletePage(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  slug: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await deletePageBySlug(trx, storeId, slug);
    if (!row) throw noPage(slug);
    await recordEvent(trx, {
      storeId,
      type: 'content.updated',
      resource: `content:page:${slug}`,
      data: { kind: 'page', slug, deleted: true } satisfies EmittedData<typeof PageUpdatedData>,
    });
  });
}
