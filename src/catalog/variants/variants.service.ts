import type { Kysely, Transaction } from 'kysely';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.ts';
import type { ServiceDeps } from '../../db/service-deps.ts';
import type { Database } from '../../db/tables.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../../lib/errors.ts';
import type { AdminVariant, VariantInput, VariantLookup, VariantPatch } from '../catalog.schemas.ts';
import type { ProductOption, ProductStatus, VariantRow } from '../catalog.tables.ts';
import { productChanged } from '../collections/smart-membership.ts';
import { available, lockVariant, setOnHand } from '../inventory/inventory.ts';
import { imageLinks } from '../media/product-images.ts';
import {
  lockExistingProduct,
  recordVisibilityChange,
  refreshCardPrice,
} from '../products/product-changes.ts';
import { combinationKey, fitsOptions } from './options.ts';
import { pricesOf, pricesOfVariants, setVariantPrices } from '../prices/prices.ts';
import { storeCurrency } from '../../stores/stores.service.ts';
import { assertSkusFree, newVariant, toAdminVariant } from './product-variants.ts';
import {
  checkVariant,
  combinationTaken,
  MAX_VARIANTS,
  notAnImageOfTheProduct,
  optionsAndLabel,
  SHIPPED_GIFT_CARD,
  skuTaken,
  unknownTaxClass,
} from './variant.validation.ts';
import {
  deleteVariantRow,
  findVariant,
  insertVariant,
  lookupVariantRows,
  updateVariantRow,
  variantCountAndLastPosition,
  takenSkus,
  variantIdsBySku,
  variantIdsOfProduct,
} from './variants.repository.ts';

/** The admin's use cases on one variant: add, change (archive, stock), delete. */

const noVariant = () => notFound('No variant with that id in this store.');
/** Decision `gift-card-products`: a gift card product's variants are not shipped. */
const shippedGiftCard = (title: string) =>
  validationFailed(title, [{ pointer: '/requiresShipping', detail: SHIPPED_GIFT_CARD }]);

/** A variant's image is one of its product's (decision `media-uploads`): 400 at `/imageId` otherwise. */
async function assertImageOfProduct(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
  imageId: string,
): Promise<void> {
  const images = await imageLinks(trx, storeId, productId);
  if (!images.some((image) => image.mediaId === imageId))
    throw validationFailed('A variant shows one of its product’s images.', [
      { pointer: '/imageId', detail: notAnImageOfTheProduct },
    ]);
}

async function findExistingVariant(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
): Promise<VariantRow> {
  const row = await findVariant(db, storeId, variantId);
  if (!row) throw noVariant();
  return row;
}

export async function addVariant(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  productId: string,
  input: VariantInput,
): Promise<AdminVariant> {
  const errors: FieldError[] = [];
  checkVariant(input, '', errors, await storeCurrency(deps, storeId));
  if (errors.length > 0) throw validationFailed('The variant is invalid.', errors);
  const sku = input.sku?.trim() || null;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const product = await lockExistingProduct(trx, storeId, productId);
      const optionErrors: FieldError[] = [];
      const made = optionsAndLabel(product.options, input, '', optionErrors);
      if (optionErrors.length > 0) throw validationFailed('The variant is invalid.', optionErrors);
      if (product.gift_card && input.requiresShipping === true)
        throw shippedGiftCard('The variant is invalid.');
      if (input.imageId) await assertImageOfProduct(trx, storeId, productId, input.imageId);
      if (sku) await assertSkusFree(trx, storeId, [{ sku, pointer: '/sku' }]);
      const last = await variantCountAndLastPosition(trx, storeId, productId);
      if (last.count >= MAX_VARIANTS) {
        throw new AppError('limit_reached', 409, `A product can have at most ${MAX_VARIANTS} variants.`);
      }
      const now = deps.clock.now();
      const position = last.lastPosition === null ? 0 : last.lastPosition + 1;
      const row = await insertVariant(
        trx,
        { storeId, productId, now },
        position,
        newVariant(input, made, product.gift_card),
      );
      if (input.prices?.length) await setVariantPrices(trx, storeId, row.id, pricesOf(input.prices));
      await refreshCardPrice(trx, storeId, productId);
      await productChanged(trx, storeId, productId);
      await recordVisibilityChange(trx, storeId, productId, product.status, product.status, true);
      return toAdminVariant(row, (await pricesOfVariants(trx, storeId, [row.id])).get(row.id));
    });
  } catch (error) {
    throw variantWriteError(error, sku);
  }
}

