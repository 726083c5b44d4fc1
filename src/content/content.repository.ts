import { sql, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/tables.ts';
import type {
  MenuRow,
  PageRow,
  RegionPublicationRow,
  RegionStateRow,
  RegionSummaryRow,
  StorefrontMenuRow,
  StorefrontPageRow,
} from './content.tables.ts';
import type { Block, MenuItem } from './content.types.ts';

/** All SQL on menus, pages and regions. */

// Menus

export function menusQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'menus', MenuRow> {
  return db.selectFrom('menus').selectAll().where('store_id', '=', storeId);
}

export function storefrontMenusQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'menus', StorefrontMenuRow> {
  return db.selectFrom('menus').select(['handle', 'items']).where('store_id', '=', storeId);
}

export function findMenu(
  db: Kysely<Database>,
  storeId: string,
  handle: string,
): Promise<MenuRow | undefined> {
  return menusQuery(db, storeId).where('handle', '=', handle).executeTakeFirst();
}

/** Inserts the menu or replaces its items; undefined when the items are already exactly these. */
export function upsertMenu(
  db: Kysely<Database>,
  menu: { storeId: string; handle: string; items: MenuItem[]; now: Date },
): Promise<MenuRow | undefined> {
  return db
    .insertInto('menus')
    .values({
      store_id: menu.storeId,
      handle: menu.handle,
      items: JSON.stringify(menu.items),
      created_at: menu.now,
      updated_at: menu.now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['store_id', 'handle'])
        .doUpdateSet({ items: (eb) => eb.ref('excluded.items'), updated_at: menu.now })
        .where(sql<SqlBool>`menus.items IS DISTINCT FROM excluded.items`),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the menu; undefined when there was none. */
export function deleteMenuByHandle(
  db: Kysely<Database>,
  storeId: string,
  handle: string,
): Promise<{ id: string } | undefined> {
  return db
    .deleteFrom('menus')
    .where('store_id', '=', storeId)
    .where('handle', '=', handle)
    .returning('id')
    .executeTakeFirst();
}

// Pages

export function pagesQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'pages', PageRow> {
  return db.selectFrom('pages').selectAll().where('store_id', '=', storeId);
}

export function storefrontPagesQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'pages', StorefrontPageRow> {
  return db
    .selectFrom('pages')
    .select(['slug', 'title', 'body', 'updated_at'])
    .where('store_id', '=', storeId);
}

export function findPage(db: Kysely<Database>, storeId: string, slug: string): Promise<PageRow | undefined> {
  return pagesQuery(db, storeId).where('slug', '=', slug).executeTakeFirst();
}

/** Inserts the page or replaces its title and body; undefined when they are already exactly these. */
export function upsertPage(
  db: Kysely<Database>,
  page: { storeId: string; slug: string; title: string; body: string; now: Date },
): Promise<PageRow | undefined> {
  return db
    .insertInto('pages')
    .values({
      store_id: page.storeId,
      slug: page.slug,
      title: page.title,
      body: page.body,
      created_at: page.now,
      updated_at: page.now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['store_id', 'slug'])
        .doUpdateSet({
          title: (eb) => eb.ref('excluded.title'),
          body: (eb) => eb.ref('excluded.body'),
          updated_at: page.now,
        })
        .where(sql<SqlBool>`(pages.title, pages.body) IS DISTINCT FROM (excluded.title, excluded.body)`),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the page; undefined when there was none. */
export function deletePageBySlug(
  db: Kysely<Database>,
  storeId: string,
  slug: string,
): Promise<{ id: string } | undefined> {
  return db
    .deleteFrom('pages')
    .where('store_id', '=', storeId)
    .where('slug', '=', slug)
    .returning('id')
    .executeTakeFirst();
}

// Regions

/** jsonb comparison: true when the draft is not exactly the published tree. */
const unpublishedChanges = sql<boolean>`draft_blocks IS DISTINCT FROM published_blocks`;

export function regionSummariesQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'regions', RegionSummaryRow> {
  return db
    .selectFrom('regions')
    .select(['id', 'key', 'draft_updated_at', 'published_at', 'created_at'])
    .select(unpublishedChanges.as('changed'))
    .where('store_id', '=', storeId);
}

export function findRegion(
  db: Kysely<Database>,
  storeId: string,
  key: string,
): Promise<RegionStateRow | undefined> {
  return db
    .selectFrom('regions')
    .selectAll()
    .select(unpublishedChanges.as('changed'))
    .where('store_id', '=', storeId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Inserts the region with this draft or replaces its draft; undefined when it is already exactly this. */
export function upsertRegionDraft(
  db: Kysely<Database>,
  region: { storeId: string; key: string; blocks: Block[]; now: Date },
): Promise<RegionStateRow | undefined> {
  return db
    .insertInto('regions')
    .values({
      store_id: region.storeId,
      key: region.key,
      draft_blocks: JSON.stringify(region.blocks),
      draft_updated_at: region.now,
      created_at: region.now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['store_id', 'key'])
        .doUpdateSet({ draft_blocks: (eb) => eb.ref('excluded.draft_blocks'), draft_updated_at: region.now })
        .where(sql<SqlBool>`regions.draft_blocks IS DISTINCT FROM excluded.draft_blocks`),
    )
    .returningAll()
    .returning(unpublishedChanges.as('changed'))
    .executeTakeFirst();
}

/** Copies the draft over the published tree; undefined when there is no region or no change to publish. */
export function publishDraft(
  db: Kysely<Database>,
  storeId: string,
  key: string,
  now: Date,
): Promise<RegionPublicationRow | undefined> {
  return db
    .updateTable('regions')
    .set({ published_blocks: sql`draft_blocks`, published_at: now })
    .where('store_id', '=', storeId)
    .where('key', '=', key)
    .where(unpublishedChanges)
    .returning(['key', 'published_blocks', 'published_at'])
    .executeTakeFirst();
}

function publicationQuery(db: Kysely<Database>, storeId: string, key: string) {
  return db
    .selectFrom('regions')
    .select(['key', 'published_blocks', 'published_at'])
    .where('store_id', '=', storeId)
    .where('key', '=', key);
}

/** The region's published tree and when it was published (both null when never published). */
export function findPublication(
  db: Kysely<Database>,
  storeId: string,
  key: string,
): Promise<RegionPublicationRow | undefined> {
  return publicationQuery(db, storeId, key).executeTakeFirst();
}

/** The published tree of a region that has one; undefined otherwise. */
export function findPublishedRegion(
  db: Kysely<Database>,
  storeId: string,
  key: string,
): Promise<RegionPublicationRow | undefined> {
  return publicationQuery(db, storeId, key).where('published_at', 'is not', null).executeTakeFirst();
}

/** Deletes the region; undefined when there was none. */
export function deleteRegionByKey(
  db: Kysely<Database>,
  storeId: string,
  key: string,
): Promise<Pick<RegionPublicationRow, 'published_at'> | undefined> {
  return db
    .deleteFrom('regions')
    .where('store_id', '=', storeId)
    .where('key', '=', key)
    .returning('published_at')
    .executeTakeFirst();
}
