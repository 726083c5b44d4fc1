/**
 * One variant's fields in the product form of a product without options: label, SKU, price and
 * compare-at price (decimals in the store currency, exact minor units), on hand with what pending
 * orders hold, weight, whether it is shipped, the image it shows (one of the product's), its tax
 * class (the product's, or one of its own), its prices in other currencies (its children:
 * currency-prices.tsx), and its Remove button. Each row is a group named "Variant N". (With options, the variants are the rows
 * of the matrix: variant-table.tsx.)
 */
import { useId, type ReactNode } from 'react';
import { SelectField, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { TaxClassSelect } from '../tax-parts.tsx';
import type { ImageDraft, VariantDraft } from './draft.ts';

/** The label of a variant's tax class choice for null: it is taxed as its product. */
export const SAME_AS_PRODUCT = 'Same as product';

/** The choices of a variant's Image select: none (the product's), or one of the product's images. */
export function imageChoices(images: readonly ImageDraft[]): { value: string; label: string }[] {
  return [
    { value: '', label: 'None (the product’s)' },
    ...images.map((image, i) => ({
      value: image.mediaId,
      label: `Image ${i + 1}${image.alt.trim() ? `: ${image.alt.trim()}` : ''}`,
    })),
  ];
}

export function VariantFields({
  index,
  variant,
  currency,
  images,
  at,
  onChange,
  onRemove,
  children,
}: {
  index: number;
  variant: VariantDraft;
  currency: string;
  /** The product's images as the form has them (the Image select is shown when there are some). */
  images: readonly ImageDraft[];
  at: (pointer: string, name: string) => string | undefined;
  onChange: (changes: Partial<VariantDraft>) => void;
  onRemove: () => void;
  /** What follows its own fields: its prices in other currencies (currency-prices.tsx). */
  children?: ReactNode;
}) {
  const base = `/variants/${index}`;
  const name = `Variant ${index + 1}`;
  const shippingHintId = useId();
  return (
    <fieldset className="variant">
      <legend>{name}</legend>
      <div className="variant-grid">
        <TextField
          label="Label"
          value={variant.label}
          maxLength={200}
          placeholder="e.g. Small"
          error={at(`${base}/label`, 'The label')}
          onChange={(event) => onChange({ label: event.target.value })}
        />
        <TextField
          label="SKU"
          value={variant.sku}
          maxLength={100}
          hint="Optional; unique in your store."
          error={at(`${base}/sku`, 'The SKU')}
          onChange={(event) => onChange({ sku: event.target.value })}
        />
        <MoneyField
          label="Price"
          currency={currency}
          value={variant.priceAmount}
          error={at(`${base}/priceAmount`, 'The price')}
          onChange={(amount, problem) => onChange({ priceAmount: amount, priceProblem: problem })}
        />
        <MoneyField
          label="Compare-at price"
          currency={currency}
          value={variant.compareAtAmount}
          optional
          hint="Optional: the former price, shown crossed out."
          error={at(`${base}/compareAtAmount`, 'The compare-at price')}
          onChange={(amount, problem) => onChange({ compareAtAmount: amount, compareAtProblem: problem })}
        />
        <TextField
          label="On hand"
          value={variant.onHand}
          inputMode="numeric"
          pattern="[0-9]*"
          hint="Units in stock (a recount)."
          error={at(`${base}/onHand`, 'On hand')}
          onChange={(event) => onChange({ onHand: event.target.value })}
        />
        <TextField
          label="Weight (g)"
          value={variant.weight}
          inputMode="numeric"
          pattern="[0-9]*"
          hint="In grams, for shipping priced by weight; optional."
          error={at(`${base}/weightGrams`, 'The weight')}
          onChange={(event) => onChange({ weight: event.target.value })}
        />
        {images.length > 0 ? (
          <SelectField
            label="Image"
            value={variant.imageId ?? ''}
            options={imageChoices(images)}
            hint="Shown when a customer picks it."
            error={at(`${base}/imageId`, 'The image')}
            onChange={(event) => onChange({ imageId: event.target.value || null })}
          />
        ) : null}
        <TaxClassSelect
          label="Tax class"
          value={variant.taxClass}
          inherited={SAME_AS_PRODUCT}
          error={at(`${base}/taxClass`, 'The tax class')}
          onChange={(taxClass) => onChange({ taxClass })}
        />
        <dl className="stock">
          <div>
            <dt>Reserved</dt>
            <dd>{variant.saved ? variant.saved.reserved : '—'}</dd>
          </div>
          <div>
            <dt>Available</dt>
            <dd>{variant.saved ? variant.saved.available : '—'}</dd>
          </div>
        </dl>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={variant.requiresShipping}
          aria-describedby={shippingHintId}
          onChange={(event) => onChange({ requiresShipping: event.target.checked })}
        />
        <span>Requires shipping</span>
      </label>
      <p className="hint" id={shippingHintId}>
        Off for what is not shipped (gift cards, downloads): checkout then asks no address for it.
      </p>
      {at(`${base}/requiresShipping`, 'Requires shipping') ? (
        <p className="field-error">{at(`${base}/requiresShipping`, 'Requires shipping')}</p>
      ) : null}
      {children}
      {variant.saved && variant.saved.reserved > 0 ? (
        <p className="hint">
          {variant.saved.reserved} unit{variant.saved.reserved === 1 ? ' is' : 's are'} held by pending
          orders: on hand cannot go below that.
        </p>
      ) : null}
      <button type="button" className="danger" onClick={onRemove}>
        Remove {variant.label.trim() || name}
      </button>
    </fieldset>
  );
}
