/**
 * The product form's draft: the product, its options, images and variants as typed (text until
 * checked), made from a saved product or empty. It is checked before sending in check.ts and
 * turned into the API's bodies in bodies.ts. No React here.
 */
import type { AdminProduct, AdminVariant } from '../../data/products.ts';
import type { ProductStatus } from '../catalog-parts.tsx';
import {
  activeOptions,
  comboLabel,
  comboOf,
  comboValues,
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

/**
 * A variant's explicit price in a currency other than the store's, as typed (decision
 * `market-prices`): amounts in that currency's minor units; no amount, the store price converted.
 */
export interface CurrencyPriceDraft {
  amount: number | null;
  amountProblem: string | null;
  compareAt: number | null;
  compareAtProblem: string | null;
}

export const NO_CURRENCY_PRICE: CurrencyPriceDraft = {
  amount: null,
  amountProblem: null,
  compareAt: null,
  compareAtProblem: null,
};

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
  /** Its tax class, or null: the product's (decision `tax-classes`). */
  taxClass: string | null;
  /** Its prices in other currencies, by currency (those typed or saved). */
  prices: Record<string, CurrencyPriceDraft>;
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
  /** The tax class of its variants (decision `tax-classes`); a variant may name its own. */
  taxClass: string;
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
    taxClass: variant.taxClass,
    prices: Object.fromEntries(
      variant.prices.map((price) => [
        price.currency,
        { ...NO_CURRENCY_PRICE, amount: price.amount, compareAt: price.compareAtAmount },
      ]),
    ),
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
    taxClass: null,
    prices: {},
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
      taxClass: 'standard',
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
    taxClass: product.taxClass,
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

export const ON_HAND = /^\d{1,10}$/;
export const GRAMS = /^\d{1,8}$/;

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

/** Whether the options differ from the saved product's. */
export const optionsChanged = (draft: ProductDraft, saved: AdminProduct): boolean =>
  JSON.stringify(optionsBody(draft.options)) !== JSON.stringify(saved.options);

/** A saved row whose values change with the options (a renamed value or option, a new or removed option). */
export const moved = (draft: ProductDraft, variant: VariantDraft): boolean =>
  variant.saved !== undefined &&
  !sameValues(variant.saved.options, comboValues(variant.combo, draft.options));