/**
 * Changes a variant. Emits product.updated when the product is visible and a field changed, and
 * inventory.updated whenever the variant's sellable stock changed.
 */
export async function updateVariant(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  variantId: string,
  patch: VariantPatch,
): Promise<AdminVariant> {
  const errors: FieldError[] = [];
  checkVariant(patch, '', errors, await storeCurrency(deps, storeId));
  if (errors.length > 0) throw validationFailed('The variant change is invalid.', errors);
  const sku = patch.sku === undefined ? undefined : patch.sku?.trim() || null;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const found = await findExistingVariant(trx, storeId, variantId);
      const product = await lockExistingProduct(trx, storeId, found.product_id);
      const current = await lockVariant(trx, storeId, variantId);
      if (!current) throw noVariant();
      if (product.gift_card && patch.requiresShipping === true)
        throw shippedGiftCard('The variant change is invalid.');
      if (sku) await assertSkusFree(trx, storeId, [{ sku, pointer: '/sku' }], variantId);
      if (patch.imageId) await assertImageOfProduct(trx, storeId, product.id, patch.imageId);
      // New option values: checked against the product's; the label follows them unless given.
      let options: { options: Record<string, string>; label: string } | undefined;
      if (patch.options !== undefined) {
        const optionErrors: FieldError[] = [];
        options = optionsAndLabel(product.options, patch, '', optionErrors);
        if (optionErrors.length > 0) throw validationFailed('The variant change is invalid.', optionErrors);
      }
      const now = deps.clock.now();
      const archiving = patch.archived !== undefined && patch.archived !== (current.archived_at !== null);
      if (archiving)
        await assertArchivable(trx, storeId, product, current, patch.archived!, options?.options);
      const row = await updateVariantRow(trx, storeId, variantId, {
        updated_at: now,
        ...(archiving ? { archived_at: patch.archived ? now : null } : {}),
        ...(sku !== undefined ? { sku } : {}),
        ...(options ? { options: JSON.stringify(options.options), label: options.label } : {}),
        ...(patch.label !== undefined ? { label: patch.label.trim() } : {}),
        ...(patch.priceAmount !== undefined ? { price_amount: patch.priceAmount } : {}),
        ...(patch.compareAtAmount !== undefined ? { compare_at_amount: patch.compareAtAmount } : {}),
        ...(patch.weightGrams !== undefined ? { weight_grams: patch.weightGrams } : {}),
        ...(patch.requiresShipping !== undefined ? { requires_shipping: patch.requiresShipping } : {}),
        ...(patch.imageId !== undefined ? { image_id: patch.imageId } : {}),
        ...(patch.taxClass !== undefined ? { tax_class: patch.taxClass } : {}),
      });
      const fieldsChanged =
        row.sku !== current.sku ||
        row.label !== current.label ||
        combinationKey(row.options) !== combinationKey(current.options) ||
        row.price_amount !== current.price_amount ||
        row.compare_at_amount !== current.compare_at_amount ||
        row.weight_grams !== current.weight_grams ||
        row.requires_shipping !== current.requires_shipping ||
        row.image_id !== current.image_id ||
        row.tax_class !== current.tax_class ||
        patch.prices !== undefined ||
        archiving;
      const stockChanged =
        patch.onHand !== undefined &&
        available({ on_hand: patch.onHand, reserved: current.reserved }) !== available(current);
      if (patch.prices !== undefined) await setVariantPrices(trx, storeId, variantId, pricesOf(patch.prices));
      if (row.price_amount !== current.price_amount || archiving) {
        await refreshCardPrice(trx, storeId, product.id);
        await productChanged(trx, storeId, product.id);
      } else if (row.compare_at_amount !== current.compare_at_amount || patch.prices !== undefined) {
        // The card's compare-at (decision `product-handles`) may be this variant's.
        await refreshCardPrice(trx, storeId, product.id);
      }
      if (fieldsChanged || stockChanged) {
        await recordVisibilityChange(trx, storeId, product.id, product.status, product.status, true);
      }
      // Stock goes through the inventory module: 409 stock_reserved below what pending orders hold,
      // inventory.updated when the sellable count changed.
      const stocked =
        patch.onHand === undefined ? row : await setOnHand(trx, storeId, variantId, patch.onHand, now);
      return toAdminVariant(
        stocked ?? row,
        (await pricesOfVariants(trx, storeId, [variantId])).get(variantId),
      );
    });
  } catch (error) {
    throw variantWriteError(error, sku);
  }
}

