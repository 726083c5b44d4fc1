import type { EmittedData } from '../events/events.schemas.ts';
import type { ProductCreatedData, ProductDeletedData, ProductUpdatedData } from './catalog.events.ts';
import type { Kysely, Transaction } from 'kysely';
import { byCreated, keysetPage } from '../db/keyset.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { ListPage } from '../lib/cursors.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import { uuidV7 } from '../lib/uuid.ts';
import {
  LOW_STOCK_THRESHOLD,
  type AdminProduct,
  type AdminProductsQuery,
  type AdminVariant,
  type ProductInput,
  type ProductPatch,
  type ProductStockFilter,
  type VariantInput,
  type VariantPatch,
} from './catalog.schemas.ts';
import { storeCurrency, type CatalogDeps } from './catalog.service.ts';
import type { ProductOption, ProductRow, ProductStatus, VariantRow } from './catalog.tables.ts';
import { combinationKey, labelOf, normalizeOptions, variantOptions } from './options.ts';
import { checkImages, productImages, sameImages, type CheckedImage } from './product-images.ts';
import { refreshSmartMembership } from './collections.repository.ts';
import { available, setOnHand } from './inventory.ts';
import {
  analyzeProducts,
  deleteProductRow,
  deleteVariantRow,
  findProduct,
  imagesOfProducts,
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
  productsInOrder,
  productsQuery,
  refreshCardPrice,
  replaceProductImages,
  takeHandle,
  updateProductRow,
  updateVariantRow,
  variantCountAndLastPosition,
  variantIdsOfProduct,
  variantsOfProduct,
  variantsOfProducts,
  type StockBounds,
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
    imageId: row.image_id,
    archived: row.archived_at !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const imageWithImages: FieldError = {
  pointer: '/image',
  detail: 'must be left out when images are given: the card image is the first of them',
};
const notAnImageOfTheProduct = 'must be the mediaId of one of the product’s images';

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
  const ids = rows.map((r) => r.id);
  const [variants, currency, images] = await Promise.all([
    variantsOfProducts(deps.db, storeId, ids),
    storeCurrency(deps, storeId),
    productImages(deps.db, storeId, ids),
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
    images: images.get(row.id) ?? [],
    priceAmount: row.price_amount,
    currency,
    variants: byProduct.get(row.id) ?? [],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}

/** The sellable stock each `stock` filter of the admin list asks for. */
const STOCK_BOUNDS: Record<ProductStockFilter, StockBounds> = {
  in_stock: { above: 0 },
  low: { atMost: LOW_STOCK_THRESHOLD },
  out: { atMost: 0 },
};

/**
 * All products of the store (any status, or one): with `q`, those whose title or a variant's SKU
 * contains it; with `collection`, that collection's; with `stock`, those whose sellable stock is in
 * that band. By creation time, oldest first unless `sort` says otherwise. A cursor is bound to its
 * filters, search and sort (its scope): one from another list is 400. The scope of the default
 * order is the one it had before `sort` existed, so cursors handed out earlier stay valid.
 */
export async function listProducts(
  deps: Pick<CatalogDeps, 'db' | 'cursors'>,
  storeId: string,
  query: AdminProductsQuery,
): Promise<ListPage<AdminProduct>> {
  const q = query.q?.trim() || undefined;
  const sort = query.sort ?? 'created_asc';
  const scope = [
    `${storeId}:admin-products:${query.status ?? '*'}`,
    q === undefined ? '' : `:q=${JSON.stringify(q)}`,
    query.collection === undefined ? '' : `:collection=${query.collection}`,
    query.stock === undefined ? '' : `:stock=${query.stock}`,
    sort === 'created_asc' ? '' : `:sort=${sort}`,
  ].join('');
  const filtered = productsQuery(deps.db, storeId, {
    status: query.status,
    q,
    collectionId: query.collection,
    stock: query.stock === undefined ? undefined : STOCK_BOUNDS[query.stock],
  });
  const page: ListPage<ProductRow> =
    sort === 'created_asc' || sort === 'created_desc'
      ? await byCreated(deps.cursors, scope, filtered, query, (row) => row, '', sort === 'created_desc')
      : await keysetPage({
          cursors: deps.cursors,
          scope,
          query: productsInOrder(deps.db, filtered, sort),
          columns: ['sorted.sort_rank', 'sorted.sort_value', 'sorted.id'],
          position: (row) => [row.sort_rank, row.sort_value, row.id],
          page: query,
          toItem: (row): ProductRow => row,
          descending: sort === 'price_desc',
        });
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
  const images = await checkImages(deps.db, storeId, input.images, errors);
  if (images !== undefined) {
    if (input.image) errors.push(imageWithImages);
    const ids = new Set(images.map((image) => image.mediaId));
    input.variants.forEach((variant, i) => {
      if (variant.imageId && !ids.has(variant.imageId))
        errors.push({ pointer: `/variants/${i}/imageId`, detail: notAnImageOfTheProduct });
    });
  } else if (input.variants.some((variant) => variant.imageId)) {
    const i = input.variants.findIndex((variant) => variant.imageId);
    errors.push({ pointer: `/variants/${i}/imageId`, detail: notAnImageOfTheProduct });
  }
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
        image: images ? (images[0]?.url ?? null) : (input.image ?? null),
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
      if (images?.length) await replaceProductImages(trx, storeId, product.id, images);
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
            image_id: variant.imageId ?? null,
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
  const images = await checkImages(deps.db, storeId, patch.images, errors);
  if (images !== undefined && patch.image) errors.push(imageWithImages);
  if (errors.length > 0) throw validationFailed('The product change is invalid.', errors);

  try {
    await changeProduct(deps, storeId, productId, patch, tags, options, images);
  } catch (error) {
    if (isUniqueViolation(error, 'products_handle_idx')) throw handleTaken(patch.handle ?? '');
    throw error;
  }
  return getProduct(deps, storeId, productId);
}

/**
 * New options must still fit every live variant of the product (D46). An option the product did not
 * have gives every live variant its first value (as Shopify does). A variant whose value would be
 * gone (a removed or renamed option or value), or that would share its combination with another, is
 * refused with 409 `option_in_use` naming the variants, or archived with `strandedVariants:
 * "archive"` (never deleted). Archived variants need not fit. An active product keeps one live
 * variant either way. Returns whether any variant changed.
 */
async function fitOptions(
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

/** Whether a variant's values are exactly one of each of the options, from their values. */
function fitsOptions(options: readonly ProductOption[], values: Record<string, string>): boolean {
  const errors: FieldError[] = [];
  const fitted = variantOptions(options, values, '', errors);
  return errors.length === 0 && combinationKey(fitted) === combinationKey(values);
}

async function changeProduct(
  deps: Pick<CatalogDeps, 'db' | 'clock'>,
  storeId: string,
  productId: string,
  patch: ProductPatch,
  tags: string[] | undefined,
  options: ProductOption[] | undefined,
  images: CheckedImage[] | undefined,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await lockExistingProduct(trx, storeId, productId);
    // With images (D47), the card image is the first one's: `image` is the server's to set.
    let image = patch.image !== undefined ? patch.image : current.image;
    let imagesChanged = false;
    if (images !== undefined || patch.image !== undefined) {
      const had = (await imagesOfProducts(trx, storeId, [productId])).map((row) => ({
        mediaId: row.media_id,
        alt: row.alt,
      }));
      if (images !== undefined) {
        imagesChanged = !sameImages(had, images);
        image = images[0]?.url ?? null;
      } else if (had.length > 0) {
        throw validationFailed('The product has images: its card image is the first of them.', [
          {
            pointer: '/image',
            detail: 'must be left out while the product has images: change `images` instead',
          },
        ]);
      }
    }
    const archived =
      options !== undefined &&
      (await fitOptions(
        trx,
        storeId,
        current,
        options,
        patch.strandedVariants ?? 'refuse',
        deps.clock.now(),
      ));
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
      image,
      tags: tags ?? current.tags,
      handle: patch.handle ?? current.handle,
      seo_title: seoTitle === undefined ? current.seo_title : seoTitle,
      seo_description: seoDescription === undefined ? current.seo_description : seoDescription,
      options: options ?? current.options,
    };
    const changed =
      imagesChanged ||
      archived ||
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
    if (imagesChanged) await replaceProductImages(trx, storeId, productId, images!);
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

/** A variant's image is one of its product's (D47): 400 at `/imageId` otherwise. */
async function assertImageOfProduct(
  trx: Transaction<Database>,
  storeId: string,
  productId: string,
  imageId: string,
): Promise<void> {
  const images = await imagesOfProducts(trx, storeId, [productId]);
  if (!images.some((image) => image.media_id === imageId))
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
      if (input.imageId) await assertImageOfProduct(trx, storeId, productId, input.imageId);
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
        image_id: input.imageId ?? null,
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
        archiving;
      const stockChanged =
        patch.onHand !== undefined &&
        available({ on_hand: patch.onHand, reserved: current.reserved }) !== available(current);
      if (row.price_amount !== current.price_amount || archiving) {
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
  deps: Pick<CatalogDeps, 'db'>,
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
        search_skus: product.variants.flatMap((v) => (v.sku ? [v.sku] : [])).join(' '),
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
