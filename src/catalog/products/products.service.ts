import type { Kysely } from 'kysely';
import { byCreated, keysetPage } from '../../db/keyset.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.ts';
import type { ServiceDeps } from '../../db/service-deps.ts';
import type { Database } from '../../db/tables.ts';
import type { EmittedData } from '../../events/events.schemas.ts';
import { recordEvent } from '../../events/events.ts';
import type { ListPage } from '../../lib/cursors.ts';
import { validationFailed, type AppError, type FieldError } from '../../lib/errors.ts';
import { uuidV7 } from '../../lib/uuid.ts';
import { listTaxClasses, STANDARD_TAX_CLASS } from '../../pricing/tax-classes.service.ts';
import { storeCurrency } from '../../stores/stores.service.ts';
import { lockMarketsShared, pricesOf, refreshCardsInMarkets, setVariantPrices } from '../prices/prices.ts';

/** The catalog's card prices in a market, recomputed (the composition hands it to markets: decision `market-cards`). */
export { refreshMarketCards } from '../prices/prices.ts';
import type { ProductDeletedData } from '../catalog.events.ts';
import {
  LOW_STOCK_THRESHOLD,
  type AdminProduct,
  type AdminProductsQuery,
  type ProductInput,
  type ProductPatch,
  type ProductStockFilter,
} from '../catalog.schemas.ts';
import type { ProductOption, ProductRow } from '../catalog.tables.ts';
import { productChanged } from '../collections/smart-membership.ts';
import {
  checkImages,
  imageLinks,
  replaceProductImages,
  sameImages,
  type CheckedImage,
} from '../media/product-images.ts';
import {
  assertSkusFree,
  fitOptions,
  insertBulkVariants,
  insertVariants,
  newVariant,
  stopShipping,
} from '../variants/product-variants.ts';
import { isVisible, lockExistingProduct, noProduct, recordVisibilityChange } from './product-changes.ts';
import { toAdminProducts } from './admin-products.ts';
import { checkNewProduct, checkProductPatch, handleTaken, seoField } from './product.validation.ts';
import { skuTaken, unknownTaxClass } from '../variants/variant.validation.ts';
import {
  analyzeProducts,
  countProducts,
  deleteProductRow,
  existingProductIds as productIdsAmong,
  findProduct,
  giftCardProductIds,
  insertBulkProducts,
  insertProduct,
  productsInOrder,
  productIdsByHandle,
  productsQuery,
  takeHandle,
  updateProductRow,
  type StockBounds,
} from './products.repository.ts';

/**
 * The admin's use cases on products (list, read, create, change, delete, the bench's bulk import):
 * each checks its input (product.validation.ts), owns its transaction and records its events.
 * Variants have their own (variants/variants.service.ts); the storefront reads product-cards.service.ts.
 */

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
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
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
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  productId: string,
): Promise<AdminProduct> {
  const row = await findProduct(deps.db, storeId, productId);
  if (!row) throw noProduct();
  return (await toAdminProducts(deps, storeId, [row]))[0]!;
}

/**
 * Creates a product with its variants. A product becomes visible (product.created) only when it
 * is active, and an active product needs at least one variant (decision `card-price`).
 */
export async function createProduct(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  input: ProductInput,
): Promise<AdminProduct> {
  return getProduct(deps, storeId, await insertNewProduct(deps, storeId, input));
}

/** `createProduct` without reading the product back: its id (an import's, which needs no more). */
export async function insertNewProduct(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  input: ProductInput,
  attempt = 1,
): Promise<string> {
  const imageErrors: FieldError[] = [];
  const images = await checkImages(deps.db, storeId, input.images, imageErrors);
  const currency = await storeCurrency(deps, storeId);
  const { variants, skus, ...product } = checkNewProduct(input, images, imageErrors, currency);
  const now = deps.clock.now();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      // First: the markets this product is priced in stay as they are until it commits.
      await lockMarketsShared(trx, storeId);
      await assertSkusFree(trx, storeId, skus);
      const row = await insertProduct(trx, {
        ...product,
        storeId,
        status: input.status,
        handle: input.handle,
        taxClass: input.taxClass ?? null,
        giftCard: input.giftCard ?? false,
        now,
      });
      if (input.handle !== undefined) await takeHandle(trx, storeId, row.id, row.handle, null);
      if (images?.length) await replaceProductImages(trx, storeId, row.id, images);
      if (variants.length > 0) {
        const ids = await insertVariants(
          trx,
          { storeId, productId: row.id, now },
          input.variants.map((variant, i) => newVariant(variant, variants[i]!, input.giftCard)),
        );
        for (const [i, variant] of input.variants.entries())
          if (variant.prices?.length) await setVariantPrices(trx, storeId, ids[i]!, pricesOf(variant.prices));
      }
      await refreshCardsInMarkets(trx, storeId, [row.id]);
      await productChanged(trx, storeId, row.id);
      await recordVisibilityChange(trx, storeId, row.id, 'draft', input.status, false);
      return row.id;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'products_handle_idx')) {
      // Made from the title while another product of that title was being created: once more.
      if (input.handle === undefined && attempt < 3)
        return insertNewProduct(deps, storeId, input, attempt + 1);
      throw handleTaken(input.handle ?? '');
    }
    if (isUniqueViolation(error)) throw skuTaken(skus[0]?.sku ?? '', skus[0]?.pointer ?? '/variants');
    if (
      isForeignKeyViolation(error, 'products_tax_class_fkey') ||
      isForeignKeyViolation(error, 'variants_tax_class_fkey')
    )
      throw await unknownTaxClasses(deps, storeId, input);
    throw error;
  }
}

