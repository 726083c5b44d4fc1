/**
 * What staff change on a gift card's page (decision `gift-card-ledger`): its note and expiry, and its
 * balance, adjusted up or down with a reason kept in its ledger (never below zero: 409
 * `gift_card_balance_too_low`, said at the amount). Disabling is on the page itself.
 */
import { useId, useState, type FormEvent } from 'react';
import { useUpdateGiftCard, type GiftCardDetail } from '../../data/gift-cards.ts';
import { ProblemBanner, RadioChoice, TextAreaField, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { formatMoney } from '../../ui/money.ts';
import {
  fieldMessage,
  isStatus,
  toFormProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';
import { localInputToIso, toLocalInput } from '../integrations-parts.tsx';
import { NOTE_MAX } from './issue-form.tsx';

export function DetailsForm({ card, onSaved }: { card: GiftCardDetail; onSaved: (message: string) => void }) {
  const titleId = useId();
  const [note, setNote] = useState(card.note ?? '');
  const [expiresAt, setExpiresAt] = useState(card.expiresAt ? toLocalInput(new Date(card.expiresAt)) : '');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const save = useUpdateGiftCard(card.id, () => onSaved('The card’s details were saved.'));

  function submit(event: FormEvent) {
    event.preventDefault();
    const body: { note?: string | null; expiresAt?: string | null } = {};
    if ((note.trim() || null) !== card.note) body.note = note.trim() || null;
    const shown = card.expiresAt ? toLocalInput(new Date(card.expiresAt)) : '';
    if (expiresAt !== shown) body.expiresAt = localInputToIso(expiresAt);
    if (Object.keys(body).length === 0) return onSaved('Nothing changed.');
    save.mutate(body, { onError: (error) => setProblem(toFormProblem(error)) });
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>Details</h2>
      <ProblemBanner
        problem={problem}
        others={problem ? unclaimed(problem, (pointer) => /^\/(note|expiresAt)$/.test(pointer)) : []}
      />
      <TextAreaField
        label="Note"
        value={note}
        maxLength={NOTE_MAX}
        rows={2}
        hint="For staff; never shown to buyers."
        error={at('/note', 'The note')}
        onChange={(event) => {
          setNote(event.target.value);
          setProblem(null);
        }}
      />
      <TextField
        label="Expires"
        type="datetime-local"
        value={expiresAt}
        hint="In your time zone; empty: never."
        error={at('/expiresAt', 'The expiry')}
        onChange={(event) => {
          setExpiresAt(event.target.value);
          setProblem(null);
        }}
      />
      <button type="submit" className="primary" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save details'}
      </button>
    </form>
  );
}

export function AdjustForm({ card, onSaved }: { card: GiftCardDetail; onSaved: (message: string) => void }) {
  const titleId = useId();
  const currency = card.balance.currency;
  const [direction, setDirection] = useState<'add' | 'take'>('add');
  const [amount, setAmount] = useState<number | null>(null);
  const [amountProblem, setAmountProblem] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const adjust = useUpdateGiftCard(card.id, (saved) => {
    setAmount(null);
    setReason('');
    onSaved(`The balance is now ${formatMoney(saved.balance.amount, currency)}.`);
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const fields: FieldMessage[] = [];
    if (amountProblem || !amount)
      fields.push({
        pointer: '/adjustment/amount',
        detail: amountProblem ?? 'Enter the amount, like 10.00.',
      });
    if (reason.trim() === '')
      fields.push({ pointer: '/adjustment/reason', detail: 'Say why, like “Goodwill for a late parcel”.' });
    if (fields.length > 0) return setProblem({ message: 'Some fields need your attention.', fields });
    adjust.mutate(
      { adjustment: { amount: direction === 'add' ? amount! : -amount!, reason: reason.trim() } },
      {
        onError: (error) => {
          // Below zero (409): said at the amount, in money (the server's sentence counts minor units).
          const tooMuch = `Take off at most ${formatMoney(card.balance.amount, currency)}: the balance never goes below zero.`;
          setProblem(
            isStatus(error, 409)
              ? {
                  message: 'The balance is too low.',
                  fields: [{ pointer: '/adjustment/amount', detail: tooMuch }],
                }
              : toFormProblem(error),
          );
        },
      },
    );
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>Adjust the balance</h2>
      <ProblemBanner
        problem={problem}
        others={problem ? unclaimed(problem, (pointer) => pointer.startsWith('/adjustment')) : []}
      />
      <p className="hint">Kept in the balance history with its reason; the balance never goes below zero.</p>
      <RadioChoice
        legend="Change"
        value={direction}
        choices={[
          { value: 'add', label: 'Add to the balance' },
          { value: 'take', label: 'Take off the balance' },
        ]}
        onChange={setDirection}
      />
      <MoneyField
        label="Amount"
        currency={currency}
        value={amount}
        error={at('/adjustment/amount', 'The amount')}
        onChange={(next, trouble) => {
          setAmount(next);
          setAmountProblem(trouble);
          setProblem(null);
        }}
      />
      <TextField
        label="Reason"
        value={reason}
        maxLength={200}
        autoComplete="off"
        error={at('/adjustment/reason', 'The reason')}
        onChange={(event) => {
          setReason(event.target.value);
          setProblem(null);
        }}
      />
      <button type="submit" className="primary" disabled={adjust.isPending}>
        {adjust.isPending ? 'Adjusting…' : 'Adjust balance'}
      </button>
    </form>
  );
}
