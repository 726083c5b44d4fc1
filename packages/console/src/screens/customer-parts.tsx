/**
 * Finding a customer in a form (a gift card's owner, a draft order's buyer): a search box by email or
 * name (the customers list's search, settled as typing pauses) and the first few matches, each with
 * a Choose button. Enter searches; it never submits the form around it. A form that wants the box
 * empty again (its customer changed) gives it a new `key`.
 */
import { useState } from 'react';
import { useCustomers, type AdminCustomer } from '../data/customers.ts';
import { PickerSearchField, useDebounced } from '../ui/search.tsx';

const SHOWN = 5;

export type FoundCustomer = Pick<AdminCustomer, 'id' | 'email' | 'name'>;

/** "Ada Lovelace · ada@example.com", or the email alone. */
export const customerLabel = (customer: { email: string; name?: string | null }): string =>
  `${customer.name ? `${customer.name} · ` : ''}${customer.email}`;

export function CustomerSearch({
  disabled = false,
  onChoose,
}: {
  disabled?: boolean;
  onChoose: (customer: FoundCustomer) => void;
}) {
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 250);
  const results = useCustomers(q ? { q } : {});
  const found = q ? (results.data?.pages[0]?.items ?? []).slice(0, SHOWN) : [];
  return (
    <>
      <PickerSearchField label="Find a customer" value={text} placeholder="Email or name" onText={setText} />
      {q && results.isFetched && found.length === 0 ? (
        <p className="muted">No customer matches “{q}”.</p>
      ) : null}
      {found.length > 0 ? (
        <ul className="picker-results" aria-label="Customers found">
          {found.map((customer) => (
            <li key={customer.id}>
              <span>{customerLabel(customer)}</span>
              <button type="button" disabled={disabled} onClick={() => onChoose(customer)}>
                Choose<span className="visually-hidden"> {customer.email}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
