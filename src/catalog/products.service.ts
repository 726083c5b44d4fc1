import type { EmittedData } from '../events/events.schemas.ts';
import type { ProductCreatedData, ProductDeletedData, ProductUpdatedData } from './catalog.events.ts';
import type { Kysely, Transaction } from 'kysely';
import { byCreated } from '../db/keyset.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { uuidV7 } from '../lib/uuid.ts';
import type {
  AdminProduct,
  AdminProductsQuery,
  AdminVariant,
  ProductInput,
  ProductPatch,
  VariantInput,
  VariantPatch,
} from './catalog.schemas.ts';
import { storeCurrency, type CatalogDeps } from './catalog.service.ts';
import type { ProductOption, ProductRow, ProductStatus, VariantRow } from './catalog.tables.ts';
import { combinationKey, labelOf, normalizeOptions, variantOptions } from './options.ts';
import { refreshSmartMembership } from './collections.repository.ts';
import { available, setOnHand } from './inventory.ts';
import {
  analyzeProducts,
  deleteProductRow,
  deleteVariantRow,
  findProduct,
  findTakenSku,
  findVariant,
  insertProduct,
  countProducts,
  insertBulkProducts,
  insertBulkVariants,
  insertVariant,
  insertVariants,
  lockProduct,
  lockVariant,
  productsQuery,
  refreshCardPrice,
  takeHandle,
  updateProductRow,
  updateVariantRow,
  variantCountAndLastPosition,
  variantIdsOfProduct,
  variantsOfProduct,
  variantsOfProducts,
} from './products.repository.ts';

export const MAX_VARIANTS = 100;
export const MAX_TAGS = 50;

