/**
 * The product form's draft: the product, its options, images and variants as typed (text until
 * checked), made from a saved product or empty, checked before sending (what the form can tell:
 * blanks, a malformed handle, unreadable amounts and counts, options without values or twice the
 * same), and turned into the API's bodies (only what changed, for a saved product). No React here.
 */
import type {
  AdminProduct,
  AdminVariant,
  ImageInput,
  NewVariantBody,
  ProductSave,
  VariantChangeBody,
} from '../../data/products.ts';
import { localProblem, type FormProblem } from '../../ui/problems.ts';
import { imageProblem, slugify, type ProductStatus } from '../catalog-parts.tsx';
import {
  activeOptions,
  comboLabel,
  comboOf,
  comboValues,
  MAX_OPTIONS,
  MAX_VALUES,
  OPTION_NAME_MAX,
  OPTION_VALUE_MAX,
  optionDrafts,
  optionsBody,
  sameValues,
  type Combo,
  type OptionDraft,
} from './matrix.ts';

/** One of the product's images as the form holds it: the uploaded media and its alt text as typed. */
export interface ImageDraft {
  mediaId: string;
  url: string;
  width: number;
  height: number;
  alt: string;
}

/** At most this many images per product (the API's MAX_IMAGES). */
export const MAX_IMAGES = 20;
export const ALT_MAX = 500;

export interface VariantDraft {
  /** A stable key for React (the id once saved). */
  key: string;
  /** The saved variant this row edits; undefined for a new row. */
  saved?: AdminVariant;
  label: string;
  sku: string;
  priceAmount: number | null;
  priceProblem: string | null;
  compareAtAmount: number | null;
  compareAtProblem: string | null;
  onHand: string;
  /** Grams as typed; empty when not given. */
  weight: string;
  requiresShipping: boolean;
  /** Its combination of option values (matrix.ts); `{}` without options. */
  combo: Combo;
  /** The product image it shows (a media id), or null: the product's. */
  imageId: string | null;
}

export interface ProductDraft {
  title: string;
  /** As typed; on create, empty lets the server make one from the title. */
  handle: string;
  description: string;
  /** The SEO fields as typed; empty is none. */
  seoTitle: string;
  seoDescription: string;
  status: ProductStatus;
  /** An https address for a product without uploaded images (decision `media-uploads`: with images, the first is the card's). */
  image: string;
  tags: string;
  options: OptionDraft[];
  images: ImageDraft[];
  /** The live variants: without options, a list; with options, one per combination that has one. */
  variants: VariantDraft[];
  /** Saved variants removed from the form (without options): deleted when the form is saved. */
  removed: AdminVariant[];
  /** Saved variants the options no longer have a combination for: archived when the form is saved. */
  stranded: AdminVariant[];
}

let newKeys = 0;
const newKey = () => `new-${++newKeys}`;

export function variantDraft(variant: AdminVariant, combo: Combo = {}): VariantDraft {
  return {
    key: variant.id,
    saved: variant,
    label: variant.label,
    sku: variant.sku ?? '',
    priceAmount: variant.priceAmount,
    priceProblem: null,
    compareAtAmount: variant.compareAtAmount,
    compareAtProblem: null,
    onHand: String(variant.onHand),
    weight: variant.weightGrams === null ? '' : String(variant.weightGrams),
    requiresShipping: variant.requiresShipping,
    combo,
    imageId: variant.imageId ?? null,
  };
}

export function emptyVariant(label = '', combo: Combo = {}, priceAmount: number | null = null): VariantDraft {
  return {
    key: newKey(),
    label,
    sku: '',
    priceAmount,
    priceProblem: null,
    compareAtAmount: null,
    compareAtProblem: null,
    onHand: '0',
    weight: '',
    requiresShipping: true,
    combo,
    imageId: null,
  };
}

/** The price a new row of the matrix starts with: the first variant's (as typed, or as saved). */
export function firstPrice(draft: ProductDraft, saved: AdminProduct | null): number | null {
  return (
    draft.variants.find((variant) => variant.priceAmount !== null)?.priceAmount ??
    saved?.variants.find((variant) => !variant.archived)?.priceAmount ??
    null
  );
}

export function productDraft(product: AdminProduct | null): ProductDraft {
  if (!product) {
    return {
      title: '',
      handle: '',
      description: '',
      seoTitle: '',
      seoDescription: '',
      status: 'draft',
      image: '',
      tags: '',
      options: [],
      images: [],
      variants: [emptyVariant('Default')],
      removed: [],
      stranded: [],
    };
  }
  const options = optionDrafts(product.options);
  const variants: VariantDraft[] = [];
  for (const variant of product.variants) {
    if (variant.archived) continue;
    // A live variant always fits its product's options (the API sees to it).
    const combo = comboOf(variant.options, options);
    if (combo) variants.push(variantDraft(variant, combo));
  }
  return {
    title: product.title,
    handle: product.handle,
    description: product.description,
    seoTitle: product.seo.title ?? '',
    seoDescription: product.seo.description ?? '',
    status: product.status,
    // With images the card image is the first one's, the server's to set.
    image: product.images.length > 0 ? '' : (product.image ?? ''),
    tags: product.tags.join(', '),
    options,
    images: product.images.map((image) => ({
      mediaId: image.id,
      url: image.url,
      width: image.width,
      height: image.height,
      alt: image.alt ?? '',
    })),
    variants,
    removed: [],
    stranded: [],
  };
}

