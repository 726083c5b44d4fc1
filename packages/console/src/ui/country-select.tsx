/**
 * The country picker every screen uses: the one list of countries (`@storefront/address`, as the
 * server checks them), named in the browser's language.
 */
import { countryOptions } from '@storefront/address';
import { FieldShell } from './components.tsx';

/** A country picker: a native select of every country, by name. */
export function CountrySelect({
  label,
  value,
  onChange,
  error,
  hint,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (code: string) => void;
  error?: string | undefined;
  hint?: string;
  disabled?: boolean;
}) {
  const list = countryOptions();
  return (
    <FieldShell label={label} error={error} hint={hint}>
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          value={value}
          disabled={disabled}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(event) => onChange(event.target.value)}
        >
          <option value="">Choose a country…</option>
          {list.map((country) => (
            <option key={country.code} value={country.code}>
              {country.name} ({country.code})
            </option>
          ))}
        </select>
      )}
    </FieldShell>
  );
}