export function toAdminVariant(row: VariantRow): AdminVariant {
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
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** An image is an https URL (the storefront embeds it; http would be mixed content). */
export function checkImage(image: string | null | undefined, pointer = '/image'): FieldError[] {
  if (image === null || image === undefined) return [];
  try {
    const url = new URL(image);
    if (url.protocol === 'https:' && !url.username && !url.password && image.length <= 2048) return [];
  } catch {
    // fall through
  }
  return [{ pointer, detail: 'must be an https URL (or null)' }];
}

export function normalizeTags(tags: string[] | undefined, errors: FieldError[]): string[] | undefined {
  if (tags === undefined) return undefined;
  const out: string[] = [];
  const seen = new Set<string>();
  tags.forEach((tag, i) => {
    const trimmed = tag.trim();
    if (trimmed === '' || trimmed.length > 64)
      errors.push({ pointer: `/tags/${i}`, detail: 'must be 1 to 64 characters' });
    else if (!seen.has(trimmed.toLowerCase())) {
      seen.add(trimmed.toLowerCase());
      out.push(trimmed);
    }
  });
  if (tags.length > MAX_TAGS) errors.push({ pointer: '/tags', detail: `must have at most ${MAX_TAGS} tags` });
  return out;
}

function checkVariant(variant: VariantInput | VariantPatch, at: string, errors: FieldError[]): void {
  if (variant.label !== undefined && variant.label.trim() === '')
    errors.push({ pointer: `${at}/label`, detail: 'must not be blank' });
  if (variant.sku !== undefined && variant.sku !== null && variant.sku.trim() === '') {
    errors.push({ pointer: `${at}/sku`, detail: 'must not be blank (use null for no SKU)' });
  }
}

const skuTaken = (sku: string, pointer: string): AppError =>
  new AppError('sku_unavailable', 409, `The SKU "${sku}" is already used by another variant of this store.`, {
    errors: [{ pointer, detail: 'is already used in this store' }],
  });

const noProduct = () => notFound('No product with that id in this store.');
const noVariant = () => notFound('No variant with that id in this store.');

async function assertSkusFree(
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

const isVisible = (status: ProductStatus): boolean => status === 'active';

const handleTaken = (handle: string): AppError =>
  new AppError('handle_unavailable', 409, `Another product of this store has the handle "${handle}".`, {
    errors: [{ pointer: '/handle', detail: 'is already used by another product of this store' }],
  });

/** An SEO field as stored: trimmed, blank is none; undefined leaves it as it is. */
const seoField = (value: string | null | undefined): string | null | undefined =>
  value === undefined ? undefined : value?.trim() || null;

const combinationTaken = (pointer: string): AppError =>
  new AppError(
    'option_combination_taken',
    409,
    'Another variant of this product has the same option values.',
    { errors: [{ pointer, detail: 'is the combination of another variant of this product' }] },
  );

/**
 * A variant's options and label as stored (D46): checked against its product's options; the
 * label, when not given, made from the values. A product without options needs a label.
 */
function optionsAndLabel(
  product: readonly ProductOption[],
  variant: { label?: string | undefined; options?: Record<string, string> | undefined },
  at: string,
  errors: FieldError[],
): { options: Record<string, string>; label: string } {
  const options = variantOptions(product, variant.options, at, errors);
  const label = variant.label?.trim() || (product.length > 0 ? labelOf(product, options) : '');
  if (label === '' && variant.label === undefined)
    errors.push({ pointer: `${at}/label`, detail: 'is required for a product without options' });
  return { options, label };
}

/** The card's compare-at: the cheapest variant's (the first of equal ones) when higher than its price. */
function cardCompareAt(variants: readonly VariantInput[]): number | null {
  let cheapest: VariantInput | undefined;
  for (const variant of variants)
    if (!cheapest || variant.priceAmount < cheapest.priceAmount) cheapest = variant;
  const compareAt = cheapest?.compareAtAmount ?? null;
  return cheapest && compareAt !== null && compareAt > cheapest.priceAmount ? compareAt : null;
}

/** Product rows in the admin shape, with their variants (one query for all of them). */
export async function toAdminProducts(
  deps: Pick<CatalogDeps, 'db'>,
  storeId: string,
  rows: ProductRow[],
): Promise<AdminProduct[]> {
  if (rows.length === 0) return [];
  const [variants, currency] = await Promise.all([
    variantsOfProducts(
      deps.db,
      storeId,
      rows.map((r) => r.id),
    ),
    storeCurrency(deps, storeId),
  ]);
  const byProduct = new Map<string, AdminVariant[]>();
  for (const variant of variants) {
    const list = byProduct.get(variant.product_id) ?? [];
    list.push(toAdminVariant(variant));
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
    priceAmount: row.price_amount,
    currency,
    variants: byProduct.get(row.id) ?? [],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}

/**
 * All products of the store (any status, or one), by creation time; with `q`, those whose title or
 * a variant's SKU contains it. A cursor is bound to its filter and search (its scope).
 */
export async function listProducts(
  deps: Pick<CatalogDeps, 'db' | 'cursors'>,
  storeId: string,
  query: AdminProductsQuery,
): Promise<ListPage<AdminProduct>> {
  const q = query.q?.trim() || undefined;
  const scope = `${storeId}:admin-products:${query.status ?? '*'}${q === undefined ? '' : `:q=${JSON.stringify(q)}`}`;
  const page = await byCreated(
    deps.cursors,
    scope,
    productsQuery(deps.db, storeId, { status: query.status, q }),
    query,
    (row) => row,
  );
  return { items: await toAdminProducts(deps, storeId, page.items), nextCursor: page.nextCursor };
}

export async function getProduct(
  deps: Pick<CatalogDeps, 'db'>,
  storeId: string,
  productId: string,
): Promise<AdminProduct> {
  const row = await findProduct(deps.db, storeId, productId);
  if (!row) throw noProduct();
  return (await toAdminProducts(deps, storeId, [row]))[0]!;
}

/**
 * Creates a product with its variants. A product becomes visible (product.created) only when it
 * is active, and an active product needs at least one variant (D21).
 */
export async function createProduct(
  deps: Pick<CatalogDeps, 'db' | 'clock'>,
  storeId: string,
  input: ProductInput,
  attempt = 1,
): Promise<AdminProduct> {
  const errors: FieldError[] = [...checkImage(input.image)];
  const tags = normalizeTags(input.tags, errors) ?? [];
  if (input.title.trim() === '') errors.push({ pointer: '/title', detail: 'must not be blank' });
  if (input.variants.length > MAX_VARIANTS)
    errors.push({ pointer: '/variants', detail: `must have at most ${MAX_VARIANTS} variants` });
  if (input.status === 'active' && input.variants.length === 0) {
    errors.push({ pointer: '/variants', detail: 'an active product needs at least one variant' });
  }
  const options = normalizeOptions(input.options, errors) ?? [];
  const combinations = new Set<string>();
  const stored = input.variants.map((variant, i) => {
    const made = optionsAndLabel(options, variant, `/variants/${i}`, errors);
    if (options.length > 0) {
      const key = combinationKey(made.options);
      if (combinations.has(key))
        errors.push({
          pointer: `/variants/${i}/options`,
          detail: 'is the combination of another variant of this product',
        });
      combinations.add(key);
    }
    return made;
  });
  const skus: { sku: string; pointer: string }[] = [];
  input.variants.forEach((variant, i) => {
    checkVariant(variant, `/variants/${i}`, errors);
    const sku = variant.sku?.trim();
    if (sku) {
      if (skus.some((s) => s.sku === sku))
        errors.push({ pointer: `/variants/${i}/sku`, detail: 'is repeated in this product' });
      skus.push({ sku, pointer: `/variants/${i}/sku` });
    }
  });
  if (errors.length > 0) throw validationFailed('The product is invalid.', errors);

  const now = deps.clock.now();
  try {
    const id = await deps.db.transaction().execute(async (trx) => {
      await assertSkusFree(trx, storeId, skus);
      const product = await insertProduct(trx, {
        storeId,
        title: input.title.trim(),
        description: input.description ?? '',
        status: input.status,
        image: input.image ?? null,
        tags,
        priceAmount: input.variants.length > 0 ? Math.min(...input.variants.map((v) => v.priceAmount)) : null,
        compareAtAmount: cardCompareAt(input.variants),
        options,
        handle: input.handle,
        seoTitle: seoField(input.seo?.title) ?? null,
        seoDescription: seoField(input.seo?.description) ?? null,
        now,
      });
      if (input.handle !== undefined) await takeHandle(trx, storeId, product.id, product.handle, null);
      if (input.variants.length > 0) {
        await insertVariants(
          trx,
          input.variants.map((variant, position) => ({
            store_id: storeId,
            product_id: product.id,
            position,
            sku: variant.sku?.trim() || null,
            label: stored[position]!.label,
            options: JSON.stringify(stored[position]!.options),
            price_amount: variant.priceAmount,
            compare_at_amount: variant.compareAtAmount ?? null,
            on_hand: variant.onHand,
            weight_grams: variant.weightGrams ?? null,
            requires_shipping: variant.requiresShipping ?? true,
            created_at: now,
            updated_at: now,
          })),
        );
      }
      await refreshSmartMembership(trx, storeId, { productIds: [product.id] });
      if (isVisible(input.status)) {
        await recordEvent(trx, {
          storeId,
          type: 'product.created',
          resource: `product:${product.id}`,
          data: { productId: product.id } satisfies EmittedData<typeof ProductCreatedData>,
        });
      }
      return product.id;
    });
    return await getProduct(deps, storeId, id);
  } catch (error) {
    if (isUniqueViolation(error, 'products_handle_idx')) {
      // Made from the title while another product of that title was being created: once more.
      if (input.handle === undefined && attempt < 3) return createProduct(deps, storeId, input, attempt + 1);
      throw handleTaken(input.handle ?? '');
    }
    if (isUniqueViolation(error)) throw skuTaken(skus[0]?.sku ?? '', skus[0]?.pointer ?? '/variants');
    throw error;
  }
}

async function lockExistingProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<ProductRow> {
  const row = await lockProduct(db, storeId, productId);
  if (!row) throw noProduct();
  return row;
}

/** Emits the storefront-visibility event of a product change (created, updated or deleted). */
async function recordVisibilityChange(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
  was: ProductStatus,
  now: ProductStatus,
  changed: boolean,
): Promise<void> {
  if (!isVisible(was) && isVisible(now)) {
    await recordEvent(trx, {
      storeId,
      type: 'product.created',
      resource: `product:${productId}`,
      data: { productId } satisfies EmittedData<typeof ProductCreatedData>,
    });
  } else if (isVisible(was) && !isVisible(now)) {
    await recordEvent(trx, {
      storeId,
      type: 'product.deleted',
      resource: `product:${productId}`,
      data: { productId, reason: now as 'draft' | 'archived' } satisfies EmittedData<
        typeof ProductDeletedData
      >,
    });
  } else if (isVisible(now) && changed) {
    await recordEvent(trx, {
      storeId,
      type: 'product.updated',
      resource: `product:${productId}`,
      data: { productId } satisfies EmittedData<typeof ProductUpdatedData>,
    });
  }
}

export async function updateProduct(
  deps: Pick<CatalogDeps, 'db' | 'clock'>,
  storeId: string,
  productId: string,
  patch: ProductPatch,
): Promise<AdminProduct> {
  const errors: FieldError[] = [...checkImage(patch.image)];
  const tags = normalizeTags(patch.tags, errors);
  if (patch.title !== undefined && patch.title.trim() === '')
    errors.push({ pointer: '/title', detail: 'must not be blank' });
  const options = normalizeOptions(patch.options, errors);
  if (errors.length > 0) throw validationFailed('The product change is invalid.', errors);

  try {
    await changeProduct(deps, storeId, productId, patch, tags, options);
  } catch (error) {
    if (isUniqueViolation(error, 'products_handle_idx')) throw handleTaken(patch.handle ?? '');
    throw error;
  }
  return getProduct(deps, storeId, productId);
}

/**
 * New options must still fit every variant of the product (D46): 409 `option_in_use`, naming the
 * variants, when a variant's value would be gone (a removed or renamed option or value) or a new
 * option would leave variants without a value.
 */
async function assertOptionsFit(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
  options: readonly ProductOption[],
): Promise<void> {
  const variants = await variantsOfProduct(trx, storeId, productId);
  const misfits = variants.filter((variant) => {
    const errors: FieldError[] = [];
    const fitted = variantOptions(options, variant.options, '', errors);
    return errors.length > 0 || combinationKey(fitted) !== combinationKey(variant.options);
  });
  if (misfits.length > 0)
    throw new AppError(
      'option_in_use',
      409,
      `These variants use option values the change would remove, or lack a value of a new option: ${misfits
        .map((variant) => `"${variant.label}"`)
        .join(', ')}. Change or delete them first.`,
      { errors: [{ pointer: '/options', detail: 'does not fit every variant of the product' }] },
    );
}

async function changeProduct(
  deps: Pick<CatalogDeps, 'db' | 'clock'>,
  storeId: string,
  productId: string,
  patch: ProductPatch,
  tags: string[] | undefined,
  options: ProductOption[] | undefined,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await lockExistingProduct(trx, storeId, productId);
    if (options !== undefined) await assertOptionsFit(trx, storeId, productId, options);
    const status = patch.status ?? current.status;
    if (status === 'active' && current.price_amount === null) {
      throw validationFailed('An active product needs at least one variant.', [
        { pointer: '/status', detail: 'add a variant before making the product active' },
      ]);
    }
    const seoTitle = seoField(patch.seo?.title);
    const seoDescription = seoField(patch.seo?.description);
    const next = {
      title: patch.title?.trim() ?? current.title,
      description: patch.description ?? current.description,
      status,
      image: patch.image !== undefined ? patch.image : current.image,
      tags: tags ?? current.tags,
      handle: patch.handle ?? current.handle,
      seo_title: seoTitle === undefined ? current.seo_title : seoTitle,
      seo_description: seoDescription === undefined ? current.seo_description : seoDescription,
      options: options ?? current.options,
    };
    const changed =
      next.title !== current.title ||
      next.description !== current.description ||
      next.image !== current.image ||
      next.handle !== current.handle ||
      next.seo_title !== current.seo_title ||
      next.seo_description !== current.seo_description ||
      JSON.stringify(next.options) !== JSON.stringify(current.options) ||
      JSON.stringify(next.tags) !== JSON.stringify(current.tags);
    if (!changed && status === current.status) return;
    await updateProductRow(trx, storeId, productId, {
      ...next,
      options: JSON.stringify(next.options),
      updated_at: deps.clock.now(),
    });
    if (next.handle !== current.handle)
      await takeHandle(trx, storeId, productId, next.handle, current.handle);
    await refreshSmartMembership(trx, storeId, { productIds: [productId] });
    await recordVisibilityChange(trx, storeId, productId, current.status, status, changed);
  });
}

export async function deleteProduct(
  deps: Pick<CatalogDeps, 'db'>,
  storeId: string,
  productId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await lockExistingProduct(trx, storeId, productId);
    await deleteProductRow(trx, storeId, productId);
    if (isVisible(current.status)) {
      await recordEvent(trx, {
        storeId,
        type: 'product.deleted',
        resource: `product:${productId}`,
        data: { productId, reason: 'deleted' } satisfies EmittedData<typeof ProductDeletedData>,
      });
    }
  });
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
  deps: Pick<CatalogDeps, 'db' | 'clock'>,
  storeId: string,
  productId: string,
  input: VariantInput,
): Promise<AdminVariant> {
  const errors: FieldError[] = [];
  checkVariant(input, '', errors);
  if (errors.length > 0) throw validationFailed('The variant is invalid.', errors);
  const sku = input.sku?.trim() || null;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const product = await lockExistingProduct(trx, storeId, productId);
      const optionErrors: FieldError[] = [];
      const made = optionsAndLabel(product.options, input, '', optionErrors);
      if (optionErrors.length > 0) throw validationFailed('The variant is invalid.', optionErrors);
      if (sku) await assertSkusFree(trx, storeId, [{ sku, pointer: '/sku' }]);
      const last = await variantCountAndLastPosition(trx, storeId, productId);
      if (last.count >= MAX_VARIANTS) {
        throw new AppError('limit_reached', 409, `A product can have at most ${MAX_VARIANTS} variants.`);
      }
      const now = deps.clock.now();
      const row = await insertVariant(trx, {
        store_id: storeId,
        product_id: productId,
        position: last.lastPosition === null ? 0 : last.lastPosition + 1,
        sku,
        label: made.label,
        options: JSON.stringify(made.options),
        price_amount: input.priceAmount,
        compare_at_amount: input.compareAtAmount ?? null,
        on_hand: input.onHand,
        weight_grams: input.weightGrams ?? null,
        requires_shipping: input.requiresShipping ?? true,
        created_at: now,
        updated_at: now,
      });
      await refreshCardPrice(trx, storeId, productId);
      await refreshSmartMembership(trx, storeId, { productIds: [productId] });
      await recordVisibilityChange(trx, storeId, productId, product.status, product.status, true);
      return toAdminVariant(row);
    });
  } catch (error) {
    if (isUniqueViolation(error, 'variants_options_idx')) throw combinationTaken('/options');
    if (isUniqueViolation(error) && sku) throw skuTaken(sku, '/sku');
    throw error;
  }
}

