/**
 * The product form's variants: its options (options.tsx) and either a list of variants
 * (variants.tsx) or the matrix of their combinations (variant-table.tsx), with their prices in the
 * markets' other currencies (currency-prices.tsx) and "Why this price?" for the saved ones
 * (why-price.tsx); what saving archives or deletes; the archived variants with Restore; and the dialog that confirms an edit of the options
 * that archives saved variants.
 */
import { fieldMessage, type FormProblem } from '../../ui/problems.ts';
import {
  CurrencyPrices,
  CurrencyPriceTable,
  useForeignCurrencies,
  type PriceChange,
} from './currency-prices.tsx';
import { hasMatrix, NO_CURRENCY_PRICE, variantName, type ProductDraft } from './draft.ts';
import { ConfirmDialog, OptionsEditor } from './options.tsx';
import type { At } from './panels.tsx';
import type { PendingEdit, VariantEdits } from './variant-edits.ts';
import { ArchivedVariants, VariantTable } from './variant-table.tsx';
import { VariantFields } from './variants.tsx';
import { WhyThisPrice } from './why-price.tsx';

export function VariantsSection({
  draft,
  currency,
  problem,
  at,
  edits,
}: {
  draft: ProductDraft;
  currency: string;
  problem: FormProblem | null;
  at: At;
  edits: VariantEdits;
}) {
  const matrix = hasMatrix(draft);
  const { variantsId, archived, updateVariant, removeVariant, keepVariant, editOptions } = edits;
  const { addCombination, leaveOut, addVariant, restored } = edits;
  const currencies = useForeignCurrencies(draft, currency);
  const changePrice: PriceChange = (variant, code, changes) =>
    updateVariant(variant.key, {
      prices: { ...variant.prices, [code]: { ...(variant.prices[code] ?? NO_CURRENCY_PRICE), ...changes } },
    });
  return (
    <section className="panel" aria-labelledby="product-variants">
      <h2 id="product-variants">Variants</h2>
      <p className="hint">
        Each variant is a version a customer can buy (a size, a colour). Prices are in {currency}; the product
        card shows the lowest price.
      </p>
      <OptionsEditor options={draft.options} at={at} onEdit={editOptions} />
      <div data-variants={variantsId}>
        {matrix ? (
          <VariantTable
            draft={draft}
            archived={archived}
            currency={currency}
            at={at}
            onChange={updateVariant}
            onAdd={addCombination}
            onLeaveOut={leaveOut}
          />
        ) : (
          <>
            {draft.variants.length === 0 ? (
              <p className="muted">No variants yet. A draft may have none; an active product needs one.</p>
            ) : null}
            {draft.variants.map((variant, index) => (
              <VariantFields
                key={variant.key}
                index={index}
                variant={variant}
                currency={currency}
                images={draft.images}
                at={at}
                onChange={(changes) => updateVariant(variant.key, changes)}
                onRemove={() => removeVariant(variant)}
              >
                <CurrencyPrices
                  index={index}
                  variant={variant}
                  currencies={currencies}
                  storeCurrency={currency}
                  at={at}
                  onChange={changePrice}
                />
                {variant.saved ? (
                  <WhyThisPrice variants={[{ id: variant.saved.id, name: variantName(variant.saved) }]} />
                ) : null}
              </VariantFields>
            ))}
          </>
        )}
      </div>
      {matrix ? (
        <CurrencyPriceTable
          draft={draft}
          currencies={currencies}
          storeCurrency={currency}
          at={at}
          onChange={changePrice}
        />
      ) : null}
      {matrix ? (
        <WhyThisPrice
          variants={draft.variants.flatMap((variant) =>
            variant.saved ? [{ id: variant.saved.id, name: variantName(variant.saved) }] : [],
          )}
        />
      ) : null}
      {draft.stranded.length > 0 ? (
        <div className="banner warning">
          <p>Archived when you save (kept with their orders, never deleted):</p>
          <ul className="removed-variants" aria-label="Archived when you save">
            {draft.stranded.map((variant) => (
              <li key={variant.id}>{variantName(variant)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {draft.removed.length > 0 ? (
        <div className="banner warning">
          <p>Deleted when you save:</p>
          <ul className="removed-variants">
            {draft.removed.map((variant) => (
              <li key={variant.id}>
                {variant.label}
                {variant.sku ? ` (${variant.sku})` : ''}{' '}
                <button type="button" className="link" onClick={() => keepVariant(variant)}>
                  Keep {variant.label}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="field-error" id="variants-error">
        {problem ? (fieldMessage(problem, '/variants', 'Variants') ?? null) : null}
      </p>
      {matrix ? null : (
        <button type="button" onClick={addVariant}>
          Add variant
        </button>
      )}
      <ArchivedVariants variants={archived} onRestored={restored} />
    </section>
  );
}

/** Confirms an edit of the options that archives saved variants, naming them. */
export function StrandedDialog({
  pending,
  onConfirm,
  onCancel,
}: {
  pending: PendingEdit;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      title={pending.intent.title}
      confirmLabel={pending.intent.confirmLabel}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        {pending.result.newlyStranded.length === 1
          ? 'This variant no longer has a combination, so it is archived when you save:'
          : `These ${pending.result.newlyStranded.length} variants no longer have a combination, so they are archived when you save:`}
      </p>
      <ul>
        {pending.result.newlyStranded.map((variant) => (
          <li key={variant.id}>{variantName(variant)}</li>
        ))}
      </ul>
      <p>
        Archived variants keep their orders and history and are listed under “Archived variants”, where they
        can be restored. Nothing is deleted.
      </p>
    </ConfirmDialog>
  );
}