/** Whether the form edits a matrix (the product has options with values) rather than a list of variants. */
export const hasMatrix = (draft: Pick<ProductDraft, 'options'>): boolean =>
  activeOptions(draft.options).length > 0;

/** A row's name: its combination ("M / Blue") in a matrix, else its label. */
export const rowName = (draft: Pick<ProductDraft, 'options'>, variant: VariantDraft): string =>
  hasMatrix(draft) ? comboLabel(variant.combo, draft.options) : variant.label.trim();

/** The saved variants of a product that are archived (listed apart, with Restore). */
export const archivedVariants = (product: AdminProduct | null): AdminVariant[] =>
  product ? product.variants.filter((variant) => variant.archived) : [];

/** A saved variant's name for lists and confirmations: its label, and its SKU when it has one. */
export const variantName = (variant: AdminVariant): string =>
  `${variant.label}${variant.sku ? ` (${variant.sku})` : ''}`;

export const parseTags = (text: string): string[] =>
  text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

const ON_HAND = /^\d{1,10}$/;
const GRAMS = /^\d{1,8}$/;

/** A product handle (decision `product-handles`): lower-case letters and digits, single hyphens between them. */
export const HANDLE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const HANDLE_MAX = 100;
/** The server makes a handle from at most this many characters of the title. */
export const MADE_HANDLE_MAX = 80;
export const SEO_TITLE_MAX = 200;
export const SEO_DESCRIPTION_MAX = 500;
/** Characters as the server counts them (code points: an emoji is one). */
export const characters = (text: string): number => [...text].length;
export const shopPath = (handle: string): string => `/shop/products/${handle}`;

/** What is wrong with a handle as typed (trimmed), or null. Blank is fine on create only. */
function handleProblem(handle: string, saved: AdminProduct | null): string | null {
  if (handle === '') return saved ? `Enter a handle (it was “${saved.handle}”).` : null;
  if (handle.length > HANDLE_MAX) return `Use at most ${HANDLE_MAX} characters.`;
  if (HANDLE.test(handle)) return null;
  const suggestion = slugify(handle, HANDLE_MAX);
  return `Use lower-case letters and digits, with single hyphens between words${suggestion ? `, like “${suggestion}”` : ''}.`;
}

/**
 * What the form can tell before sending: blanks, a malformed handle, a long meta description,
 * unreadable amounts and counts, a non-https image.
 */
export function checkDraft(draft: ProductDraft, saved: AdminProduct | null): FormProblem | null {
  const fields: FormProblem['fields'] = [];
  if (draft.title.trim() === '') fields.push({ pointer: '/title', detail: 'Enter a title.' });
  const handle = handleProblem(draft.handle.trim(), saved);
  if (handle) fields.push({ pointer: '/handle', detail: handle });
  const seoDescription = characters(draft.seoDescription.trim());
  if (seoDescription > SEO_DESCRIPTION_MAX) {
    fields.push({
      pointer: '/seo/description',
      detail: `Use at most ${SEO_DESCRIPTION_MAX} characters (this has ${seoDescription}).`,
    });
  }
  if (draft.images.length === 0) {
    const image = imageProblem(draft.image);
    if (image) fields.push({ pointer: '/image', detail: image });
  }
  if (draft.images.length > MAX_IMAGES)
    fields.push({ pointer: '/images', detail: `Use at most ${MAX_IMAGES} images.` });
  draft.images.forEach((image, i) => {
    if (characters(image.alt.trim()) > ALT_MAX)
      fields.push({ pointer: `/images/${i}/alt`, detail: `Use at most ${ALT_MAX} characters.` });
  });
  fields.push(...optionProblems(draft.options));
  const matrix = hasMatrix(draft);
  if (draft.status === 'active' && draft.variants.length === 0) {
    fields.push({
      pointer: '/status',
      detail: 'An active product needs at least one variant. Add one first.',
    });
  }
  draft.variants.forEach((variant, i) => {
    const at = `/variants/${i}`;
    if (!matrix && variant.label.trim() === '')
      fields.push({ pointer: `${at}/label`, detail: 'Enter a label, like “Small”.' });
    if (variant.priceProblem) fields.push({ pointer: `${at}/priceAmount`, detail: variant.priceProblem });
    else if (variant.priceAmount === null)
      fields.push({ pointer: `${at}/priceAmount`, detail: 'Enter a price.' });
    if (variant.compareAtProblem)
      fields.push({ pointer: `${at}/compareAtAmount`, detail: variant.compareAtProblem });
    if (!ON_HAND.test(variant.onHand.trim()) || Number(variant.onHand) > 1_000_000_000) {
      fields.push({ pointer: `${at}/onHand`, detail: 'Enter a whole number of units, 0 or more.' });
    }
    const weight = variant.weight.trim();
    if (weight !== '' && (!GRAMS.test(weight) || Number(weight) > 10_000_000)) {
      fields.push({
        pointer: `${at}/weightGrams`,
        detail: 'Enter a whole number of grams (at most 10,000,000), or leave it empty.',
      });
    }
  });
  if (saved && fields.length === 0) {
    const offSale = takesEveryVariantOffSale(draft, saved);
    if (offSale) fields.push({ pointer: '/options', detail: offSale });
  }
  return fields.length > 0 ? localProblem('Some fields need your attention.', fields) : null;
}

