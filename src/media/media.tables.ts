import type { Generated, Selectable } from 'kysely';
import type { CreatedAt } from '../db/tables.ts';

/** The image types an upload may be (checked by decoding, decision `media-uploads`). */
export type MediaContentType = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/avif' | 'image/gif';

/**
 * An uploaded image (decision `media-uploads`): its bytes live in the media storage under the store and their SHA-256,
 * so a row never changes and the same file uploaded twice is the same media.
 */
export interface MediaTable {
  store_id: string;
  id: Generated<string>;
  /** SHA-256 of the bytes, lower-case hex: the file's name in the storage and in its URL. */
  hash: string;
  content_type: MediaContentType;
  /** As displayed (EXIF orientation applied). */
  width: number;
  height: number;
  bytes: number;
  created_at: CreatedAt;
}
export type MediaRow = Selectable<MediaTable>;

/** Table types of the media module. Merged into `Database`. */
export interface MediaTables {
  media: MediaTable;
}

declare module '../db/tables.ts' {
  interface Database extends MediaTables {}
}
