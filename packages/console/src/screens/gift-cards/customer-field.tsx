/**
 * The customer a gift card belongs to (optional): the chosen one by email with Remove, and a search
 * by email or name (the customers list's) to choose one.
 */
import { useId } from 'react';
import { CustomerSearch, customerLabel, type FoundCustomer } from '../customer-parts.tsx';

export function CustomerField({
  chosen,
  error,
  onChange,
}: {
  chosen: FoundCustomer | null;
  error?: string | undefined;
  onChange: (customer: FoundCustomer | null) => void;
}) {
  const hintId = useId();
  return (
    <fieldset className="gift-card-customer" aria-describedby={hintId}>
      <legend>Customer (optional)</legend>
      <p className="hint" id={hintId}>
        The card is theirs: it is in their data export. Nobody chosen: the card is whoever holds the code.
      </p>
      {error ? <p className="field-error">{error}</p> : null}
      {chosen ? (
        <p className="chosen-customer">
          <span>{customerLabel(chosen)}</span>{' '}
          <button type="button" onClick={() => onChange(null)}>
            Remove<span className="visually-hidden"> {chosen.email}</span>
          </button>
        </p>
      ) : (
        <CustomerSearch onChoose={onChange} />
      )}
    </fieldset>
  );
}