/** What the form can tell of the options: names and values given, none twice (any case), the limits. */
function optionProblems(options: readonly OptionDraft[]): FormProblem['fields'] {
  const fields: FormProblem['fields'] = [];
  if (options.length > MAX_OPTIONS)
    fields.push({ pointer: '/options', detail: `Use at most ${MAX_OPTIONS} options.` });
  const names = new Set<string>();
  options.forEach((option, i) => {
    const at = `/options/${i}`;
    const name = option.name.trim();
    if (name === '') fields.push({ pointer: `${at}/name`, detail: 'Enter a name, like “Size”.' });
    else if (characters(name) > OPTION_NAME_MAX)
      fields.push({ pointer: `${at}/name`, detail: `Use at most ${OPTION_NAME_MAX} characters.` });
    else if (names.has(name.toLowerCase()))
      fields.push({ pointer: `${at}/name`, detail: `Another option is named “${name}”.` });
    names.add(name.toLowerCase());
    if (option.values.length === 0)
      fields.push({ pointer: `${at}/values`, detail: 'Add at least one value, or remove the option.' });
    if (option.values.length > MAX_VALUES)
      fields.push({ pointer: `${at}/values`, detail: `Use at most ${MAX_VALUES} values.` });
    const values = new Set<string>();
    option.values.forEach((value, j) => {
      const text = value.value.trim();
      if (text === '') fields.push({ pointer: `${at}/values/${j}`, detail: 'Enter a value, or remove it.' });
      else if (characters(text) > OPTION_VALUE_MAX)
        fields.push({ pointer: `${at}/values/${j}`, detail: `Use at most ${OPTION_VALUE_MAX} characters.` });
      else if (values.has(text.toLowerCase()))
        fields.push({ pointer: `${at}/values/${j}`, detail: `“${text}” is already a value of this option.` });
      values.add(text.toLowerCase());
    });
  });
  return fields;
}

/** Whether the options differ from the saved product's. */
export const optionsChanged = (draft: ProductDraft, saved: AdminProduct): boolean =>
  JSON.stringify(optionsBody(draft.options)) !== JSON.stringify(saved.options);

/** A saved row whose values change with the options (a renamed value or option, a new or removed option). */
const moved = (draft: ProductDraft, variant: VariantDraft): boolean =>
  variant.saved !== undefined &&
  !sameValues(variant.saved.options, comboValues(variant.combo, draft.options));

/**
 * Whether a saved row's new values are what the API gives it by itself: its values plus the first
 * value of each option the product did not have (a new option keeps the variants live).
 */
function filledByServer(draft: ProductDraft, saved: AdminProduct, variant: VariantDraft): boolean {
  if (!variant.saved) return false;
  const had = new Set(saved.options.map((option) => option.name));
  const values = { ...variant.saved.options };
  for (const option of optionsBody(draft.options))
    if (!had.has(option.name) && !(option.name in values) && option.values[0] !== undefined)
      values[option.name] = option.values[0];
  return sameValues(values, comboValues(variant.combo, draft.options));
}

/**
 * An option change that strands every live variant (a renamed option or value) archives them all
 * before they get their new values, which the API refuses for an active product (it keeps one
 * on sale): the form says so before sending. Set to draft in the same save, it is allowed. A new
 * option is not such a change: the API gives every variant its first value.
 */
function takesEveryVariantOffSale(draft: ProductDraft, saved: AdminProduct): string | null {
  if (saved.status !== 'active' || draft.status !== 'active' || !optionsChanged(draft, saved)) return null;
  const live = saved.variants.filter((variant) => !variant.archived);
  const staying = draft.variants.filter(
    (variant) => variant.saved && (!moved(draft, variant) || filledByServer(draft, saved, variant)),
  );
  if (live.length === 0 || staying.length > 0) return null;
  return 'This change gives every variant new option values, so each is archived for a moment before it gets them, and an active product must keep one on sale. Set the status to Draft for this save (then make it active again), or change the options in smaller steps.';
}
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
  };
}

/**
 * A new variant's body: in a matrix its combination's values (the server makes the label from
 * them), else its label.
 */
export function newVariantBody(draft: ProductDraft, variant: VariantDraft): NewVariantBody {
  const { label, ...fields } = variantFields(variant);
  return hasMatrix(draft)
    ? { ...fields, options: comboValues(variant.combo, draft.options) }
    : { ...fields, label };
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
