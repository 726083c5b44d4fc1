/**
 * A postal address form that follows its country (decision `postal-addresses`): the field labels (State and ZIP code in
 * the US, Postcode in the UK…), the region list and which fields exist come from the same rules the
 * service checks with (`@storefront/address`), and each field carries the autocomplete token a
 * browser fills it from.
 */
import {
  checkAddress,
  countryName,
  countryOptions,
  countryRules,
  formatAddress,
  regionOptions,
} from '@storefront/address';
import type { AddressInput } from '@storefront/client';
import type { ComponentChildren } from 'preact';

/** The address as the form holds it: every field a string ('' when empty). */
export type AddressDraft = Record<
  'name' | 'company' | 'line1' | 'line2' | 'city' | 'region' | 'postalCode' | 'country',
  string
>;
export type AddressField = keyof AddressDraft;
export type AddressProblems = Partial<Record<AddressField, string>>;

export function emptyAddress(country: string): AddressDraft {
  return { name: '', company: '', line1: '', line2: '', city: '', region: '', postalCode: '', country };
}

/** A saved or returned address as the form holds it. */
export function draftOf(address: Partial<Record<AddressField, string | null | undefined>>): AddressDraft {
  const draft = emptyAddress(address.country ?? 'US');
  for (const field of Object.keys(draft) as AddressField[]) draft[field] = address[field] ?? '';
  return draft;
}

/** The draft as the API takes it: empty optional fields left out. */
export function addressInput(draft: AddressDraft): AddressInput {
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  return {
    name: draft.name.trim(),
    line1: draft.line1.trim(),
    city: draft.city.trim(),
    country: draft.country,
    ...(optional(draft.company) ? { company: optional(draft.company) } : {}),
    ...(optional(draft.line2) ? { line2: optional(draft.line2) } : {}),
    ...(optional(draft.region) ? { region: optional(draft.region) } : {}),
    ...(optional(draft.postalCode) ? { postalCode: optional(draft.postalCode) } : {}),
  };
}

/** What the address rules find wrong with the draft, by field, before anything is sent. */
export function draftProblems(draft: AddressDraft): AddressProblems {
  const found: AddressProblems = {};
  for (const { pointer, detail } of checkAddress(addressInput(draft)).problems)
    found[pointer.slice(1) as AddressField] = detail;
  return found;
}

/** An address on one line, for names of buttons and the checkout's picker. */
export function addressSummary(address: Parameters<typeof formatAddress>[0]): string {
  return formatAddress(address).join(', ');
}

/** An address as its country writes it, a line each. */
export function PostalAddress({ address }: { address: Parameters<typeof formatAddress>[0] }) {
  return (
    <address>
      {formatAddress(address).map((line) => (
        <span key={line} class="address-line">
          {line}
        </span>
      ))}
    </address>
  );
}

/**
 * The complaints still true after the shopper edits the address: a field they changed loses its
 * complaint until the next check; when the country changed, the other fields' complaints are
 * checked again by the new country's rules (a ZIP code refused for the US may be a good German
 * postal code), kept as the new rules word them or dropped. Complaints about other fields (the
 * email) stay.
 */
export function problemsAfterEdit<T extends AddressProblems>(
  problems: T,
  before: AddressDraft,
  after: AddressDraft,
): T {
  const kept = { ...problems };
  const again =
    before.country === after.country
      ? null
      : new Map(checkAddress(addressInput(after)).problems.map((found) => [found.pointer, found.detail]));
  for (const field of Object.keys(after) as AddressField[]) {
    if (kept[field] === undefined) continue;
    const detail = after[field] !== before[field] ? undefined : again ? again.get(`/${field}`) : kept[field];
    if (detail === undefined) delete kept[field];
    else kept[field] = detail;
  }
  return kept;
}

/** Every country the address data knows (the one list the server checks), by name in the shopper's language. */
export const countries = (): readonly { code: string; name: string }[] => countryOptions();

export { countryName };

/** The shop's language (`<html lang>`): region names show as a reader of it can read them ("Tokyo (東京都)"). */
const shopLanguage = () => document.documentElement.lang || 'en';