/**
 * Changes a variant. Emits product.updated when the product is visible and a field changed, and
 * inventory.updated whenever the variant's sellable stock changed.
 */
export async function updateVariant(
  deps: Pick<CatalogDeps, 'db' | 'clock'>,
  storeId: string,
  variantId: string,
  patch: VariantPatch,
): Promise<AdminVariant> {
  const errors: FieldError[] = [];
  checkVariant(patch, '', errors);
  if (errors.length > 0) throw validationFailed('The variant change is invalid.', errors);
  const sku = patch.sku === undefined ? undefined : patch.sku?.trim() || null;
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const found = await findExistingVariant(trx, storeId, variantId);
      const product = await lockExistingProduct(trx, storeId, found.product_id);
      const current = await lockVariant(trx, storeId, variantId);
      if (!current) throw noVariant();
      if (sku) await assertSkusFree(trx, storeId, [{ sku, pointer: '/sku' }], variantId);
      // New option values: checked against the product's; the label follows them unless given.
      let options: { options: Record<string, string>; label: string } | undefined;
      if (patch.options !== undefined) {
        const optionErrors: FieldError[] = [];
        options = optionsAndLabel(product.options, patch, '', optionErrors);
        if (optionErrors.length > 0) throw validationFailed('The variant change is invalid.', optionErrors);
      }
      const now = deps.clock.now();
      const row = await updateVariantRow(trx, storeId, variantId, {
        updated_at: now,
        ...(sku !== undefined ? { sku } : {}),
        ...(options ? { options: JSON.stringify(options.options), label: options.label } : {}),
        ...(patch.label !== undefined ? { label: patch.label.trim() } : {}),
        ...(patch.priceAmount !== undefined ? { price_amount: patch.priceAmount } : {}),
        ...(patch.compareAtAmount !== undefined ? { compare_at_amount: patch.compareAtAmount } : {}),
        ...(patch.weightGrams !== undefined ? { weight_grams: patch.weightGrams } : {}),
        ...(patch.requiresShipping !== undefined ? { requires_shipping: patch.requiresShipping } : {}),
      });
      const fieldsChanged =
        row.sku !== current.sku ||
        row.label !== current.label ||
        combinationKey(row.options) !== combinationKey(current.options) ||
        row.price_amount !== current.price_amount ||
        row.compare_at_amount !== current.compare_at_amount ||
        row.weight_grams !== current.weight_grams ||
        row.requires_shipping !== current.requires_shipping;
      const stockChanged =
        patch.onHand !== undefined &&
        available({ on_hand: patch.onHand, reserved: current.reserved }) !== available(current);
      if (row.price_amount !== current.price_amount) {
        await refreshCardPrice(trx, storeId, product.id);
        await refreshSmartMembership(trx, storeId, { productIds: [product.id] });
      } else if (row.compare_at_amount !== current.compare_at_amount) {
        // The card's compare-at (D46) may be this variant's.
        await refreshCardPrice(trx, storeId, product.id);
      }
      if (fieldsChanged || stockChanged) {
        await recordVisibilityChange(trx, storeId, product.id, product.status, product.status, true);
      }
      // Stock goes through the inventory module: 409 stock_reserved below what pending orders hold,
      // inventory.updated when the sellable count changed.
      const stocked =
        patch.onHand === undefined ? row : await setOnHand(trx, storeId, variantId, patch.onHand, now);
      return toAdminVariant(stocked ?? row);
    });
  } catch (error) {
    if (isUniqueViolation(error, 'variants_options_idx')) throw combinationTaken('/options');
    if (isUniqueViolation(error) && sku) throw skuTaken(sku, '/sku');
    throw error;
  }
}

