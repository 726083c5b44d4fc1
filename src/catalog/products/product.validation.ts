import { AppError, validationFailed, type FieldError } from '../../lib/errors.ts';
import type { ProductInput, ProductPatch, VariantInput } from '../catalog.schemas.ts';
import type { ProductOption } from '../catalog.tables.ts';
import type { CheckedImage } from '../media/product-images.ts';
import { combinationKey, normalizeOptions } from '../variants/options.ts';
import {
  checkVariant,
  MAX_VARIANTS,
  notAnImageOfTheProduct,
  optionsAndLabel,
  SHIPPED_GIFT_CARD,
} from '../variants/variant.validation.ts';

/**
 * A product input checked, on plain data: the values as stored, or 400 `validation_failed` with
 * every field error. Checks needing the database (images are media of the store, SKUs free) are
 * the services'; their images' errors are given in, so the problem lists them in the same place.
 */

export const MAX_TAGS = 50;

export const imageWithImages: FieldError = {
  pointer: '/image',
  detail: 'must be left out when images are given: the card image is the first of them',
};

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

/** An SEO field as stored: trimmed, blank is none; undefined leaves it as it is. */
export const seoField = (value: string | null | undefined): string | null | undefined =>
  value === undefined ? undefined : value?.trim() || null;

/** The card's compare-at: the cheapest variant's (the first of equal ones) when higher than its price. */
function cardCompareAt(variants: readonly VariantInput[]): number | null {
  let cheapest: VariantInput | undefined;
  for (const variant of variants)
    if (!cheapest || variant.priceAmount < cheapest.priceAmount) cheapest = variant;
  const compareAt = cheapest?.compareAtAmount ?? null;
  return cheapest && compareAt !== null && compareAt > cheapest.priceAmount ? compareAt : null;
}

/** A new product as stored, checked. */
export interface CheckedProduct {
  title: string;
  description: string;
  image: string | null;
  tags: string[];
  options: ProductOption[];
  priceAmount: number | null;
  compareAtAmount: number | null;
  seoTitle: string | null;
  seoDescription: string | null;
  /** Its variants' options and label (as `optionsAndLabel` made them), in order. */
  variants: { options: Record<string, string>; label: string }[];
  /** Its variants' SKUs, trimmed, with the pointer of each. */
  skus: { sku: string; pointer: string }[];
}

/**
 * A new product (with its variants) checked: 400 listing every error, in the order of the fields.
 * `images` is the `images` list checked against the store's media, `imageErrors` what that found.
 */
export function checkNewProduct(
  input: ProductInput,
  images: readonly CheckedImage[] | undefined,
  imageErrors: readonly FieldError[],
  storeCurrency: string,
): CheckedProduct {
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
  const variants = input.variants.map((variant, i) => {
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
    checkVariant(variant, `/variants/${i}`, errors, storeCurrency);
    if (input.giftCard && variant.requiresShipping === true)
      errors.push({ pointer: `/variants/${i}/requiresShipping`, detail: SHIPPED_GIFT_CARD });
    const sku = variant.sku?.trim();
    if (sku) {
      if (skus.some((s) => s.sku === sku))
        errors.push({ pointer: `/variants/${i}/sku`, detail: 'is repeated in this product' });
      skus.push({ sku, pointer: `/variants/${i}/sku` });
    }
  });
  errors.push(...imageErrors);
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
  return {
    title: input.title.trim(),
    description: input.description ?? '',
    image: images ? (images[0]?.url ?? null) : (input.image ?? null),
    tags,
    options,
    priceAmount: input.variants.length > 0 ? Math.min(...input.variants.map((v) => v.priceAmount)) : null,
    compareAtAmount: cardCompareAt(input.variants),
    seoTitle: seoField(input.seo?.title) ?? null,
    seoDescription: seoField(input.seo?.description) ?? null,
    variants,
    skus,
  };
}

/** A product change checked: its tags and options as stored (undefined: unchanged), or 400. */
export function checkProductPatch(
  patch: ProductPatch,
  images: readonly CheckedImage[] | undefined,
  imageErrors: readonly FieldError[],
): { tags: string[] | undefined; options: ProductOption[] | undefined } {
  const errors: FieldError[] = [...checkImage(patch.image)];
  const tags = normalizeTags(patch.tags, errors);
  if (patch.title !== undefined && patch.title.trim() === '')
    errors.push({ pointer: '/title', detail: 'must not be blank' });
  const options = normalizeOptions(patch.options, errors);
  errors.push(...imageErrors);
  if (images !== undefined && patch.image) errors.push(imageWithImages);
  if (errors.length > 0) throw validationFailed('The product change is invalid.', errors);
  return { tags, options };
}

export const handleTaken = (handle: string): AppError =>
  new AppError('handle_unavailable', 409, `Another product of this store has the handle "${handle}".`, {
    errors: [{ pointer: '/handle', detail: 'is already used by another product of this store' }],
  });
