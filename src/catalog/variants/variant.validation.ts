import { AppError, validationFailed, type FieldError } from '../../lib/errors.ts';
import type { VariantInput, VariantPatch } from '../catalog.schemas.ts';
import type { ProductOption } from '../catalog.tables.ts';
import { labelOf, variantOptions } from './options.ts';
import { currencyDigits } from '../../markets/currencies.ts';

/**
 * A variant's values checked, on plain data: each check adds its field errors (pointer under `at`)
 * to `errors`; the services throw them as one 400, or the 409s below.
 */

export const MAX_VARIANTS = 100;

/** Decision `gift-card-products`: a gift card product's variants are not shipped. */
export const SHIPPED_GIFT_CARD = 'must be false on a gift card product: a gift card is not shipped';

/**
 * A variant's label and SKU: not blank (a SKU may be null); its explicit prices (decision
 * `market-prices`): each in an ISO 4217 currency other than the store's, one per currency.
 */
export function checkVariant(
  variant: VariantInput | VariantPatch,
  at: string,
  errors: FieldError[],
  storeCurrency: string,
): void {
  const seen = new Set<string>();
  variant.prices?.forEach((price, i) => {
    const currency = price.currency.toUpperCase();
    if (currencyDigits(currency) === undefined)
      errors.push({
        pointer: `${at}/prices/${i}/currency`,
        detail: 'must be an ISO 4217 currency code such as EUR',
      });
    else if (currency === storeCurrency)
      errors.push({
        pointer: `${at}/prices/${i}/currency`,
        detail: `is the store’s currency: its price is priceAmount`,
      });
    else if (seen.has(currency))
      errors.push({ pointer: `${at}/prices/${i}/currency`, detail: 'has a price earlier in the list' });
    seen.add(currency);
  });
  if (variant.label !== undefined && variant.label.trim() === '')
    errors.push({ pointer: `${at}/label`, detail: 'must not be blank' });
  if (variant.sku !== undefined && variant.sku !== null && variant.sku.trim() === '') {
    errors.push({ pointer: `${at}/sku`, detail: 'must not be blank (use null for no SKU)' });
  }
}

/**
 * A variant's options and label as stored (decision `product-options`): checked against its product's options; the
 * label, when not given, made from the values. A product without options needs a label.
 */
export function optionsAndLabel(
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

export const notAnImageOfTheProduct = 'must be the mediaId of one of the product’s images';

export const skuTaken = (sku: string, pointer: string): AppError =>
  new AppError('sku_unavailable', 409, `The SKU "${sku}" is already used by another variant of this store.`, {
    errors: [{ pointer, detail: 'is already used in this store' }],
  });

/**
 * 400 for tax classes the store does not have (decision `tax-classes`: the foreign keys refuse
 * them), one error per field that names one.
 */
export const unknownTaxClass = (pointers: readonly string[]): AppError =>
  validationFailed(
    'Unknown tax class.',
    pointers.map((pointer) => ({
      pointer,
      detail: 'is not a tax class of this store (GET /admin/v1/tax-classes lists them)',
    })),
  );

export const combinationTaken = (pointer: string): AppError =>
  new AppError(
    'option_combination_taken',
    409,
    'Another variant of this product has the same option values.',
    { errors: [{ pointer, detail: 'is the combination of another variant of this product' }] },
  );
