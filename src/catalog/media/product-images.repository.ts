import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.ts';
import type { ProductImageRow } from '../catalog.tables.ts';

/** All SQL on product_images (decision `media-uploads`): which media of the store a product shows, in order. */

/** The images of the given products, by product and position. */
export function imagesOfProducts(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<ProductImageRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_images')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('product_id', 'in', [...productIds])
    .orderBy('product_id')
    .orderBy('position')
    .execute();
}

/**
 * Makes `images` the product's images, in their order: the images no longer listed are deleted
 * (a variant that showed one shows the product's again: its foreign key sets it to null), the
 * others kept with their new position and alt text.
 */
export async function replaceProductImages(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  images: readonly { mediaId: string; alt: string | null }[],
): Promise<void> {
  await db
    .deleteFrom('product_images')
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .$if(images.length > 0, (qb) =>
      qb.where(
        'media_id',
        'not in',
        images.map((image) => image.mediaId),
      ),
    )
    .execute();
  if (images.length === 0) return;
  await db
    .insertInto('product_images')
    .values(
      images.map((image, position) => ({
        store_id: storeId,
        product_id: productId,
        media_id: image.mediaId,
        position,
        alt: image.alt,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['store_id', 'product_id', 'media_id']).doUpdateSet((eb) => ({
        position: eb.ref('excluded.position'),
        alt: eb.ref('excluded.alt'),
      })),
    )
    .execute();
}
