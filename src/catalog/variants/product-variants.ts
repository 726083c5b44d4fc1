import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/tables.ts';
import { AppError } from '../../lib/errors.ts';
import type { AdminVariant, VariantInput } from '../catalog.schemas.ts';
import type { ProductOption, ProductStatus, VariantRow } from '../catalog.tables.ts';
import { available } from '../inventory/inventory.ts';
import { refreshCardPrice } from '../products/product-changes.ts';
import { combinationKey, fitsOptions, labelOf } from './options.ts';
import type { VariantPrice } from '../prices/prices.ts';
import { skuTaken } from './variant.validation.ts';
import {
  findTakenSku,
  stopShippingProduct,
  updateVariantRow,
  variantsOfProduct,
  type NewVariant,
} from './variants.repository.ts';

/**
 * A product's variants as its product sees them (products/ calls this face, never the variants'
 * repository): read, inserted with the product, fitted to new options, shown in the admin shape.
 */
export {
  insertBulkVariants,
  insertVariants,
  variantsOfProduct,
  variantsOfProducts,
  type BulkVariantRow,
  type NewVariant,
} from './variants.repository.ts';

/**
 * A variant input as inserted, with its options and label as `optionsAndLabel` made them. A gift
 * card product's variant is not shipped (decision `gift-card-products`; the caller refused `true`).
 */
export function newVariant(
  input: VariantInput,
  made: { options: Record<string, string>; label: string },
  giftCard = false,
): NewVariant {
  return {
    sku: input.sku?.trim() || null,
    label: made.label,
    options: made.options,
    priceAmount: input.priceAmount,
    compareAtAmount: input.compareAtAmount ?? null,
    onHand: input.onHand,
    weightGrams: input.weightGrams ?? null,
    requiresShipping: giftCard ? false : (input.requiresShipping ?? true),
    imageId: input.imageId ?? null,
    taxClass: input.taxClass ?? null,
  };
}

export function toAdminVariant(row: VariantRow, prices: VariantPrice[] = []): AdminVariant {
  return {
    id: row.id,
    productId: row.product_id,
    sku: row.sku,
    label: row.label,
    options: row.options,
    priceAmount: row.price_amount,
    compareAtAmount: row.compare_at_amount,
    onHand: row.on_hand,
    reserved: row.reserved,
    available: available(row),
    weightGrams: row.weight_grams,
    requiresShipping: row.requires_shipping,
    imageId: row.image_id,
    taxClass: row.tax_class,
    prices,
    archived: row.archived_at !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * A product became a gift card (decision `gift-card-products`): none of its variants is shipped any
 * more. Returns whether any was.
 */
export function stopShipping(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
  now: Date,
): Promise<boolean> {
  return stopShippingProduct(trx, storeId, productId, now);
}

/** 409 `sku_unavailable` at the pointer of the first SKU another variant of the store uses. */
export async function assertSkusFree(
  db: Kysely<Database>,
  storeId: string,
  skus: { sku: string; pointer: string }[],
  exceptVariantId?: string,
) {
  if (skus.length === 0) return;
  const taken = await findTakenSku(
    db,
    storeId,
    skus.map((s) => s.sku),
    exceptVariantId,
  );
  if (taken) throw skuTaken(taken, skus.find((s) => s.sku === taken)!.pointer);
}

/**
 * New options must still fit every live variant of the product (decision `product-options`). An option the product did not
 * have gives every live variant its first value (as Shopify does). A variant whose value would be
 * gone (a removed or renamed option or value), or that would share its combination with another, is
 * refused with 409 `option_in_use` naming the variants, or archived with `strandedVariants:
 * "archive"` (never deleted). Archived variants need not fit. An active product keeps one live
 * variant either way. Returns whether any variant changed.
 */
export async function fitOptions(
  trx: Transaction<Database>,
  storeId: string,
  product: { id: string; status: ProductStatus; options: ProductOption[] },
  options: readonly ProductOption[],
  strategy: 'refuse' | 'archive',
  now: Date,
): Promise<boolean> {
  const variants = (await variantsOfProduct(trx, storeId, product.id)).filter((v) => v.archived_at === null);
  const had = new Set(product.options.map((option) => option.name));
  const added = options.filter((option) => !had.has(option.name) && option.values.length > 0);
  const seen = new Set<string>();
  const fitted = variants.map((variant) => {
    const values = { ...variant.options };
    for (const option of added) if (!(option.name in values)) values[option.name] = option.values[0]!;
    let fits = fitsOptions(options, values);
    if (fits) {
      const key = combinationKey(values);
      fits = !seen.has(key);
      seen.add(key);
    }
    return { variant, values, fits };
  });
  const misfits = fitted.filter((entry) => !entry.fits).map((entry) => entry.variant);
  if (
    misfits.length > 0 &&
    (strategy === 'refuse' || (product.status === 'active' && misfits.length === variants.length))
  )
    throw new AppError(
      'option_in_use',
      409,
      `These variants use option values the change would remove, or would share a combination: ${misfits
        .map((variant) => `"${variant.label}"`)
        .join(', ')}. ${
        strategy === 'refuse'
          ? 'Change or delete them first, or send strandedVariants: "archive" to archive them.'
          : 'An active product keeps at least one live variant.'
      }`,
      { errors: [{ pointer: '/options', detail: 'does not fit every variant of the product' }] },
    );
  for (const variant of misfits)
    await updateVariantRow(trx, storeId, variant.id, { archived_at: now, updated_at: now });
  let moved = false;
  for (const { variant, values, fits } of fitted) {
    if (!fits || combinationKey(values) === combinationKey(variant.options)) continue;
    // A label made from the values follows them; one the merchant wrote stays.
    const derived = variant.label === labelOf(product.options, variant.options);
    await updateVariantRow(trx, storeId, variant.id, {
      options: JSON.stringify(values),
      ...(derived ? { label: labelOf(options, values) } : {}),
      updated_at: now,
    });
    moved = true;
  }
  if (misfits.length > 0) await refreshCardPrice(trx, storeId, product.id);
  return misfits.length > 0 || moved;
}