/** What the database's refusal of a variant's write means to the client (everything was rolled back). */
function variantWriteError(error: unknown, sku: string | null | undefined): unknown {
  if (isUniqueViolation(error, 'variants_options_idx')) return combinationTaken('/options');
  if (isUniqueViolation(error) && sku) return skuTaken(sku, '/sku');
  if (isForeignKeyViolation(error, 'variants_tax_class_fkey')) return unknownTaxClass(['/taxClass']);
  return error;
}

/**
 * Archiving keeps a live variant on an active product (as deleting does); bringing one back needs
 * its values to be among the product's options again (409 `option_in_use`); its combination may
 * have been taken meanwhile (409 `option_combination_taken`, from the unique index).
 */
async function assertArchivable(
  trx: Transaction<Database>,
  storeId: string,
  product: { id: string; status: ProductStatus; options: ProductOption[] },
  variant: VariantRow,
  archive: boolean,
  newValues: Record<string, string> | undefined,
): Promise<void> {
  if (archive) {
    if (product.status !== 'active') return;
    const live = await variantIdsOfProduct(trx, storeId, product.id, 2);
    if (live.length < 2)
      throw validationFailed(
        'An active product needs at least one live variant; add or restore another first, or archive the product.',
        [{ pointer: '/archived', detail: 'would archive the last live variant of an active product' }],
      );
    return;
  }
  if (!fitsOptions(product.options, newValues ?? variant.options))
    throw new AppError(
      'option_in_use',
      409,
      `The variant "${variant.label}" has option values the product no longer has; add them back to the product's options, or change the variant's options in the same request.`,
      { errors: [{ pointer: '/archived', detail: 'does not fit the product’s options' }] },
    );
}

export async function deleteVariant(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  variantId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const found = await findExistingVariant(trx, storeId, variantId);
    const product = await lockExistingProduct(trx, storeId, found.product_id);
    if (product.status === 'active' && found.archived_at === null) {
      const siblings = await variantIdsOfProduct(trx, storeId, product.id, 2);
      if (siblings.length < 2) {
        throw validationFailed(
          'An active product needs at least one variant; archive the product or add a variant first.',
          [{ pointer: '/id', detail: 'is the last variant of an active product', in: 'path' }],
        );
      }
    }
    await deleteVariantRow(trx, storeId, variantId);
    await refreshCardPrice(trx, storeId, product.id);
    await productChanged(trx, storeId, product.id);
    await recordVisibilityChange(trx, storeId, product.id, product.status, product.status, true);
  });
}

/**
 * The store's variants named by SKU (compared exactly) or by id, with their products' titles: what
 * a form resolving pasted SKUs (a price list's) or showing stored variant ids needs, without
 * reading the catalog page by page. Neither given: none.
 */
export async function lookupVariants(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  query: { sku?: readonly string[] | undefined; id?: readonly string[] | undefined },
): Promise<{ items: VariantLookup[] }> {
  const ids = [...new Set((query.id ?? []).map((id) => id.toLowerCase()))];
  const skus = [...new Set(query.sku ?? [])];
  if (ids.length === 0 && skus.length === 0) return { items: [] };
  const rows = await lookupVariantRows(deps.db, storeId, ids, skus);
  return {
    items: rows.map((row) => ({
      id: row.id,
      productId: row.product_id,
      productTitle: row.product_title,
      label: row.label,
      sku: row.sku,
      archived: row.archived_at !== null,
    })),
  };
}

/** Which of these SKUs the store's variants use, with their product's handle: an import's check. */
export function skusInUse(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  skus: readonly string[],
): Promise<Map<string, string>> {
  return takenSkus(deps.db, storeId, skus);
}

/** The store's variants of these SKUs with their on-hand count, by SKU: an inventory import's lookup. */
export function variantsOfSkus(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  skus: readonly string[],
): Promise<Map<string, { id: string; onHand: number; reserved: number }>> {
  return variantIdsBySku(deps.db, storeId, skus);
}
