import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type {
  AdminProduct,
  AdminVariant,
  ProductInput,
  ProductPatch,
  VariantPatch,
} from '../catalog/catalog.schemas.ts';
import {
  addVariant,
  checkProductInput,
  insertNewProduct,
  getProduct,
  productIdsOfHandles,
  skusInUse,
  updateProduct,
  updateVariant,
} from '../catalog/products/products.service.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { Database } from '../db/tables.ts';
import { AppError, type FieldError } from '../lib/errors.ts';
import { currencyDigits } from '../markets/currencies.ts';
import { listMarkets } from '../markets/markets.service.ts';
import { listTaxClasses } from '../pricing/tax-classes.service.ts';
import { storeCurrency } from '../stores/stores.service.ts';
import type { ImageSource } from './image-source.ts';
import type { ImportSummary, RowError } from './imports.tables.ts';
import { COLUMNS, type ProductContext } from './shopify-columns.ts';
import type { ImportedProduct, ImportedVariant } from './shopify-products.ts';

/**
 * Products from Shopify's CSV into the catalog (decision `csv-imports`): checked as a whole before
 * anything is written, then applied product by product through the catalog's own services (the
 * same checks, events and card prices as the Admin API), by handle: a new handle is created, a
 * known one brought to what the file says. Variants are matched by SKU, else by their option
 * values (their label without options); a variant the file does not name is left as it is. A
 * product that already is what the file says is not written at all, so running a file again
 * changes nothing and records no event.
 */

export type ProductDeps = Pick<ServiceDeps, 'db' | 'clock'>;

/** What the file's products are read against: the store's currency, tax classes and markets. */
export async function productContext(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
): Promise<ProductContext> {
  const currency = await storeCurrency(deps, storeId);
  const classes = new Set((await listTaxClasses(deps, storeId)).map((taxClass) => taxClass.code));
  const markets = await listMarkets(deps, storeId);
  const byName = new Map<string, string>();
  for (const market of markets) {
    byName.set(market.name.toLowerCase(), market.currency);
    byName.set(market.currency.toLowerCase(), market.currency);
  }
  return {
    currency,
    digits: currencyDigits(currency) ?? 2,
    taxClasses: classes,
    currencyOf(suffix) {
      const found = byName.get(suffix.toLowerCase());
      const digits = found === undefined ? undefined : currencyDigits(found);
      return found === undefined || digits === undefined ? undefined : { currency: found, digits };
    },
  };
}

/**
 * The checks that need the store, for a batch of products read from the file: a SKU that another
 * product of the store uses (a product of another handle) is refused at its row; each product is
 * checked as the Admin API checks a new product.
 */
export async function checkProducts(
  db: Kysely<Database>,
  storeId: string,
  currency: string,
  products: readonly ImportedProduct[],
  errors: RowError[],
): Promise<void> {
  const skus = products.flatMap((product) =>
    product.variants.flatMap((variant) => (variant.sku ? [{ sku: variant.sku, product, variant }] : [])),
  );
  const taken = await skusInUse(
    { db },
    storeId,
    skus.map((entry) => entry.sku),
  );
  for (const { sku, product, variant } of skus) {
    const owner = taken.get(sku);
    if (owner !== undefined && owner !== product.handle)
      errors.push({ row: variant.row, column: COLUMNS.sku, detail: `is used by the product ${owner}` });
  }
  for (const product of products) {
    const mediaIds = new Map((product.images ?? []).map((image) => [image.src, randomUUID()]));
    const input = productInput(product, mediaIds);
    try {
      checkProductInput(input, currency);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      errors.push(...rowErrors(error, product));
    }
  }
}

/** Applies one product; returns what it did, or its row errors (nothing of it written then). */
export async function applyProduct(
  deps: ProductDeps,
  storeId: string,
  product: ImportedProduct,
  images: ImageSource,
): Promise<{ outcome: keyof ImportSummary; warnings: RowError[] } | { errors: RowError[] }> {
  try {
    // An image that cannot be had is left out (and said): the product comes in without it.
    const { ids, failed } = await images.mediaIds(product);
    if (failed.length > 0) product = withoutImages(product, ids);
    const warnings = failed;
    const [id] = (await productIdsOfHandles(deps, storeId, [product.handle])).values();
    if (id === undefined) {
      await insertNewProduct(deps, storeId, productInput(product, ids));
      return { outcome: 'created', warnings };
    }
    const changed = await bringUpToDate(deps, storeId, await getProduct(deps, storeId, id), product, ids);
    return { outcome: changed ? 'updated' : 'unchanged', warnings };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { errors: rowErrors(error, product) };
    throw error;
  }
}

