import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Block, MenuItem } from './content.types.ts';
import type { CreatedAt, UpdatedAt, Json } from '../db/tables.ts';

/** jsonb: read as the parsed value, written as a JSON string. */

export interface MenuTable {
  store_id: string;
  id: Generated<string>;
  handle: string;
  items: Json<MenuItem[]>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type MenuRow = Selectable<MenuTable>;
export type StorefrontMenuRow = Pick<MenuRow, 'handle' | 'items'>;

export interface PageTable {
  store_id: string;
  id: Generated<string>;
  slug: string;
  title: string;
  /** Plain text, never HTML; paragraphs are separated by blank lines. */
  body: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type PageRow = Selectable<PageTable>;
export type StorefrontPageRow = Pick<PageRow, 'slug' | 'title' | 'body' | 'updated_at'>;

export interface RegionTable {
  store_id: string;
  id: Generated<string>;
  key: string;
  /** The tree the admin builder edits; never served to the storefront. */
  draft_blocks: Json<Block[]>;
  draft_updated_at: UpdatedAt;
  /** The tree the storefront serves; null until the region is first published. */
  published_blocks: ColumnType<Block[] | null, string | null | undefined, string | null>;
  published_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: CreatedAt;
}
export type RegionRow = Selectable<RegionTable>;
/** A region with `changed`: its draft is not exactly its published tree (computed in SQL). */
export type RegionStateRow = RegionRow & { changed: boolean };
export type RegionSummaryRow = Pick<
  RegionRow,
  'id' | 'key' | 'draft_updated_at' | 'published_at' | 'created_at'
> & {
  changed: boolean;
};
export type RegionPublicationRow = Pick<RegionRow, 'key' | 'published_blocks' | 'published_at'>;

/** Table types of the content module (menus, pages, regions). Merged into `Database` in db/tables.ts. */
export interface ContentTables {
  menus: MenuTable;
  pages: PageTable;
  regions: RegionTable;
}

declare module '../db/tables.ts' {
  interface Database extends ContentTables {}
}
