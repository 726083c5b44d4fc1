import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.ts';
import type { FieldError } from '../../lib/errors.ts';
import { mediaOfStore } from '../../media/media.service.ts';
import type { ProductImage } from '../catalog.schemas.ts';
import { imagesOfProducts, replaceProductImages } from './product-images.repository.ts';

/**
 * A product's images (decision `media-uploads`): media of its store, which the media feature keeps (asked through its
 * service: decision `services-not-joins`), in the merchant's order with their alt text.
 */

/** The images of products as the API shows them, by product id (products without any are absent). */
export async function productImages(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<Map<string, ProductImage[]>> {
  const rows = await imagesOfProducts(db, storeId, productIds);
  const media = await mediaOfStore(
    { db },
    storeId,
    rows.map((row) => row.media_id),
  );
  const byProduct = new Map<string, ProductImage[]>();
  for (const row of rows) {
    const found = media.get(row.media_id);
    if (!found) continue; // a product's image is a media of its store (a foreign key holds it)
    const list = byProduct.get(row.product_id) ?? [];
    list.push({ id: found.id, url: found.url, alt: row.alt, width: found.width, height: found.height });
    byProduct.set(row.product_id, list);
  }
  return byProduct;
}

/** Makes the checked images the product's, in their order (`replaceProductImages`). */
export { replaceProductImages };

/** A product's images as stored: their media ids and alt text, in order. */
export async function imageLinks(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<{ mediaId: string; alt: string | null }[]> {
  const rows = await imagesOfProducts(db, storeId, [productId]);
  return rows.map((row) => ({ mediaId: row.media_id, alt: row.alt }));
}

/** An image of a product input, checked: a media of the store, with its URL for the card. */
export interface CheckedImage {
  mediaId: string;
  alt: string | null;
  url: string;
}

/**
 * The `images` of a product input, checked: each a media of this store (400 at
 * `/images/{i}/mediaId` otherwise, whether unknown or another store's), each at most once. Alt text
 * is trimmed; blank is none. Undefined when no list was given.
 */
export async function checkImages(
  db: Kysely<Database>,
  storeId: string,
  images: readonly { mediaId: string; alt?: string | null | undefined }[] | undefined,
  errors: FieldError[],
): Promise<CheckedImage[] | undefined> {
  if (images === undefined) return undefined;
  const media = await mediaOfStore(
    { db },
    storeId,
    images.map((image) => image.mediaId),
  );
  const seen = new Set<string>();
  const checked: CheckedImage[] = [];
  images.forEach((image, i) => {
    const found = media.get(image.mediaId);
    if (!found)
      errors.push({ pointer: `/images/${i}/mediaId`, detail: 'is not an uploaded image of this store' });
    else if (seen.has(image.mediaId))
      errors.push({ pointer: `/images/${i}/mediaId`, detail: 'is already an image of this product' });
    else checked.push({ mediaId: image.mediaId, alt: image.alt?.trim() || null, url: found.url });
    seen.add(image.mediaId);
  });
  return checked;
}

/** Whether two image lists are the same images in the same order with the same alt text. */
export function sameImages(
  a: readonly { mediaId: string; alt: string | null }[],
  b: readonly { mediaId: string; alt: string | null }[],
): boolean {
  return (
    a.length === b.length && a.every((image, i) => image.mediaId === b[i]!.mediaId && image.alt === b[i]!.alt)
  );
}
