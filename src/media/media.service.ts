import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { notFound, validationFailed } from '../lib/errors.ts';
import {
  cleanImage,
  CONTENT_TYPE,
  EXTENSION,
  formatOfContentType,
  formatOfExtension,
  negotiateFormat,
  readImageHeader,
  resizeImage,
  WIDTHS,
  type ImageFormat,
} from './media.images.ts';
import type { WorkLimiter } from './media.limiter.ts';
import { findMedia, findMediaByHash, findMediaByIds, insertOrFindMedia } from './media.repository.ts';
import type { Media } from './media.schemas.ts';
import type { MediaStorage } from './media.storage.ts';
import type { MediaRow } from './media.tables.ts';

/**
 * Media (decision `media-uploads`): uploads checked by decoding, kept in the media storage under their store and their
 * SHA-256, and served from immutable URLs, resized on request to a fixed set of widths.
 */
export interface MediaDeps {
  db: Kysely<Database>;
  storage: MediaStorage;
  /** The bound on image work in this process (decodes of uploads and resizes alike). */
  limiter: WorkLimiter;
  /** The largest upload, bytes (MEDIA_MAX_MB). */
  maxBytes: number;
  /** The most pixels of an upload, by its header (MEDIA_MAX_PIXELS; fewer for some formats). */
  maxPixels: number;
}

const originalKey = (storeId: string, hash: string, format: ImageFormat) =>
  `${storeId}/${hash}.${EXTENSION[format]}`;

/** The path an image is served at (decision `media-urls-are-paths`). */
export function mediaUrl(row: Pick<MediaRow, 'store_id' | 'hash' | 'content_type'>): string {
  return `/media/${originalKey(row.store_id, row.hash, formatOfContentType(row.content_type))}`;
}

function toMedia(row: MediaRow): Media {
  return {
    id: row.id,
    url: mediaUrl(row),
    width: row.width,
    height: row.height,
    contentType: row.content_type,
    bytes: row.bytes,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Keeps an uploaded image: its header read first (its type, and its pixels within MEDIA_MAX_PIXELS,
 * before a turn is waited for), then, in the process's bound on image work, every pixel decoded and
 * encoded again without anything else (decision `media-without-metadata`): only a whole JPEG, PNG,
 * WebP, AVIF or GIF is kept, and what is served publicly carries no GPS position, name, comment or
 * trailing bytes. The same bytes uploaded again are the same media. The file is stored before its
 * row, so a row always has its file.
 */
export async function uploadMedia(
  deps: Pick<MediaDeps, 'db' | 'storage' | 'limiter' | 'maxPixels'>,
  storeId: string,
  bytes: Buffer,
): Promise<{ media: Media; created: boolean }> {
  if (bytes.length === 0)
    throw validationFailed('The file is empty.', [{ pointer: '/file', detail: 'is empty' }]);
  const image = await readImageHeader(bytes, deps.maxPixels);
  const kept = await deps.limiter.run(() => cleanImage(bytes, image));
  const hash = createHash('sha256').update(kept).digest('hex');
  const key = originalKey(storeId, hash, image.format);
  if (!(await deps.storage.has(key))) await deps.storage.put(key, kept);
  const { row, created } = await insertOrFindMedia(deps.db, {
    store_id: storeId,
    hash,
    content_type: CONTENT_TYPE[image.format],
    width: image.width,
    height: image.height,
    bytes: kept.length,
  });
  return { media: toMedia(row), created };
}

/**
 * The store's media a URL of this server names (`…/media/{store}/{hash}.{ext}`, whatever its host:
 * an export's `Image Src` read back), or undefined: another store's, or not a media URL.
 */
export async function mediaOfUrl(
  deps: { db: Kysely<Database> },
  storeId: string,
  url: string,
): Promise<Media | undefined> {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const match = /^\/media\/([0-9a-f-]{36})\/([0-9a-f]{64})\.[a-z]+$/.exec(path);
  if (!match || match[1] !== storeId) return undefined;
  const row = await findMediaByHash(deps.db, storeId, match[2]!);
  return row ? toMedia(row) : undefined;
}

export async function getMedia(deps: { db: Kysely<Database> }, storeId: string, id: string): Promise<Media> {
  const row = await findMedia(deps.db, storeId, id);
  if (!row) throw notFound('No media with that id in this store.');
  return toMedia(row);
}

/** The store's media among `ids`, by id (other features ask here; another store's media is absent). */
export async function mediaOfStore(
  deps: { db: Kysely<Database> },
  storeId: string,
  ids: readonly string[],
): Promise<Map<string, Media>> {
  const rows = await findMediaByIds(deps.db, storeId, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, toMedia(row)]));
}

export interface MediaFileRequest {
  storeId: string;
  /** `<sha256>.<ext>`, as in the URL. */
  file: string;
  width: number | undefined;
  accept: string | undefined;
}

export interface MediaFile {
  contentType: string;
  /** A strong validator of this representation: the hash, with the width and format of a copy. */
  etag: string;
  /** Whether the format followed the Accept header (the answer then varies by it). */
  negotiated: boolean;
  /** The bytes, or null when `ifNoneMatch` named this representation (304). */
  body: { stream: Readable; bytes: number } | Buffer | null;
}

/**
 * A file of `/media/…`: the file kept at upload, or a copy `width` wide in the format the Accept header
 * prefers (AVIF, else WebP, else the upload's), made once and kept in the storage. A copy is made in
 * the bound on image work: when that is full the answer is 503 `media_busy` with Retry-After.
 */
export async function openMediaFile(
  deps: Pick<MediaDeps, 'storage' | 'limiter'>,
  request: MediaFileRequest,
  isCurrent: (etag: string) => boolean,
): Promise<MediaFile> {
  const [hash = '', extension = ''] = request.file.split('.');
  const source = formatOfExtension(extension);
  if (source === null) throw notFound('No such media.');
  const original = originalKey(request.storeId, hash, source);
  if (request.width === undefined) {
    const etag = `"${hash}"`;
    const file = { contentType: CONTENT_TYPE[source], etag, negotiated: false };
    if (isCurrent(etag)) return { ...file, body: null };
    const body = await deps.storage.open(original);
    if (!body) throw notFound('No such media.');
    return { ...file, body };
  }
  const width = request.width;
  if (!WIDTHS.includes(width))
    throw validationFailed(
      `A resized image is ${WIDTHS.join(', ')} pixels wide; ${width} is not one of them.`,
      [{ pointer: '/w', detail: `must be one of ${WIDTHS.join(', ')}`, in: 'query' }],
    );
  const format = negotiateFormat(source, request.accept);
  const copy = `${request.storeId}/${hash}.w${width}.${EXTENSION[format]}`;
  const file = {
    contentType: CONTENT_TYPE[format],
    etag: `"${hash}.w${width}.${EXTENSION[format]}"`,
    negotiated: true,
  };
  if (isCurrent(file.etag)) return { ...file, body: null };
  const kept = await deps.storage.open(copy);
  if (kept) return { ...file, body: kept };
  // Unknown media never waits for a turn: only an upload that exists is resized.
  if (!(await deps.storage.has(original))) throw notFound('No such media.');
  const body = await deps.limiter.runOnce(copy, async () => {
    const bytes = await deps.storage.get(original);
    if (!bytes) throw notFound('No such media.');
    const resized = await resizeImage(bytes, source, width, format);
    await deps.storage.put(copy, resized);
    return resized;
  });
  return { ...file, body };
}