/** The shopper's country by their browser's language (`de-DE` → DE), when the data knows it. */
export function browserCountry(): string | null {
  const region = /-([A-Z]{2})\b/.exec(navigator.language)?.[1];
  return region && countryRules(region) ? region : null;
}

/** A check's detail ("is required") as a sentence about its field ("Full name is required."). */
function sentence(label: string, detail: string): string {
  if (!/^[a-z]/.test(detail)) return detail;
  return `${label.replace(/ \(optional\)$/, '')} ${detail}${detail.endsWith('.') ? '' : '.'}`;
}

function Field(props: {
  id: string;
  label: string;
  problem: string | undefined;
  hint?: string;
  children: (describedBy: string | undefined) => ComponentChildren;
}) {
  const describedBy = props.problem ? `${props.id}-problem` : props.hint ? `${props.id}-hint` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children(describedBy)}
      {props.problem ? (
        <p id={`${props.id}-problem`} class="field-problem">
          {sentence(props.label, props.problem)}
        </p>
      ) : props.hint ? (
        <p id={`${props.id}-hint`} class="field-hint">
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

export function AddressFields({
  value,
  onChange,
  problems,
  idPrefix,
}: {
  value: AddressDraft;
  onChange: (next: AddressDraft) => void;
  problems: AddressProblems;
  idPrefix: string;
}) {
  const rules = countryRules(value.country);
  const set = (field: AddressField) => (event: { currentTarget: { value: string } }) =>
    onChange({ ...value, [field]: event.currentTarget.value });
  const id = (field: AddressField) => `${idPrefix}-${field}`;
  const text = (field: AddressField, label: string, autoComplete: string, required = true) => (
    <Field id={id(field)} label={required ? label : `${label} (optional)`} problem={problems[field]}>
      {(describedBy) => (
        <input
          id={id(field)}
          type="text"
          autoComplete={autoComplete}
          required={required}
          maxLength={200}
          value={value[field]}
          aria-invalid={problems[field] ? 'true' : undefined}
          aria-describedby={describedBy}
          onInput={set(field)}
        />
      )}
    </Field>
  );
  return (
    <>
      <Field id={id('country')} label="Country or region" problem={problems.country}>
        {(describedBy) => (
          <select
            id={id('country')}
            autoComplete="country"
            value={value.country}
            aria-invalid={problems.country ? 'true' : undefined}
            aria-describedby={describedBy}
            // Another country has other regions: the region chosen for the last one goes.
            onChange={(event) => onChange({ ...value, country: event.currentTarget.value, region: '' })}
          >
            {countries().map((country) => (
              <option key={country.code} value={country.code}>
                {country.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {text('name', 'Full name', 'name')}
      {text('company', 'Company', 'organization', false)}
      {text('line1', 'Address', 'address-line1')}
      {text('line2', 'Apartment, suite, etc.', 'address-line2', false)}
      {/* Every address has a city (decision `postal-addresses`), also where the country's layout has no line for it (Japan,
          Singapore): the check asks for it, so the form always shows it. */}
      {text('city', rules?.labels.city ?? 'City', 'address-level2')}
      {rules?.uses.region ? (
        <Field
          id={id('region')}
          label={rules.requires.region ? rules.labels.region : `${rules.labels.region} (optional)`}
          problem={problems.region}
        >
          {(describedBy) => (
            <select
              id={id('region')}
              autoComplete="address-level1"
              required={rules.requires.region}
              value={value.region}
              aria-invalid={problems.region ? 'true' : undefined}
              aria-describedby={describedBy}
              onChange={set('region')}
            >
              <option value="">Choose…</option>
              {regionOptions(rules, shopLanguage()).map((region) => (
                <option key={region.code} value={region.code}>
                  {region.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {rules?.uses.postalCode === false
        ? null
        : text(
            'postalCode',
            rules?.labels.postalCode ?? 'Postal code',
            'postal-code',
            rules ? rules.requires.postalCode : false,
          )}
    </>
  );
}