function withoutImages(product: ImportedProduct, ids: ReadonlyMap<string, string>): ImportedProduct {
  return {
    ...product,
    images: product.images?.filter((image) => ids.has(image.src)),
    variants: product.variants.map((variant) =>
      variant.image && !ids.has(variant.image) ? { ...variant, image: null } : variant,
    ),
  };
}

/** The Admin API's input for a new product as the file describes it. */
export function productInput(product: ImportedProduct, mediaIds: ReadonlyMap<string, string>): ProductInput {
  return {
    title: product.title,
    handle: product.handle,
    status: product.status ?? 'active',
    ...(product.description !== undefined ? { description: product.description } : {}),
    ...(product.tags !== undefined ? { tags: product.tags } : {}),
    ...(product.seo !== undefined ? { seo: product.seo } : {}),
    ...(product.taxClass !== undefined ? { taxClass: product.taxClass } : {}),
    ...(product.giftCard !== undefined ? { giftCard: product.giftCard } : {}),
    ...(product.options.length > 0 ? { options: product.options } : {}),
    ...(product.images !== undefined
      ? { images: product.images.map((image) => ({ mediaId: mediaIds.get(image.src)!, alt: image.alt })) }
      : {}),
    variants: product.variants.map((variant) => ({
      sku: variant.sku,
      label: variant.label,
      ...(product.options.length > 0 ? { options: variant.options } : {}),
      priceAmount: variant.priceAmount,
      compareAtAmount: variant.compareAtAmount,
      onHand: variant.onHand ?? 0,
      ...(variant.weightGrams !== undefined ? { weightGrams: variant.weightGrams } : {}),
      ...(variant.requiresShipping !== undefined ? { requiresShipping: variant.requiresShipping } : {}),
      ...(variant.taxClass !== undefined ? { taxClass: variant.taxClass } : {}),
      ...(variant.image ? { imageId: mediaIds.get(variant.image)! } : {}),
      ...(variant.prices !== undefined ? { prices: variant.prices } : {}),
    })),
  };
}

/**
 * Changes a product to what the file says, field by field, leaving alone what is already so; the
 * product's fields first, then its variants, then its status (an active product needs a variant).
 */
async function bringUpToDate(
  deps: ProductDeps,
  storeId: string,
  current: AdminProduct,
  product: ImportedProduct,
  mediaIds: ReadonlyMap<string, string>,
): Promise<boolean> {
  const wanted = productInput(product, mediaIds);
  const patch: ProductPatch = {};
  if (wanted.title !== current.title) patch.title = wanted.title;
  if (wanted.description !== undefined && wanted.description !== current.description)
    patch.description = wanted.description;
  if (wanted.tags !== undefined && !same(wanted.tags, current.tags)) patch.tags = wanted.tags;
  if (wanted.seo !== undefined && !same(wanted.seo, current.seo)) patch.seo = wanted.seo;
  if (wanted.taxClass !== undefined && wanted.taxClass !== current.taxClass) patch.taxClass = wanted.taxClass;
  if (wanted.giftCard !== undefined && wanted.giftCard !== current.giftCard) patch.giftCard = wanted.giftCard;
  const options = wanted.options ?? [];
  if (!same(options, current.options) && (options.length > 0 || current.options.length > 0))
    patch.options = options;
  const images = wanted.images?.map((image) => ({ mediaId: image.mediaId, alt: image.alt ?? null }));
  if (
    images !== undefined &&
    !same(
      images,
      current.images.map((image) => ({ mediaId: image.id, alt: image.alt })),
    )
  )
    patch.images = images;
  let changed = false;
  if (Object.keys(patch).length > 0) {
    current = await updateProduct(deps, storeId, current.id, patch);
    changed = true;
  }
  const live = current.variants.filter((variant) => !variant.archived);
  const claimed = new Set<string>();
  for (const [i, variant] of product.variants.entries()) {
    const input = wanted.variants[i]!;
    const match = matchVariant(current, live, variant, claimed);
    if (!match) {
      await addVariant(deps, storeId, current.id, input);
      changed = true;
      continue;
    }
    claimed.add(match.id);
    const change = variantPatch(match, variant, input);
    if (Object.keys(change).length > 0) {
      await updateVariant(deps, storeId, match.id, change);
      changed = true;
    }
  }
  if (product.status !== undefined && product.status !== current.status) {
    await updateProduct(deps, storeId, current.id, { status: product.status });
    changed = true;
  }
  return changed;
}

