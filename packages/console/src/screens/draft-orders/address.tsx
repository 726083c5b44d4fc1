/**
 * A draft's shipping address, following its country (decision `postal-addresses`): the labels,
 * which fields exist and the region list come from `@storefront/address`, the rules the server
 * checks with; the same check runs before the address is sent, and the server's own problems are
 * shown at their fields.
 */
import { checkAddress, countryRules, formatAddress, regionOptions, type Address } from '@storefront/address';
import { useState, type FormEvent } from 'react';
import { ProblemBanner, SelectField, TextField } from '../../ui/components.tsx';
import { CountrySelect } from '../../ui/country-select.tsx';
import {
  fieldMessage,
  localProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';

type AddressDraft = Record<
  'name' | 'company' | 'line1' | 'line2' | 'city' | 'region' | 'postalCode' | 'country' | 'phone',
  string
>;

const BASE = '/shippingAddress';

function draftOf(address: Partial<Address> | null, country: string): AddressDraft {
  return {
    name: address?.name ?? '',
    company: address?.company ?? '',
    line1: address?.line1 ?? '',
    line2: address?.line2 ?? '',
    city: address?.city ?? '',
    region: address?.region ?? '',
    postalCode: address?.postalCode ?? '',
    country: address?.country ?? country,
    phone: address?.phone ?? '',
  };
}

/** An address as its country writes it on a parcel, a line each. */
export function PostalAddress({ address }: { address: Address }) {
  return (
    <address className="postal-address">
      {formatAddress(address).map((line, index) => (
        <span key={index}>{line}</span>
      ))}
      {address.phone ? <span className="muted">Phone {address.phone}</span> : null}
    </address>
  );
}

export function AddressForm({
  address,
  defaultCountry,
  busy,
  problem: serverProblem,
  onSave,
  onRemove,
  onCancel,
}: {
  address: Address | null;
  defaultCountry: string;
  busy: boolean;
  /** The server's refusal of the last save (its pointers under /shippingAddress). */
  problem: FormProblem | null;
  onSave: (address: Address) => void;
  onRemove: (() => void) | null;
  /** Back to the saved address, unchanged. */
  onCancel: (() => void) | null;
}) {
  const [draft, setDraft] = useState<AddressDraft>(() => draftOf(address, defaultCountry));
  const [localIssue, setLocalIssue] = useState<FormProblem | null>(null);
  const problem = localIssue ?? serverProblem;
  const rules = countryRules(draft.country);
  const regions = rules ? regionOptions(rules, navigator.language || 'en') : [];
  const set = (field: keyof AddressDraft) => (value: string) => {
    setDraft((current) => ({ ...current, [field]: value, ...(field === 'country' ? { region: '' } : {}) }));
    setLocalIssue(null);
  };
  const at = (field: keyof AddressDraft, name: string) => fieldMessage(problem, `${BASE}/${field}`, name);

  function submit(event: FormEvent) {
    event.preventDefault();
    const { address: checked, problems } = checkAddress(draft, BASE);
    if (problems.length > 0) {
      const fields: FieldMessage[] = problems.map(({ pointer, detail }) => ({ pointer, detail }));
      setLocalIssue(localProblem('The address needs your attention.', fields));
      return;
    }
    onSave(checked);
  }

  return (
    <form className="draft-address" aria-label="Shipping address" onSubmit={submit} noValidate>
      <ProblemBanner
        problem={problem}
        others={problem ? unclaimed(problem, (pointer) => pointer.startsWith(`${BASE}/`)) : []}
      />
      <div className="orders-form-grid">
        <CountrySelect
          label="Country"
          value={draft.country}
          error={at('country', 'The country')}
          onChange={set('country')}
        />
        <TextField
          label="Name"
          autoComplete="off"
          value={draft.name}
          error={at('name', 'The name')}
          onChange={(event) => set('name')(event.target.value)}
        />
        <TextField
          label="Company (optional)"
          autoComplete="off"
          value={draft.company}
          error={at('company', 'The company')}
          onChange={(event) => set('company')(event.target.value)}
        />
        <TextField
          label="Street address"
          autoComplete="off"
          value={draft.line1}
          error={at('line1', 'The street address')}
          onChange={(event) => set('line1')(event.target.value)}
        />
        <TextField
          label="Apartment, suite (optional)"
          autoComplete="off"
          value={draft.line2}
          error={at('line2', 'This line')}
          onChange={(event) => set('line2')(event.target.value)}
        />
        <TextField
          label={rules?.labels.city ?? 'City'}
          autoComplete="off"
          value={draft.city}
          error={at('city', 'The city')}
          onChange={(event) => set('city')(event.target.value)}
        />
        {rules?.uses.region && regions.length > 0 ? (
          <SelectField
            label={`${rules.labels.region}${rules.requires.region ? '' : ' (optional)'}`}
            value={draft.region}
            options={[
              { value: '', label: 'Choose…' },
              ...regions.map((r) => ({ value: r.code, label: r.label })),
            ]}
            error={at('region', `The ${rules.labels.region.toLowerCase()}`)}
            onChange={(event) => set('region')(event.target.value)}
          />
        ) : null}
        {rules === null || rules.uses.postalCode ? (
          <TextField
            label={`${rules?.labels.postalCode ?? 'Postal code'}${rules?.requires.postalCode ? '' : ' (optional)'}`}
            autoComplete="off"
            value={draft.postalCode}
            error={at('postalCode', `The ${(rules?.labels.postalCode ?? 'postal code').toLowerCase()}`)}
            onChange={(event) => set('postalCode')(event.target.value)}
          />
        ) : null}
        <TextField
          label="Phone (optional)"
          type="tel"
          autoComplete="off"
          value={draft.phone}
          error={at('phone', 'The phone')}
          onChange={(event) => set('phone')(event.target.value)}
        />
      </div>
      <div className="actions form-actions">
        <button type="submit" className="primary" disabled={busy}>
          Save address
        </button>
        {onRemove ? (
          <button type="button" disabled={busy} onClick={onRemove}>
            Remove address
          </button>
        ) : null}
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
