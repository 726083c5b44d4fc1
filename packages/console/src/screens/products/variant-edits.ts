/**
 * The product form's edits of its options and variants: add, remove and keep variants, edit the
 * options (the rows follow, matrix.ts), fill or leave out a combination, restore an archived
 * variant; and its images (a variant whose image left shows the product's again). An edit of the
 * options that would archive saved variants waits in `pending` for its confirmation.
 */
import { useId, useState, type Dispatch, type SetStateAction } from 'react';
import type { AdminProduct, AdminVariant } from '../../data/products.ts';
import type { FormProblem } from '../../ui/problems.ts';
import {
  archivedVariants,
  emptyVariant,
  firstPrice,
  hasMatrix,
  variantDraft,
  type ImageDraft,
  type ProductDraft,
  type VariantDraft,
} from './draft.ts';
import {
  activeOptions,
  comboId,
  comboLabel,
  comboOf,
  inMatrixOrder,
  reconcile,
  type Combo,
  type OptionDraft,
  type Reconciled,
} from './matrix.ts';
import type { EditIntent } from './options.tsx';

/** An edit of the options that would archive saved variants, waiting for its confirmation. */
export interface PendingEdit {
  next: OptionDraft[];
  result: Reconciled<VariantDraft, AdminVariant>;
  intent: EditIntent;
}

/** The form's state these edits change (it owns it). */
export interface FormState {
  draft: ProductDraft;
  setDraft: Dispatch<SetStateAction<ProductDraft>>;
  saved: AdminProduct | null;
  setSaved: Dispatch<SetStateAction<AdminProduct | null>>;
  problem: FormProblem | null;
  setProblem: (problem: FormProblem | null) => void;
  setNotice: (notice: string | null) => void;
}

export type VariantEdits = ReturnType<typeof useVariantEdits>;

export function useVariantEdits({
  draft,
  setDraft,
  saved,
  setSaved,
  problem,
  setProblem,
  setNotice,
}: FormState) {
  const [pending, setPending] = useState<PendingEdit | null>(null);
  const variantsId = useId();
  const archived = archivedVariants(saved);

  const updateVariant = (key: string, changes: Partial<VariantDraft>) =>
    setDraft((d) => ({ ...d, variants: d.variants.map((v) => (v.key === key ? { ...v, ...changes } : v)) }));

  function addVariant() {
    setDraft((d) => ({ ...d, variants: [...d.variants, emptyVariant()] }));
    // Focus the new row's first field once it is rendered.
    setTimeout(() => {
      const rows = document.querySelectorAll<HTMLFieldSetElement>(
        `[data-variants="${variantsId}"] > fieldset`,
      );
      rows[rows.length - 1]?.querySelector('input')?.focus();
    });
  }

  function removeVariant(variant: VariantDraft) {
    setDraft((d) => ({
      ...d,
      variants: d.variants.filter((v) => v.key !== variant.key),
      removed: variant.saved ? [...d.removed, variant.saved] : d.removed,
    }));
    // Problems point at rows by index; they no longer line up.
    setProblem(null);
  }

  function keepVariant(variant: AdminVariant) {
    setDraft((d) => ({
      ...d,
      removed: d.removed.filter((v) => v.id !== variant.id),
      variants: [...d.variants, variantDraft(variant)],
    }));
  }

  /**
   * An edit of the options: the rows follow (matrix.ts). One that would archive saved variants
   * waits for a confirmation naming them.
   */
  function editOptions(next: OptionDraft[], intent: EditIntent) {
    const result = reconcile({
      before: draft.options,
      after: next,
      rows: draft.variants,
      stranded: draft.stranded,
      archived,
      makeRow: (combo) => emptyVariant('', combo, firstPrice(draft, saved)),
      revive: (variant, combo) => variantDraft(variant, combo),
    });
    if (result.newlyStranded.length > 0) setPending({ next, result, intent });
    else applyOptions(next, result);
  }

  function applyOptions(next: OptionDraft[], result: Reconciled<VariantDraft, AdminVariant>) {
    const leaving = hasMatrix(draft) && activeOptions(next).length === 0;
    setDraft((d) => ({
      ...d,
      options: next,
      // Without options left, each variant needs a label: its combination's, unless it has one.
      variants: leaving
        ? result.rows.map((row, i) => {
            const before = d.variants.find((v) => v.key === row.key) ?? d.variants[i];
            return row.label.trim() || !before ? row : { ...row, label: comboLabel(before.combo, d.options) };
          })
        : result.rows,
      stranded: result.stranded,
    }));
    // Problems point at rows by index; they may no longer line up.
    if (problem) setProblem(null);
  }

  /** A combination without a variant gets a new one. */
  function addCombination(combo: Combo) {
    setDraft((d) => ({
      ...d,
      variants: inMatrixOrder([...d.variants, emptyVariant('', combo, firstPrice(d, saved))], d.options),
    }));
    setProblem(null);
  }

  function leaveOut(variant: VariantDraft) {
    setDraft((d) => ({ ...d, variants: d.variants.filter((v) => v.key !== variant.key) }));
    setProblem(null);
  }

  /** An archived variant brought back: it is live again, in its combination's row (a new row there gives way). */
  function restored(variant: AdminVariant) {
    setSaved((s) => s && { ...s, variants: s.variants.map((v) => (v.id === variant.id ? variant : v)) });
    setDraft((d) => {
      if (!hasMatrix(d)) return { ...d, variants: [...d.variants, variantDraft(variant)] };
      const combo = comboOf(variant.options, d.options);
      // Its values are no longer the form's: archived again when the form is saved.
      if (!combo) return { ...d, stranded: [...d.stranded, variant] };
      const id = comboId(combo, d.options);
      const others = d.variants.filter((v) => v.saved || comboId(v.combo, d.options) !== id);
      return { ...d, variants: inMatrixOrder([...others, variantDraft(variant, combo)], d.options) };
    });
    setProblem(null);
    setNotice(`Restored ${variant.label}.`);
  }

  /** The images changed: a variant whose image left the list shows the product's again. */
  function updateImages(change: (images: ImageDraft[]) => ImageDraft[]) {
    setDraft((d) => {
      const images = change(d.images);
      const ids = new Set(images.map((image) => image.mediaId));
      return {
        ...d,
        images,
        variants: d.variants.map((v) => (v.imageId && !ids.has(v.imageId) ? { ...v, imageId: null } : v)),
      };
    });
  }

  return {
    pending,
    setPending,
    variantsId,
    archived,
    updateVariant,
    addVariant,
    removeVariant,
    keepVariant,
    editOptions,
    applyOptions,
    addCombination,
    leaveOut,
    restored,
    updateImages,
  };
}
