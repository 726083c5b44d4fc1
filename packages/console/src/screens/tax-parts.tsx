/**
 * The "Tax class" select the product form, its variants and a shipping method's form share
 * (decision `tax-classes`): the store's classes (`GET /admin/v1/tax-classes`, `standard` first),
 * and, where the thing may take its class from elsewhere, a first choice for null ("Same as
 * product" on a variant; "Follows the goods" on a shipping method, decision `shipping-tax`).
 */
import { useTaxClasses, type TaxClass } from '../data/tax.ts';
import { SelectField } from '../ui/components.tsx';

/** The select's value for null (the inherited class). */
const INHERITED = '';

/**
 * The choices: the inherited one (when given), then the store's classes by name and code. A value
 * the list does not have (the classes still loading, or one deleted elsewhere) is kept as a choice,
 * so the select never shows another class than the saved one.
 */
export function taxClassChoices(
  classes: readonly TaxClass[],
  value: string | null,
  inherited?: string,
): { value: string; label: string }[] {
  const choices = classes.map((taxClass) => ({
    value: taxClass.code,
    label: taxClass.name === taxClass.code ? taxClass.code : `${taxClass.name} (${taxClass.code})`,
  }));
  if (value !== null && !classes.some((taxClass) => taxClass.code === value))
    choices.push({ value, label: value });
  return inherited === undefined ? choices : [{ value: INHERITED, label: inherited }, ...choices];
}

export function TaxClassSelect({
  label,
  value,
  inherited,
  hint,
  error,
  hideLabel,
  onChange,
}: {
  label: string;
  /** The class; null is the inherited one (only with `inherited`). */
  value: string | null;
  /** The label of the null choice; without it, a class must be chosen. */
  inherited?: string;
  hint?: string;
  error?: string | undefined;
  hideLabel?: boolean;
  onChange: (value: string | null) => void;
}) {
  const classes = useTaxClasses();
  return (
    <SelectField
      label={label}
      hideLabel={hideLabel}
      value={value ?? INHERITED}
      options={taxClassChoices(classes.data?.items ?? [], value, inherited)}
      hint={hint}
      error={
        error ?? (classes.isError ? 'The tax classes could not be loaded; reload to try again.' : undefined)
      }
      onChange={(event) => onChange(event.target.value === INHERITED ? null : event.target.value)}
    />
  );
}
