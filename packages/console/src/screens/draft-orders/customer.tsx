/**
 * Who a draft is for: a customer found by email or name (the customers list's search), or an email
 * typed (the server finds its customer, or makes a guest as checkout does). Their customer groups
 * price the draft.
 */
import { useEffect, useId, useState } from 'react';
import { TextField } from '../../ui/components.tsx';
import { CustomerSearch, customerLabel } from '../customer-parts.tsx';

/** The customer chosen: by id (found) or by email (typed). */
export type Buyer = { customerId: string; email: string; name: string | null } | { email: string };

export const buyerBody = (buyer: Buyer) =>
  'customerId' in buyer ? { customerId: buyer.customerId } : { email: buyer.email };

export function CustomerChooser({
  current,
  error,
  emailError,
  disabled,
  onChoose,
}: {
  /** The draft's customer now (its email), or null for a new draft with nobody yet. */
  current: { email: string; name?: string | null } | null;
  /** A problem of the customer as a whole (`/customerId`). */
  error?: string | undefined;
  /** A problem of the typed email (`/email`): the search stays open with the email as typed. */
  emailError?: string | undefined;
  disabled: boolean;
  onChoose: (buyer: Buyer | null) => void;
}) {
  const hintId = useId();
  const [changing, setChanging] = useState(current === null);
  const [typed, setTyped] = useState('');
  const [typedProblem, setTypedProblem] = useState<string | null>(null);
  const showSearch = changing || current === null || emailError !== undefined;
  // Once the draft has its new customer, the search closes and starts empty next time.
  useEffect(() => {
    setChanging(false);
    setTyped('');
  }, [current?.email]);

  return (
    <fieldset className="draft-customer" aria-describedby={hintId}>
      {/* The section's heading says it; the legend names the group for screen readers. */}
      <legend className="visually-hidden">Customer</legend>
      <p className="hint draft-customer-hint" id={hintId}>
        Find a customer, or type an email: its customer is found, or recorded as a guest. Their customer
        groups’ prices apply.
      </p>
      {error ? <p className="field-error">{error}</p> : null}
      {current ? (
        <p className="chosen-customer">
          <span>{customerLabel(current)}</span>{' '}
          {showSearch ? null : (
            <button type="button" disabled={disabled} onClick={() => setChanging(true)}>
              Change customer
            </button>
          )}
        </p>
      ) : null}
      {showSearch ? (
        <div className="draft-customer-search">
          <CustomerSearch
            key={current?.email}
            disabled={disabled}
            onChoose={(customer) =>
              onChoose({ customerId: customer.id, email: customer.email, name: customer.name })
            }
          />
          <div className="draft-inline-form">
            <TextField
              label="Or an email"
              type="email"
              value={typed}
              autoComplete="off"
              error={typedProblem ?? emailError}
              onChange={(event) => {
                setTyped(event.target.value);
                setTypedProblem(null);
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter') event.preventDefault();
              }}
            />
            <button
              type="button"
              disabled={disabled}
              onClick={() => {
                const email = typed.trim();
                if (!email.includes('@')) {
                  setTypedProblem('Enter an email address, like ada@example.com.');
                  return;
                }
                onChoose({ email });
              }}
            >
              Use this email
            </button>
          </div>
          {current && changing ? (
            <button type="button" className="link" onClick={() => setChanging(false)}>
              Keep {current.email}
            </button>
          ) : null}
        </div>
      ) : null}
    </fieldset>
  );
}
