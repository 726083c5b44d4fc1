/**
 * The product form's draft as the API's bodies: a new product's, and a saved product's change as
 * the calls `useSaveProduct` makes (only what changed). No React here.
 */
import type {
  AdminProduct,
  AdminVariant,
  ImageInput,
  NewVariantBody,
  ProductSave,
  VariantChangeBody,
} from '../../data/products.ts';
import {
  hasMatrix,
  moved,
  optionsChanged,
  parseTags,
  type ImageDraft,
  type ProductDraft,
  type VariantDraft,
} from './draft.ts';
import { comboValues, optionsBody } from './matrix.ts';

/** What a new product starts from: no handle given (the server makes one), no SEO fields. */
export const UNNAMED = { handle: '', seo: { title: null, description: null } } as const;

/**
 * The handle and SEO fields that differ from `from` (the saved product, or UNNAMED on create), as
 * the API takes them: the handle trimmed, an SEO field trimmed and blank as null (cleared).
 */
export function handleAndSeoChanges(draft: ProductDraft, from: Pick<AdminProduct, 'handle' | 'seo'>) {
  const handle = draft.handle.trim();
  const seo: { title?: string | null; description?: string | null } = {};
  const title = draft.seoTitle.trim() || null;
  const description = draft.seoDescription.trim() || null;
  if (title !== from.seo.title) seo.title = title;
  if (description !== from.seo.description) seo.description = description;
  return {
    ...(handle !== from.handle ? { handle } : {}),
    ...(Object.keys(seo).length > 0 ? { seo } : {}),
  };
}

const skuOf = (variant: VariantDraft): string | null => variant.sku.trim() || null;

type PriceInput = { currency: string; amount: number; compareAtAmount: number | null };
const byCurrency = (a: PriceInput, b: PriceInput) => (a.currency < b.currency ? -1 : 1);

/**
 * A variant's explicit prices in other currencies as the API takes them (decision
 * `market-prices`): those with an amount, in currency order; the list replaces the variant's.
 */
export function pricesBody(variant: VariantDraft): PriceInput[] {
  return Object.entries(variant.prices)
    .flatMap(([currency, price]) =>
      price.amount === null ? [] : [{ currency, amount: price.amount, compareAtAmount: price.compareAt }],
    )
    .sort(byCurrency);
}

const pricesChanged = (variant: VariantDraft, saved: AdminVariant): boolean =>
  JSON.stringify(pricesBody(variant)) !==
  JSON.stringify(
    saved.prices
      .map((price) => ({
        currency: price.currency,
        amount: price.amount,
        compareAtAmount: price.compareAtAmount ?? null,
      }))
      .sort(byCurrency),
  );

/** The fields of a variant as typed, in the API's terms (the label too: a matrix leaves it out). */
function variantFields(variant: VariantDraft) {
  return {
    label: variant.label.trim(),
    sku: skuOf(variant),
    priceAmount: variant.priceAmount ?? 0,
    compareAtAmount: variant.compareAtAmount,
    onHand: Number(variant.onHand.trim()),
    weightGrams: variant.weight.trim() === '' ? null : Number(variant.weight.trim()),
    requiresShipping: variant.requiresShipping,
    imageId: variant.imageId,
    taxClass: variant.taxClass,
  };
}

/** A new variant's explicit prices, when it has some. */
const newPrices = (variant: VariantDraft) => {
  const prices = pricesBody(variant);
  return prices.length > 0 ? { prices } : {};
};

/**
 * A new variant's body: in a matrix its combination's values (the server makes the label from
 * them), else its label.
 */
export function newVariantBody(draft: ProductDraft, variant: VariantDraft): NewVariantBody {
  const { label, ...fields } = variantFields(variant);
  return hasMatrix(draft)
    ? { ...fields, ...newPrices(variant), options: comboValues(variant.combo, draft.options) }
    : { ...fields, ...newPrices(variant), label };
}

/**
 * The changed fields of a saved variant, or null when nothing changed. A variant whose values
 * change with the options gets them (the label follows them, or, without options left, is sent)
 * and is restored with them (`archived: false`: saving the options archived it first).
 */
export function variantChanges(draft: ProductDraft, variant: VariantDraft): VariantChangeBody | null {
  const saved = variant.saved!;
  const body = variantFields(variant);
  const matrix = hasMatrix(draft);
  const changes: VariantChangeBody = {};
  if (moved(draft, variant)) {
    changes.options = comboValues(variant.combo, draft.options);
    changes.archived = false;
    if (!matrix) changes.label = body.label;
  }
  if (!matrix && body.label !== saved.label) changes.label = body.label;
  if (body.sku !== saved.sku) changes.sku = body.sku;
  if (body.priceAmount !== saved.priceAmount) changes.priceAmount = body.priceAmount;
  if (body.compareAtAmount !== saved.compareAtAmount) changes.compareAtAmount = body.compareAtAmount;
  if (body.onHand !== saved.onHand) changes.onHand = body.onHand;
  if (body.weightGrams !== saved.weightGrams) changes.weightGrams = body.weightGrams;
  if (body.requiresShipping !== saved.requiresShipping) changes.requiresShipping = body.requiresShipping;
  if (body.imageId !== (saved.imageId ?? null)) changes.imageId = body.imageId;
  if (body.taxClass !== saved.taxClass) changes.taxClass = body.taxClass;
  if (pricesChanged(variant, saved)) changes.prices = pricesBody(variant);
  return Object.keys(changes).length > 0 ? changes : null;
}

