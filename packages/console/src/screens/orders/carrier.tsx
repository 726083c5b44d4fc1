/**
 * The carrier of a shipment as the fulfil and tracking forms choose it (a listed name or "Other…"),
 * and its tracking number and link.
 */
import { KNOWN_CARRIERS } from '../../data/orders.ts';
import { SelectField, TextField } from '../../ui/components.tsx';
import type { ChangeEvent } from 'react';
import { fieldMessage, type FormProblem } from '../../ui/problems.ts';

export const OTHER = 'other';

export const CARRIER_OPTIONS = [
  { value: '', label: 'None given' },
  ...KNOWN_CARRIERS.map((name) => ({ value: name, label: name })),
  { value: OTHER, label: 'Other…' },
];

/** The carrier as the forms' select holds it: a listed name, "Other…" with its name, or none. */
export function carrierChoice(carrier: string | null): { carrier: string; otherCarrier: string } {
  if (carrier === null) return { carrier: '', otherCarrier: '' };
  return (KNOWN_CARRIERS as readonly string[]).includes(carrier)
    ? { carrier, otherCarrier: '' }
    : { carrier: OTHER, otherCarrier: carrier };
}

/**
 * The carrier fields of both forms: the select, and the name typed when "Other…" is chosen. The
 * server's "/carrier" problem is shown under the one that holds the carrier.
 */
export function CarrierFields({
  options,
  carrier,
  otherCarrier,
  problem,
  onChange,
}: {
  options: { value: string; label: string }[];
  carrier: string;
  otherCarrier: string;
  problem: FormProblem | null;
  /** The change handler of each of the two fields. */
  onChange: (
    field: 'carrier' | 'otherCarrier',
  ) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;
}) {
  const error = fieldMessage(problem, '/carrier', 'The carrier');
  return (
    <>
      <SelectField
        label="Carrier"
        options={options}
        value={carrier}
        error={carrier === OTHER ? undefined : error}
        onChange={onChange('carrier')}
      />
      {carrier === OTHER ? (
        <TextField
          label="Carrier name"
          maxLength={100}
          autoComplete="off"
          value={otherCarrier}
          error={error}
          onChange={onChange('otherCarrier')}
        />
      ) : null}
    </>
  );
}

/**
 * The tracking fields of both forms: the number, and the link to the carrier's page (`urlHint`
 * says what an empty one does).
 */
export function TrackingFields({
  numberLabel,
  urlLabel,
  urlHint,
  trackingNumber,
  trackingUrl,
  problem,
  onChange,
}: {
  numberLabel: string;
  urlLabel: string;
  urlHint: string;
  trackingNumber: string;
  trackingUrl: string;
  problem: FormProblem | null;
  /** The change handler of each of the two fields. */
  onChange: (field: 'trackingNumber' | 'trackingUrl') => (event: ChangeEvent<HTMLInputElement>) => void;
}) {
  return (
    <>
      <TextField
        label={numberLabel}
        maxLength={100}
        autoComplete="off"
        value={trackingNumber}
        error={fieldMessage(problem, '/trackingNumber', 'The tracking number')}
        onChange={onChange('trackingNumber')}
      />
      <TextField
        label={urlLabel}
        type="url"
        maxLength={2000}
        autoComplete="off"
        placeholder="https://"
        hint={urlHint}
        value={trackingUrl}
        error={fieldMessage(problem, '/trackingUrl', 'The tracking URL')}
        onChange={onChange('trackingUrl')}
      />
    </>
  );
}
