/** A money input: the merchant types a decimal in the store currency; the form gets exact minor units. */
import { useEffect, useState } from 'react';
import { FieldShell } from './components.tsx';
import { currencyExponent, decimalToMinor, minorToDecimal } from './money.ts';

export interface MoneyFieldProps {
  label: string;
  currency: string;
  /** Minor units, or null when empty (only for optional amounts). */
  value: number | null;
  onChange: (amount: number | null, problem: string | null) => void;
  optional?: boolean;
  error?: string | undefined;
  hint?: string;
  name?: string;
  /** The label is read by screen readers, not shown (a table's cell, whose column names it). */
  hideLabel?: boolean;
}

export function MoneyField({
  label,
  currency,
  value,
  onChange,
  optional,
  error,
  hint,
  name,
  hideLabel,
}: MoneyFieldProps) {
  const exponent = currencyExponent(currency);
  const [text, setText] = useState(value === null ? '' : minorToDecimal(value, exponent));
  const [problem, setProblem] = useState<string | null>(null);

  // A new value from outside (a reset, a loaded record) replaces the text unless it already says it.
  useEffect(() => {
    const parsed = decimalToMinor(text, exponent);
    const same = value === null ? text.trim() === '' : parsed.ok && parsed.amount === value;
    if (!same) setText(value === null ? '' : minorToDecimal(value, exponent));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the value changes
  }, [value, exponent]);

  return (
    <FieldShell label={`${label} (${currency})`} hint={hint} error={problem ?? error} hideLabel={hideLabel}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          name={name}
          inputMode="decimal"
          autoComplete="off"
          value={text}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(event) => {
            const next = event.target.value;
            setText(next);
            if (optional && next.trim() === '') {
              setProblem(null);
              onChange(null, null);
              return;
            }
            const parsed = decimalToMinor(next, exponent);
            if (parsed.ok) {
              setProblem(null);
              onChange(parsed.amount, null);
            } else {
              setProblem(parsed.message);
              onChange(value, parsed.message);
            }
          }}
        />
      )}
    </FieldShell>
  );
}