/** The images as the API takes them: media ids in order, alt text trimmed (blank is none). */
export const imagesBody = (images: readonly ImageDraft[]): ImageInput =>
  images.map((image) => ({ mediaId: image.mediaId, alt: image.alt.trim() || null }));

/** Whether the images (their order, their alt text) differ from the saved product's. */
function imagesChanged(draft: ProductDraft, saved: AdminProduct): boolean {
  const before = saved.images.map((image) => ({ mediaId: image.id, alt: image.alt?.trim() || null }));
  return JSON.stringify(imagesBody(draft.images)) !== JSON.stringify(before);
}

/** A new product's body. */
export function createBody(draft: ProductDraft) {
  const options = optionsBody(draft.options);
  return {
    title: draft.title.trim(),
    description: draft.description,
    status: draft.status,
    taxClass: draft.taxClass,
    tags: parseTags(draft.tags),
    ...handleAndSeoChanges(draft, UNNAMED),
    ...(draft.images.length > 0
      ? { images: imagesBody(draft.images) }
      : { image: draft.image.trim() || null }),
    ...(options.length > 0 ? { options } : {}),
    variants: draft.variants.map((variant) => newVariantBody(draft, variant)),
  };
}

/**
 * A saved product's change as the calls `useSaveProduct` makes (without its callbacks): its fields
 * and images, its options (archiving the variants they strand, and those that move to new values
 * before they get them), each row's call, the variants to delete, and activating last.
 */
export function savePlan(
  draft: ProductDraft,
  saved: AdminProduct,
): Omit<ProductSave, 'productId' | 'onOptionsSaved' | 'onVariantSaved' | 'onVariantRemoved'> {
  const activating = draft.status === 'active' && saved.status !== 'active';
  const withImages = draft.images.length > 0;
  const sendImages = imagesChanged(draft, saved);
  const image = draft.image.trim() || null;
  // Images removed and an address typed: the address goes on its own, after them (decision `media-uploads`).
  const imageAfter = !withImages && sendImages && image !== null ? image : undefined;
  const options = optionsChanged(draft, saved)
    ? {
        options: optionsBody(draft.options),
        archive: draft.stranded.length > 0 || draft.variants.some((variant) => moved(draft, variant)),
      }
    : undefined;
  return {
    fields: {
      title: draft.title.trim(),
      description: draft.description,
      tags: parseTags(draft.tags),
      ...handleAndSeoChanges(draft, saved),
      ...(draft.taxClass !== saved.taxClass ? { taxClass: draft.taxClass } : {}),
      ...(activating ? {} : { status: draft.status }),
      ...(sendImages ? { images: imagesBody(draft.images) } : {}),
      ...(!withImages && !sendImages ? { image } : {}),
    },
    ...(options ? { options } : {}),
    ...(imageAfter !== undefined ? { imageAfter } : {}),
    variants: draft.variants.map((variant) => {
      if (!variant.saved) return { add: newVariantBody(draft, variant) };
      const change = variantChanges(draft, variant);
      return change ? { id: variant.saved.id, change } : null;
    }),
    removed: draft.removed,
    activate: activating,
  };
}

/** A variant call's pointer (`/onHand`, or `/id` in the path) as the form's (`/variants/1/onHand`). */
export const underVariant =
  (index: number) =>
  (pointer: string, where: string): string =>
    where === 'path' ? `/variants/${index}` : `/variants/${index}${pointer}`;

/**
 * The form's pointer of a price the server refused by its place in the list sent
 * (`/variants/0/prices/1/amount`): by its currency (`/variants/0/prices/EUR/amount`), the field
 * that shows it. `draft` is the form as it was sent.
 */
export const priceByCurrency =
  (draft: ProductDraft) =>
  (pointer: string): string => {
    const match = /^\/variants\/(\d+)\/prices\/(\d+)(\/.*)?$/.exec(pointer);
    if (!match) return pointer;
    const variant = draft.variants[Number(match[1])];
    const currency = variant ? pricesBody(variant)[Number(match[2])]?.currency : undefined;
    return currency ? `/variants/${match[1]}/prices/${currency}${match[3] ?? ''}` : pointer;
  };
