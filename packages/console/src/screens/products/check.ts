/**
 * What the product form can tell before sending: blanks, a malformed handle, unreadable amounts
 * and counts, options without values or twice the same, a change that would take every variant
 * off sale. No React here.
 */
import type { AdminProduct } from '../../data/products.ts';
import { localProblem, type FormProblem } from '../../ui/problems.ts';
import { imageProblem, slugify } from '../catalog-parts.tsx';
import {
  ALT_MAX,
  characters,
  GRAMS,
  HANDLE,
  HANDLE_MAX,
  hasMatrix,
  MAX_IMAGES,
  moved,
  ON_HAND,
  optionsChanged,
  SEO_DESCRIPTION_MAX,
  type ProductDraft,
  type VariantDraft,
} from './draft.ts';
import {
  comboValues,
  MAX_OPTIONS,
  MAX_VALUES,
  OPTION_NAME_MAX,
  OPTION_VALUE_MAX,
  optionsBody,
  sameValues,
  type OptionDraft,
} from './matrix.ts';

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
    fields.push(...priceProblems(variant, at));
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

/** A variant's prices in other currencies: readable amounts, and no compare-at price without a price. */
function priceProblems(variant: VariantDraft, at: string): FormProblem['fields'] {
  return Object.entries(variant.prices).flatMap(([currency, price]) => {
    const base = `${at}/prices/${currency}`;
    const found: FormProblem['fields'] = [];
    if (price.amountProblem) found.push({ pointer: `${base}/amount`, detail: price.amountProblem });
    if (price.compareAtProblem)
      found.push({ pointer: `${base}/compareAtAmount`, detail: price.compareAtProblem });
    else if (price.compareAt !== null && price.amount === null && !price.amountProblem)
      found.push({
        pointer: `${base}/compareAtAmount`,
        detail: `Enter a price in ${currency} too, or clear the compare-at price: without one, both are converted.`,
      });
    return found;
  });
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