/** The live variant a row names: by SKU, else by its option values (its label without options). */
function matchVariant(
  current: AdminProduct,
  live: readonly AdminVariant[],
  variant: ImportedVariant,
  claimed: ReadonlySet<string>,
): AdminVariant | undefined {
  const free = live.filter((candidate) => !claimed.has(candidate.id));
  if (variant.sku) {
    const bySku = free.find((candidate) => candidate.sku === variant.sku);
    if (bySku) return bySku;
  }
  return free.find((candidate) =>
    current.options.length === 0
      ? candidate.label === variant.label
      : same(candidate.options, variant.options),
  );
}

function variantPatch(
  current: AdminVariant,
  variant: ImportedVariant,
  input: ProductInput['variants'][number],
) {
  const patch: VariantPatch = {};
  if (variant.sku !== current.sku) patch.sku = variant.sku;
  if (variant.label !== current.label) patch.label = variant.label;
  if (input.options !== undefined && !same(input.options, current.options)) patch.options = input.options;
  if (variant.priceAmount !== current.priceAmount) patch.priceAmount = variant.priceAmount;
  if (variant.compareAtAmount !== current.compareAtAmount) patch.compareAtAmount = variant.compareAtAmount;
  if (variant.onHand !== undefined && variant.onHand !== current.onHand) patch.onHand = variant.onHand;
  if (variant.weightGrams !== undefined && variant.weightGrams !== current.weightGrams)
    patch.weightGrams = variant.weightGrams;
  if (variant.requiresShipping !== undefined && variant.requiresShipping !== current.requiresShipping)
    patch.requiresShipping = variant.requiresShipping;
  if (variant.taxClass !== undefined && variant.taxClass !== current.taxClass)
    patch.taxClass = variant.taxClass;
  const imageId = variant.image === undefined ? undefined : (input.imageId ?? null);
  if (imageId !== undefined && imageId !== current.imageId) patch.imageId = imageId;
  if (
    variant.prices !== undefined &&
    !same(
      variant.prices,
      current.prices.map((price) => ({
        currency: price.currency,
        amount: price.amount,
        compareAtAmount: price.compareAtAmount,
      })),
    )
  )
    patch.prices = variant.prices;
  return patch;
}

/** Structural equality of plain data (key order aside). */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sorted(v)]),
    );
  return value;
}

/** Where in the file a refusal of the Admin API's points: a variant's row, else the product's first. */
function rowErrors(error: AppError, product: ImportedProduct): RowError[] {
  const fields: FieldError[] = error.errors?.length ? error.errors : [{ pointer: '', detail: error.detail }];
  return fields.map((field) => {
    const variant = /^\/variants\/(\d+)(\/\w+)?/.exec(field.pointer);
    const row = variant ? (product.variants[Number(variant[1])]?.row ?? product.row) : product.row;
    const column =
      COLUMN_OF_POINTER[
        variant ? `/variants${variant[2] ?? ''}` : field.pointer.split('/').slice(0, 2).join('/')
      ];
    return {
      row,
      column: column ?? null,
      detail: column ? field.detail : `${field.pointer || 'the product'} ${field.detail}`.trim(),
    };
  });
}

const COLUMN_OF_POINTER: Record<string, string> = {
  '/title': COLUMNS.title,
  '/description': COLUMNS.body,
  '/tags': COLUMNS.tags,
  '/handle': COLUMNS.handle,
  '/status': COLUMNS.status,
  '/taxClass': COLUMNS.taxClass,
  '/giftCard': COLUMNS.giftCard,
  '/images': COLUMNS.imageSrc,
  '/options': COLUMNS.optionName(1),
  '/variants/sku': COLUMNS.sku,
  '/variants/label': COLUMNS.label,
  '/variants/priceAmount': COLUMNS.price,
  '/variants/compareAtAmount': COLUMNS.compareAt,
  '/variants/onHand': COLUMNS.inventory,
  '/variants/weightGrams': COLUMNS.grams,
  '/variants/requiresShipping': COLUMNS.requiresShipping,
  '/variants/taxClass': COLUMNS.taxCode,
  '/variants/imageId': COLUMNS.variantImage,
};
