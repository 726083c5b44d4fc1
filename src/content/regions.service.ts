import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { RegionRow } from './content.tables.ts';
import type { Block, PublishedRegion } from './content.types.ts';
import { validateRegionBody } from './regions.validator.ts';
import { notFound } from '../lib/errors.ts';

export interface AdminRegion {
  id: string;
  key: string;
  draft: { blocks: Block[]; updatedAt: string };
  published: { blocks: Block[]; updatedAt: string } | null;
  hasUnpublishedChanges: boolean;
  createdAt: string;
}

export interface AdminRegionSummary {
  id: string;
  key: string;
  draftUpdatedAt: string;
  publishedAt: string | null;
  hasUnpublishedChanges: boolean;
  createdAt: string;
}

/** jsonb comparison: true when the draft is not exactly the published tree. */
export const unpublishedChanges = sql<boolean>`draft_blocks IS DISTINCT FROM published_blocks`;

type AdminRegionRow = RegionRow & { changed: boolean };

export function regionRowToAdmin(row: AdminRegionRow): AdminRegion {
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

export function regionRowToSummary(
  row: Pick<RegionRow, 'id' | 'key' | 'draft_updated_at' | 'published_at' | 'created_at'> & {
    changed: boolean;
  },
): AdminRegionSummary {
  return {
    id: row.id,
    key: row.key,
    draftUpdatedAt: row.draft_updated_at.toISOString(),
    publishedAt: row.published_at?.toISOString() ?? null,
    hasUnpublishedChanges: row.changed,
    createdAt: row.created_at.toISOString(),
  };
}

function toPublished(key: string, blocks: Block[], publishedAt: Date): PublishedRegion {
  return { key, updatedAt: publishedAt.toISOString(), blocks };
}

const noRegion = (key: string) => notFound(`No region with the key "${key}".`);

/**
 * Validates the tree (400 with a pointer per problem) and saves it as the region's draft, creating
 * the region. The storefront does not change, so no event. Saving the same tree again is a no-op.
 */
export async function saveRegionDraft(
  db: Kysely<Database>,
  storeId: string,
  key: string,
  body: unknown,
): Promise<AdminRegion> {
  const { blocks } = validateRegionBody(body);
  const written = await db
    .insertInto('regions')
    .values({ store_id: storeId, key, draft_blocks: JSON.stringify(blocks) })
    .onConflict((conflict) =>
      conflict
        .columns(['store_id', 'key'])
        .doUpdateSet({ draft_blocks: (eb) => eb.ref('excluded.draft_blocks'), draft_updated_at: sql`now()` })
        .where(sql<SqlBool>`regions.draft_blocks IS DISTINCT FROM excluded.draft_blocks`),
    )
    .returningAll()
    .returning(unpublishedChanges.as('changed'))
    .executeTakeFirst();
  return written ? regionRowToAdmin(written) : loadAdminRegion(db, storeId, key);
}

export async function loadAdminRegion(
  db: Kysely<Database>,
  storeId: string,
  key: string,
): Promise<AdminRegion> {
  const row = await db
    .selectFrom('regions')
    .selectAll()
    .select(unpublishedChanges.as('changed'))
    .where('store_id', '=', storeId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) throw noRegion(key);
  return regionRowToAdmin(row);
}

/**
 * Copies the draft over the published tree and records content.updated {kind: 'region', key} in
 * the same transaction. Publishing a draft identical to the published tree changes nothing: the
 * published region is returned as it is, with its original updatedAt, and no event is recorded.
 */
export async function publishRegion(
  db: Kysely<Database>,
  storeId: string,
  key: string,
): Promise<PublishedRegion> {
  return db.transaction().execute(async (trx) => {
    const published = await trx
      .updateTable('regions')
      .set({ published_blocks: sql`draft_blocks`, published_at: sql`now()` })
      .where('store_id', '=', storeId)
      .where('key', '=', key)
      .where(unpublishedChanges)
      .returning(['key', 'published_blocks', 'published_at'])
      .executeTakeFirst();
    if (published) {
      await recordEvent(trx, { storeId, type: 'content.updated', data: { kind: 'region', key } });
      return toPublished(published.key, published.published_blocks!, published.published_at!);
    }
    const current = await trx
      .selectFrom('regions')
      .select(['key', 'published_blocks', 'published_at'])
      .where('store_id', '=', storeId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!current || current.published_blocks === null || current.published_at === null) {
      throw notFound(`No draft to publish for the region "${key}"; save one with PUT …/draft first.`);
    }
    return toPublished(current.key, current.published_blocks, current.published_at);
  });
}

/** The published tree the storefront serves; 404 for a region never published (or deleted). */
export async function findPublishedRegion(
  db: Kysely<Database>,
  storeId: string,
  key: string,
): Promise<PublishedRegion> {
  const row = await db
    .selectFrom('regions')
    .select(['key', 'published_blocks', 'published_at'])
    .where('store_id', '=', storeId)
    .where('key', '=', key)
    .where('published_at', 'is not', null)
    .executeTakeFirst();
  if (!row || row.published_blocks === null || row.published_at === null) throw noRegion(key);
  return toPublished(row.key, row.published_blocks, row.published_at);
}

/**
 * Deletes the region, draft and published tree. content.updated {kind: 'region', key, deleted:
 * true} only when it had been published (otherwise the storefront never saw it).
 */
export async function deleteRegion(db: Kysely<Database>, storeId: string, key: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('regions')
      .where('store_id', '=', storeId)
      .where('key', '=', key)
      .returning('published_at')
      .executeTakeFirst();
    if (!row) throw noRegion(key);
    if (row.published_at !== null) {
      await recordEvent(trx, {
        storeId,
        type: 'content.updated',
        data: { kind: 'region', key, deleted: true },
      });
    }
  });
}