export async function deleteVariant(
  deps: Pick<CatalogDeps, 'db'>,
  storeId: string,
  variantId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const found = await findExistingVariant(trx, storeId, variantId);
    const product = await lockExistingProduct(trx, storeId, found.product_id);
    if (product.status === 'active') {
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
    await refreshSmartMembership(trx, storeId, { productIds: [product.id] });
    await recordVisibilityChange(trx, storeId, product.id, product.status, product.status, true);
  });
}

/** How many products the store has, in any status. */
export function productCount(deps: { db: Kysely<Database> }, storeId: string): Promise<number> {
  return countProducts(deps.db, storeId);
}

/**
 * Brings the planner's statistics up to date after bulk imports (decision
 * `analyze-after-bulk-import`): until then a large store's list pages can be planned as a sort of
 * all its products.
 */
export function refreshProductStatistics(deps: { db: Kysely<Database> }): Promise<void> {
  return analyzeProducts(deps.db);
}

export interface BulkProduct {
  title: string;
  description: string;
  image: string | null;
  tags: string[];
  createdAt: Date;
  variants: { label: string; sku: string; priceAmount: number; onHand: number }[];
}

/**
 * Inserts active products with their variants, one statement per table, in one transaction,
 * without events (the bench seed: a benchmark store is not a merchant's, and its catalog is far
 * too large for one event per product). Card prices are the lowest variant price, as always. Ids
 * are version 7 UUIDs of the product's creation time (the variants' of their product's), so the
 * indexes on them grow at one end (decision `bulk-import`).
 */
export async function importProducts(
  deps: { db: Kysely<Database> },
  storeId: string,
  products: readonly BulkProduct[],
): Promise<void> {
  const rows = products.map((product) => ({
    product,
    id: uuidV7(product.createdAt.getTime()),
  }));
  await deps.db.transaction().execute(async (trx) => {
    await insertBulkProducts(
      trx,
      rows.map(({ product, id }) => ({
        store_id: storeId,
        id,
        title: product.title,
        description: product.description,
        status: 'active' as const,
        image: product.image,
        tags: product.tags,
        price_amount: Math.min(...product.variants.map((v) => v.priceAmount)),
        created_at: product.createdAt,
      })),
    );
    await insertBulkVariants(
      trx,
      rows.flatMap(({ product, id }) =>
        product.variants.map((variant, position) => ({
          store_id: storeId,
          id: uuidV7(product.createdAt.getTime()),
          product_id: id,
          position,
          sku: variant.sku,
          label: variant.label,
          price_amount: variant.priceAmount,
          compare_at_amount: null,
          on_hand: variant.onHand,
        })),
      ),
    );
  });
}
