/**
 * The variants of a product with options (decision `product-options`): a table with one row per combination of the
 * options' values. A combination with a variant (saved, or new: added when it is saved) has its
 * price, compare-at price, on hand, SKU, weight, whether it is shipped, its tax class and its image; a new one can
 * be left out again; a combination without a variant has an Add action. And, for every product,
 * its archived variants, listed apart with a Restore button each.
 */
import { useId, useState } from 'react';
import { useRestoreVariant, type AdminVariant } from '../../data/products.ts';
import { ACTIONS, DataTable, SelectField, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { errorMessage } from '../../ui/problems.ts';
import { variantName, type ImageDraft, type ProductDraft, type VariantDraft } from './draft.ts';
import { comboId, comboLabel, comboValues, combinations, sameValues, type Combo } from './matrix.ts';
import { TaxClassSelect } from '../tax-parts.tsx';
import { imageChoices, SAME_AS_PRODUCT } from './variants.tsx';

export function VariantTable({
  draft,
  archived,
  currency,
  at,
  onChange,
  onAdd,
  onLeaveOut,
}: {
  draft: ProductDraft;
  /** The product's archived variants (a combination one of them has says so). */
  archived: readonly AdminVariant[];
  currency: string;
  at: (pointer: string, name: string) => string | undefined;
  onChange: (key: string, changes: Partial<VariantDraft>) => void;
  /** Adds a new variant for a combination that has none. */
  onAdd: (combo: Combo) => void;
  /** Leaves a new row out (its combination then has none). */
  onLeaveOut: (variant: VariantDraft) => void;
}) {
  const rows = new Map(
    draft.variants.map((variant, index) => [comboId(variant.combo, draft.options), index]),
  );
  const combos = combinations(draft.options);
  const withImages = draft.images.length > 0;
  const count = draft.variants.length;
  return (
    <DataTable
      wrap="variant-table-wrap"
      className="variant-table"
      caption={`Variants: ${count} of ${combos.length} combination${combos.length === 1 ? '' : 's'}`}
      columns={[
        'Variant',
        'Price',
        'Compare-at price',
        'On hand',
        'SKU',
        'Weight (g)',
        'Shipped',
        'Tax class',
        withImages && 'Image',
        ACTIONS,
      ]}
    >
      {combos.map((combo) => {
        const label = comboLabel(combo, draft.options);
        const index = rows.get(comboId(combo, draft.options));
        if (index === undefined) {
          const values = comboValues(combo, draft.options);
          const hasArchived = archived.some((variant) => sameValues(variant.options, values));
          return (
            <tr key={comboId(combo, draft.options)} className="absent">
              <th scope="row">
                <span className="combo">{label}</span>
              </th>
              <td colSpan={withImages ? 8 : 7} className="muted">
                {hasArchived
                  ? 'No variant: an archived one has these values (restore it below).'
                  : 'No variant.'}
              </td>
              <td>
                <button type="button" onClick={() => onAdd(combo)}>
                  Add<span className="visually-hidden"> {label}</span>
                </button>
              </td>
            </tr>
          );
        }
        const variant = draft.variants[index]!;
        return (
          <VariantRow
            key={variant.key}
            index={index}
            label={label}
            variant={variant}
            currency={currency}
            images={withImages ? draft.images : null}
            at={at}
            onChange={(changes) => onChange(variant.key, changes)}
            onLeaveOut={() => onLeaveOut(variant)}
          />
        );
      })}
    </DataTable>
  );
}

function VariantRow({
  index,
  label,
  variant,
  currency,
  images,
  at,
  onChange,
  onLeaveOut,
}: {
  index: number;
  label: string;
  variant: VariantDraft;
  currency: string;
  images: readonly ImageDraft[] | null;
  at: (pointer: string, name: string) => string | undefined;
  onChange: (changes: Partial<VariantDraft>) => void;
  onLeaveOut: () => void;
}) {
  const base = `/variants/${index}`;
  const saved = variant.saved;
  const optionsError = at(`${base}/options`, 'The combination') ?? at(`${base}/label`, 'The label');
  return (
    <tr className={saved ? undefined : 'new'}>
      <th scope="row">
        <span className="combo">{label}</span>
        {saved ? (
          <span className="muted small stock-line">
            {saved.reserved > 0 ? `${saved.reserved} reserved · ` : ''}
            {saved.available} available
          </span>
        ) : (
          <span className="badge">New</span>
        )}
        {optionsError ? <span className="field-error small">{optionsError}</span> : null}
      </th>
      <td>
        <MoneyField
          label={`${label} price`}
          hideLabel
          currency={currency}
          value={variant.priceAmount}
          error={at(`${base}/priceAmount`, 'The price')}
          onChange={(amount, problem) => onChange({ priceAmount: amount, priceProblem: problem })}
        />
      </td>
      <td>
        <MoneyField
          label={`${label} compare-at price`}
          hideLabel
          currency={currency}
          value={variant.compareAtAmount}
          optional
          error={at(`${base}/compareAtAmount`, 'The compare-at price')}
          onChange={(amount, problem) => onChange({ compareAtAmount: amount, compareAtProblem: problem })}
        />
      </td>
      <td>
        <TextField
          label={`${label} on hand`}
          hideLabel
          value={variant.onHand}
          inputMode="numeric"
          pattern="[0-9]*"
          error={at(`${base}/onHand`, 'On hand')}
          onChange={(event) => onChange({ onHand: event.target.value })}
        />
      </td>
      <td>
        <TextField
          label={`${label} SKU`}
          hideLabel
          value={variant.sku}
          maxLength={100}
          error={at(`${base}/sku`, 'The SKU')}
          onChange={(event) => onChange({ sku: event.target.value })}
        />
      </td>
      <td>
        <TextField
          label={`${label} weight (g)`}
          hideLabel
          value={variant.weight}
          inputMode="numeric"
          pattern="[0-9]*"
          error={at(`${base}/weightGrams`, 'The weight')}
          onChange={(event) => onChange({ weight: event.target.value })}
        />
      </td>
      <td className="center">
        <input
          type="checkbox"
          aria-label={`${label} requires shipping`}
          checked={variant.requiresShipping}
          onChange={(event) => onChange({ requiresShipping: event.target.checked })}
        />
      </td>
      <td>
        <TaxClassSelect
          label={`${label} tax class`}
          hideLabel
          value={variant.taxClass}
          inherited={SAME_AS_PRODUCT}
          error={at(`${base}/taxClass`, 'The tax class')}
          onChange={(taxClass) => onChange({ taxClass })}
        />
      </td>
      {images ? (
        <td>
          <SelectField
            label={`${label} image`}
            hideLabel
            value={variant.imageId ?? ''}
            options={imageChoices(images)}
            error={at(`${base}/imageId`, 'The image')}
            onChange={(event) => onChange({ imageId: event.target.value || null })}
          />
        </td>
      ) : null}
      <td>
        {saved ? null : (
          <button type="button" onClick={onLeaveOut}>
            Leave out<span className="visually-hidden"> {label}</span>
          </button>
        )}
      </td>
    </tr>
  );
}

/**
 * The product's archived variants (decision `product-options`): kept with their orders, not sold. Restore brings one back
 * at once (`PATCH {"archived": false}`); a refusal (its values no longer the product's, its
 * combination taken) is shown beside it.
 */
export function ArchivedVariants({
  variants,
  onRestored,
}: {
  variants: readonly AdminVariant[];
  onRestored: (variant: AdminVariant) => void;
}) {
  const headingId = useId();
  const restore = useRestoreVariant();
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  if (variants.length === 0) return null;

  async function bringBack(variant: AdminVariant) {
    setBusy(variant.id);
    setProblems(({ [variant.id]: _gone, ...others }) => others);
    try {
      onRestored(await restore.mutateAsync(variant));
    } catch (error) {
      setProblems((current) => ({ ...current, [variant.id]: errorMessage(error) }));
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="archived-variants" aria-labelledby={headingId}>
      <h3 id={headingId}>Archived variants</h3>
      <p className="hint">
        Kept with their orders and history, but not sold and not in the shop. Restore one to sell it again
        (its option values must be among the product’s).
      </p>
      <ul>
        {variants.map((variant) => (
          <li key={variant.id}>
            <span className="member-title">
              {variantName(variant)} <span className="muted">· {variant.onHand} on hand</span>
            </span>
            <button type="button" onClick={() => void bringBack(variant)} disabled={busy !== null}>
              {busy === variant.id ? 'Restoring…' : 'Restore'}
              <span className="visually-hidden"> {variant.label}</span>
            </button>
            {problems[variant.id] ? (
              <p className="field-error" role="alert">
                {problems[variant.id]}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
