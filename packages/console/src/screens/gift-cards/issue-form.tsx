/**
 * Issuing a gift card by hand (decision `gift-card-codes`): its amount (a decimal in its currency,
 * sent as minor units), its currency (the store's or a market's), an optional expiry, a note for
 * staff and an optional customer. The answer's code is shown by the screen, once.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { AdminCustomer } from '../../data/customers.ts';
import { useIssueGiftCard, type IssuedGiftCard } from '../../data/gift-cards.ts';
import { ProblemBanner, SelectField, SubmitCancel, TextAreaField, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import {
  fieldMessage,
  localProblem,
  toFormProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';
import { localInputToIso } from '../integrations-parts.tsx';
import { CustomerField } from './customer-field.tsx';

const SHOWN = /^\/(initialAmount|currency|expiresAt|note|customerId)(\/|$)/;
export const NOTE_MAX = 500;

export function IssueForm({
  currencies,
  onIssued,
  onCancel,
}: {
  /** The store's currency first, then the markets' others. */
  currencies: readonly string[];
  onIssued: (card: IssuedGiftCard) => void;
  onCancel: () => void;
}) {
  const titleId = useId();
  const form = useRef<HTMLFormElement>(null);
  const banner = useRef<HTMLDivElement>(null);
  const [currency, setCurrency] = useState(currencies[0]!);
  const [amount, setAmount] = useState<number | null>(null);
  const [amountProblem, setAmountProblem] = useState<string | null>(null);
  const [expiresAt, setExpiresAt] = useState('');
  const [note, setNote] = useState('');
  const [customer, setCustomer] = useState<Pick<AdminCustomer, 'id' | 'email' | 'name'> | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const issue = useIssueGiftCard(onIssued);

  useEffect(() => {
    form.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, []);
  useEffect(() => {
    if (problem)
      (form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? banner.current)?.focus();
  }, [problem]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const fields: FieldMessage[] = [];
    if (amountProblem) fields.push({ pointer: '/initialAmount', detail: amountProblem });
    else if (!amount)
      fields.push({ pointer: '/initialAmount', detail: 'Enter the card’s amount, like 50.00.' });
    if (fields.length > 0) return setProblem(localProblem('Some fields need your attention.', fields));
    issue.mutate(
      {
        initialAmount: amount!,
        currency,
        expiresAt: localInputToIso(expiresAt),
        note: note.trim() || null,
        customerId: customer?.id ?? null,
      },
      { onError: (error) => setProblem(toFormProblem(error)) },
    );
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  return (
    <section className="panel orders-panel orders-form-panel gift-card-form" aria-labelledby={titleId}>
      <h2 id={titleId}>Issue a gift card</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <div ref={banner} tabIndex={-1} className="banner-anchor">
          <ProblemBanner problem={problem} others={problem ? unclaimed(problem, (p) => SHOWN.test(p)) : []} />
        </div>
        <div className="orders-form-grid">
          <MoneyField
            label="Amount"
            currency={currency}
            value={amount}
            error={at('/initialAmount', 'The amount')}
            onChange={(next, trouble) => {
              setAmount(next);
              setAmountProblem(trouble);
              setProblem(null);
            }}
          />
          {currencies.length > 1 ? (
            <SelectField
              label="Currency"
              value={currency}
              options={currencies}
              error={at('/currency', 'The currency')}
              onChange={(event) => setCurrency(event.target.value)}
            />
          ) : null}
          <TextField
            label="Expires (optional)"
            type="datetime-local"
            value={expiresAt}
            hint="In your time zone; empty: never."
            error={at('/expiresAt', 'The expiry')}
            onChange={(event) => setExpiresAt(event.target.value)}
          />
        </div>
        <TextAreaField
          label="Note (optional)"
          value={note}
          maxLength={NOTE_MAX}
          rows={2}
          hint="For staff, like “Raffle prize”; never shown to buyers."
          error={at('/note', 'The note')}
          onChange={(event) => setNote(event.target.value)}
        />
        <CustomerField chosen={customer} error={at('/customerId', 'The customer')} onChange={setCustomer} />
        <SubmitCancel
          className="actions form-actions"
          label="Issue gift card"
          busyLabel="Issuing…"
          busy={issue.isPending}
          onCancel={onCancel}
        />
      </form>
    </section>
  );
}
