import { AppError } from '../lib/errors.ts';
import { mediaOfUrl, uploadMedia, type MediaDeps } from '../media/media.service.ts';
import type { GuardedDownloader } from '../webhooks/guarded-download.ts';
import type { RowError } from './imports.tables.ts';
import { COLUMNS } from './shopify-columns.ts';
import type { ImportedProduct } from './shopify-products.ts';

/**
 * An import's images (decision `csv-imports`): an `Image Src` that is a media URL of this store (an
 * export read back) is that media; any other is fetched under the webhooks' address rules, at most
 * MEDIA_MAX_MB, and kept as an upload is (decoded, re-encoded, the same bytes the same media). At
 * most `maxImages` are fetched per import; past that, and for an image that cannot be had, the
 * product comes in without it and the row says why.
 */
export type ImageDeps = Pick<MediaDeps, 'db' | 'storage' | 'limiter' | 'maxPixels' | 'maxBytes'>;

export class ImageSource {
  #fetched = 0;
  readonly #known = new Map<string, string>();

  readonly #deps: ImageDeps;
  readonly #storeId: string;
  readonly #downloader: GuardedDownloader;
  readonly #maxImages: number;

  constructor(deps: ImageDeps, storeId: string, downloader: GuardedDownloader, maxImages: number) {
    this.#deps = deps;
    this.#storeId = storeId;
    this.#downloader = downloader;
    this.#maxImages = maxImages;
  }

  /** Each image's media id by its URL; those that failed as row errors. */
  async mediaIds(product: ImportedProduct): Promise<{ ids: Map<string, string>; failed: RowError[] }> {
    const ids = new Map<string, string>();
    const failed: RowError[] = [];
    for (const image of product.images ?? []) {
      const id = await this.#mediaId(image.src);
      if (typeof id === 'string') ids.set(image.src, id);
      else
        failed.push({
          row: image.row,
          column: COLUMNS.imageSrc,
          detail: `was left out: the image ${id.refused}`,
        });
    }
    return { ids, failed };
  }

  async #mediaId(src: string): Promise<string | { refused: string }> {
    const known = this.#known.get(src);
    if (known) return known;
    const own = await mediaOfUrl(this.#deps, this.#storeId, src);
    if (own) return this.#remember(src, own.id);
    if (this.#fetched >= this.#maxImages)
      return { refused: `is past the ${this.#maxImages} images an import fetches (IMPORT_MAX_IMAGES)` };
    this.#fetched++;
    const got = await this.#downloader.get(src, this.#deps.maxBytes);
    if ('refused' in got) return got;
    try {
      const { media } = await uploadMedia(this.#deps, this.#storeId, got.body);
      return this.#remember(src, media.id);
    } catch (error) {
      if (error instanceof AppError && error.status < 500)
        return { refused: `is not an image the store keeps: ${error.detail}` };
      throw error;
    }
  }

  #remember(src: string, id: string): string {
    if (this.#known.size >= 10_000) this.#known.clear();
    this.#known.set(src, id);
    return id;
  }
}
