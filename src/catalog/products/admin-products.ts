import type { ServiceDeps } from '../../db/service-deps.ts';
import { STANDARD_TAX_CLASS } from '../../pricing/tax-classes.service.ts';
import { storeCurrency } from '../../stores/stores.service.ts';
import type { AdminProduct, AdminVariant } from '../catalog.schemas.ts';
import type { ProductRow } from '../catalog.tables.ts';
import { productImages } from '../media/product-images.ts';
import { pricesOfVariants } from '../prices/prices.ts';
import { toAdminVariant, variantsOfProducts } from '../variants/product-variants.ts';

/** Product rows in the admin shape, with their variants (one query for all of them). */
export async function toAdminProducts(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  rows: ProductRow[],
): Promise<AdminProduct[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [variants, currency, images] = await Promise.all([
    variantsOfProducts(deps.db, storeId, ids),
    storeCurrency(deps, storeId),
    productImages(deps.db, storeId, ids),
  ]);
  const prices = await pricesOfVariants(
    deps.db,
    storeId,
    variants.map((variant) => variant.id),
  );
  const byProduct = new Map<string, AdminVariant[]>();
  for (const variant of variants) {
    const list = byProduct.get(variant.product_id) ?? [];
    list.push(toAdminVariant(variant, prices.get(variant.id)));
    byProduct.set(variant.product_id, list);
  }
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    image: row.image,
    tags: row.tags,
    handle: row.handle,
    seo: { title: row.seo_title, description: row.seo_description },
    options: row.options,
    images: images.get(row.id) ?? [],
    priceAmount: row.price_amount,
    currency,
    taxClass: row.tax_class ?? STANDARD_TAX_CLASS,
    giftCard: row.gift_card,
    variants: byProduct.get(row.id) ?? [],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}