/**
 * The database refused a class of a new product or of one of its variants (decision
 * `tax-classes`), and rolled everything back: 400 at every field that names a class the store does
 * not have (at every field that names one, should a class have been made since).
 */
async function unknownTaxClasses(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  input: ProductInput,
): Promise<AppError> {
  const named = [
    { pointer: '/taxClass', code: input.taxClass },
    ...input.variants.map((variant, i) => ({ pointer: `/variants/${i}/taxClass`, code: variant.taxClass })),
  ].filter((field): field is { pointer: string; code: string } => typeof field.code === 'string');
  const known = new Set((await listTaxClasses(deps, storeId)).map((taxClass) => taxClass.code));
  const unknown = named.filter((field) => !known.has(field.code));
  return unknownTaxClass((unknown.length > 0 ? unknown : named).map((field) => field.pointer));
}

export async function updateProduct(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  productId: string,
  patch: ProductPatch,
): Promise<AdminProduct> {
  const imageErrors: FieldError[] = [];
  const images = await checkImages(deps.db, storeId, patch.images, imageErrors);
  const { tags, options } = checkProductPatch(patch, images, imageErrors);
  try {
    await changeProduct(deps, storeId, productId, patch, tags, options, images);
  } catch (error) {
    if (isUniqueViolation(error, 'products_handle_idx')) throw handleTaken(patch.handle ?? '');
    if (isForeignKeyViolation(error, 'products_tax_class_fkey')) throw unknownTaxClass(['/taxClass']);
    throw error;
  }
  return getProduct(deps, storeId, productId);
}

async function changeProduct(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  storeId: string,
  productId: string,
  patch: ProductPatch,
  tags: string[] | undefined,
  options: ProductOption[] | undefined,
  images: CheckedImage[] | undefined,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const current = await lockExistingProduct(trx, storeId, productId);
    // With images (decision `media-uploads`), the card image is the first one's: `image` is the server's to set.
    let image = patch.image !== undefined ? patch.image : current.image;
    let imagesChanged = false;
    if (images !== undefined || patch.image !== undefined) {
      const had = await imageLinks(trx, storeId, productId);
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
      tax_class: patch.taxClass ?? current.tax_class,
      gift_card: patch.giftCard ?? current.gift_card,
    };
    // Decision `gift-card-products`: a product that becomes a gift card ships none of its variants.
    const now = deps.clock.now();
    const unshipped =
      next.gift_card && !current.gift_card && (await stopShipping(trx, storeId, productId, now));
    const changed =
      imagesChanged ||
      archived ||
      unshipped ||
      next.gift_card !== current.gift_card ||
      next.title !== current.title ||
      next.description !== current.description ||
      next.image !== current.image ||
      next.handle !== current.handle ||
      next.seo_title !== current.seo_title ||
      next.seo_description !== current.seo_description ||
      (next.tax_class ?? STANDARD_TAX_CLASS) !== (current.tax_class ?? STANDARD_TAX_CLASS) ||
      JSON.stringify(next.options) !== JSON.stringify(current.options) ||
      JSON.stringify(next.tags) !== JSON.stringify(current.tags);
    if (!changed && status === current.status) return;
    await updateProductRow(trx, storeId, productId, {
      ...next,
      options: JSON.stringify(next.options),
      updated_at: now,
    });
    if (next.handle !== current.handle)
      await takeHandle(trx, storeId, productId, next.handle, current.handle);
    if (imagesChanged) await replaceProductImages(trx, storeId, productId, images!);
    await productChanged(trx, storeId, productId);
    await recordVisibilityChange(trx, storeId, productId, current.status, status, changed);
  });
}

export async function deleteProduct(
  deps: Pick<ServiceDeps, 'db'>,
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

/** The ids among `productIds` that are products of the store. */
export function existingProductIds(
  deps: { db: Kysely<Database> },
  storeId: string,
  productIds: readonly string[],
): Promise<string[]> {
  return productIdsAmong(deps.db, storeId, productIds);
}

/**
 * Which of `productIds` sell gift cards now (decision `gift-card-products`): what a paid order's
 * lines issue. `deps.db` may be a transaction. A product deleted since sells nothing.
 */
export async function giftCardProducts(
  deps: { db: Kysely<Database> },
  storeId: string,
  productIds: readonly string[],
): Promise<Set<string>> {
  if (productIds.length === 0) return new Set();
  return new Set(await giftCardProductIds(deps.db, storeId, [...new Set(productIds)]));
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
    await lockMarketsShared(trx, storeId);
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
    await refreshCardsInMarkets(
      trx,
      storeId,
      rows.map(({ id }) => id),
      { history: false },
    );
  });
}

/** The store's products of these handles (any status), by handle: an import's lookup. */
export function productIdsOfHandles(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  handles: readonly string[],
): Promise<Map<string, string>> {
  return productIdsByHandle(deps.db, storeId, handles);
}

/**
 * The variants' use cases, for other parts (an import adds and changes variants as the Admin API
 * does): the catalog's face for them is this file (decision `catalog-sub-parts`).
 */
export { addVariant, skusInUse, updateVariant, variantsOfSkus } from '../variants/variants.service.ts';

/**
 * Checks a new product as `createProduct` does, without the database: every field error, thrown as
 * one 400 (an import's dry run). Its images are taken to be the store's media, as given.
 */
export function checkProductInput(input: ProductInput, currency: string): void {
  const images = input.images?.map((image) => ({ mediaId: image.mediaId, alt: image.alt ?? null, url: '' }));
  checkNewProduct(input, images, [], currency);
}
