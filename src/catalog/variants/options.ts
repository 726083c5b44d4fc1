import type { FieldError } from '../../lib/errors.ts';
import type { ProductOption } from '../catalog.tables.ts';

/**
 * Options (decision `product-options`), as rules on plain data: a product names up to three options, each with
 * its values; a variant of a product with options gives a value of each, and no two variants of
 * the product give the same combination. The label of such a variant, when not given, is its
 * values in the options' order ("M / Blue").
 */

export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 100;

/** The options as given, trimmed; names unique (ignoring case), values unique per option. */
export function normalizeOptions(
  options: readonly ProductOption[] | undefined,
  errors: FieldError[],
): ProductOption[] | undefined {
  if (options === undefined) return undefined;
  const names = new Set<string>();
  const out = options.map((option, i) => {
    const name = option.name.trim();
    if (name === '') errors.push({ pointer: `/options/${i}/name`, detail: 'must not be blank' });
    else if (names.has(name.toLowerCase()))
      errors.push({ pointer: `/options/${i}/name`, detail: 'is the name of another option' });
    names.add(name.toLowerCase());
    const seen = new Set<string>();
    const values = option.values.map((value, j) => {
      const trimmed = value.trim();
      if (trimmed === '') errors.push({ pointer: `/options/${i}/values/${j}`, detail: 'must not be blank' });
      else if (seen.has(trimmed.toLowerCase()))
        errors.push({ pointer: `/options/${i}/values/${j}`, detail: 'is repeated' });
      seen.add(trimmed.toLowerCase());
      return trimmed;
    });
    return { name, values };
  });
  if (options.length > MAX_OPTIONS)
    errors.push({ pointer: '/options', detail: `must have at most ${MAX_OPTIONS} options` });
  return out;
}

/**
 * A variant's options checked against its product's: a value of each option, from its values,
 * and nothing else. Returns them keyed by the options' own names (a value given in another case
 * takes the option's spelling), or {} for a product without options.
 */
export function variantOptions(
  product: readonly ProductOption[],
  given: Readonly<Record<string, string>> | undefined,
  at: string,
  errors: FieldError[],
): Record<string, string> {
  if (product.length === 0) {
    if (given !== undefined && Object.keys(given).length > 0)
      errors.push({ pointer: `${at}/options`, detail: 'the product has no options' });
    return {};
  }
  const out: Record<string, string> = {};
  const entries = Object.entries(given ?? {});
  for (const option of product) {
    const entry = entries.find(([name]) => name.trim().toLowerCase() === option.name.toLowerCase());
    if (!entry) {
      errors.push({ pointer: `${at}/options`, detail: `needs a value of "${option.name}"` });
      continue;
    }
    const value = option.values.find((v) => v.toLowerCase() === entry[1].trim().toLowerCase());
    if (value === undefined)
      errors.push({
        pointer: `${at}/options/${option.name}`,
        detail: `must be one of ${option.values.map((v) => `"${v}"`).join(', ')}`,
      });
    else out[option.name] = value;
  }
  for (const [name] of entries)
    if (!product.some((option) => option.name.toLowerCase() === name.trim().toLowerCase()))
      errors.push({ pointer: `${at}/options/${name}`, detail: 'is not an option of the product' });
  return out;
}

/** The label of a variant with options: its values in the options' order ("M / Blue"). */
export function labelOf(
  product: readonly ProductOption[],
  options: Readonly<Record<string, string>>,
): string {
  return product.map((option) => options[option.name]).join(' / ');
}

/** A stable key of a combination, to find two variants that give the same one. */
export function combinationKey(options: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(options).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Whether a variant's values are exactly one of each of the options, from their values. */
export function fitsOptions(options: readonly ProductOption[], values: Record<string, string>): boolean {
  const errors: FieldError[] = [];
  const fitted = variantOptions(options, values, '', errors);
  return errors.length === 0 && combinationKey(fitted) === combinationKey(values);
}
