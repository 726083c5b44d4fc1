import type { EmittedData } from '../events/events.schemas.ts';
import type { RegionUpdatedData } from './content.events.ts';
import { keysetPage } from '../db/keyset.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound } from '../lib/errors.ts';
import type { ContentDeps } from './content.deps.ts';
import {
  deleteRegionByKey,
  findPublication,
  findPublishedRegion,
  findRegion,
  publishDraft,
  regionSummariesQuery,
  upsertRegionDraft,
} from './content.repository.ts';
import type {
  AdminRegion,
  AdminRegionSummary,
  RegionDraftInput,
  StorefrontRegion,
} from './content.schemas.ts';
import type { RegionPublicationRow, RegionStateRow, RegionSummaryRow } from './content.tables.ts';
import { validateRegionBody } from './regions.validator.ts';

export function regionRowToAdmin(row: RegionStateRow): AdminRegion {
  return {
    id: row.id,
    key: row.key,
    draft: { blocks: row.draft_blocks, updatedAt: row.draft_updated_at.toISOString() },
    published:
      row.published_blocks !== null && row.published_at !== null
        ? { blocks: row.published_blocks, updatedAt: row.published_at.toISOString() }
        : null,
    hasUnpublishedChanges: row.changed,
    createdAt: row.created_at.toISOString(),
  };
}

export function regionRowToSummary(row: RegionSummaryRow): AdminRegionSummary {
  return {
    id: row.id,
    key: row.key,
    draftUpdatedAt: row.draft_updated_at.toISOString(),
    publishedAt: row.published_at?.toISOString() ?? null,
    hasUnpublishedChanges: row.changed,
    createdAt: row.created_at.toISOString(),
  };
}

/** The published tree of a row, or null when the region has none. */
function toPublished(row: RegionPublicationRow | undefined): StorefrontRegion | null {
  if (!row || row.published_blocks === null || row.published_at === null) return null;
  return { key: row.key, updatedAt: row.published_at.toISOString(), blocks: row.published_blocks };
}

const noRegion = (key: string) => notFound(`No region with the key "${key}".`);

/** The admin list, ordered by key: summaries without the trees. */
export function listRegionSummaries(
  deps: ContentDeps,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<AdminRegionSummary>> {
  return keysetPage({
    cursors: deps.cursors,
    scope: `${storeId}:admin-regions`,
    query: regionSummariesQuery(deps.db, storeId),
    columns: ['key'],
    position: (row) => [row.key],
    page,
    toItem: regionRowToSummary,
  });
}

/** The region as the builder sees it: draft and published tree. */
export async function getAdminRegion(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  key: string,
): Promise<AdminRegion> {
  const row = await findRegion(deps.db, storeId, key);
  if (!row) throw noRegion(key);
  return regionRowToAdmin(row);
}

/**
 * Validates the tree (400 with a pointer per problem) and saves it as the region's draft, creating
 * the region. The storefront does not change, so no event. Saving the same tree again is a no-op.
 */
export async function saveRegionDraft(
  deps: Pick<ContentDeps, 'db' | 'clock'>,
  storeId: string,
  key: string,
  input: RegionDraftInput,
): Promise<AdminRegion> {
  const { blocks } = validateRegionBody(input);
  const written = await upsertRegionDraft(deps.db, { storeId, key, blocks, now: deps.clock.now() });
  return written ? regionRowToAdmin(written) : getAdminRegion(deps, storeId, key);
}

/**
 * Copies the draft over the published tree and records content.updated {kind: 'region', key} in
 * the same transaction. Publishing a draft identical to the published tree changes nothing: the
 * published region is returned as it is, with its original updatedAt, and no event is recorded.
 */
export async function publishRegion(
  deps: Pick<ContentDeps, 'db' | 'clock'>,
  storeId: string,
  key: string,
): Promise<StorefrontRegion> {
  return deps.db.transaction().execute(async (trx) => {
    const published = await publishDraft(trx, storeId, key, deps.clock.now());
    if (published) {
      await recordEvent(trx, {
        storeId,
        type: 'content.updated',
        resource: `content:region:${key}`,
        data: { kind: 'region', key } satisfies EmittedData<typeof RegionUpdatedData>,
      });
      return toPublished(published)!;
    }
    const current = toPublished(await findPublication(trx, storeId, key));
    if (!current) {
      throw notFound(`No draft to publish for the region "${key}"; save one with PUT …/draft first.`);
    }
    return current;
  });
}

/** The published tree the storefront serves; 404 for a region never published (or deleted). */
export async function getPublishedRegion(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  key: string,
): Promise<StorefrontRegion> {
  const region = toPublished(await findPublishedRegion(deps.db, storeId, key));
  if (!region) throw noRegion(key);
  return region;
}

/**
 * Deletes the region, draft and published tree. content.updated {kind: 'region', key, deleted:
 * true} only when it had been published (otherwise the storefront never saw it).
 */
export async function deleteRegion(
  deps: Pick<ContentDeps, 'db'>,
  storeId: string,
  key: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await deleteRegionByKey(trx, storeId, key);
    if (!row) throw noRegion(key);
    if (row.published_at !== null) {
      await recordEvent(trx, {
        storeId,
        type: 'content.updated',
        resource: `content:region:${key}`,
        data: { kind: 'region', key, deleted: true } satisfies EmittedData<typeof RegionUpdatedData>,
      });
    }
  });
}
