/**
 * A draft's shipping and staff's discount, as the API takes them: the destination's automatic
 * method (as at checkout), one of the store's methods, or a custom title and amount; a percentage
 * (up to 2 decimals) or an amount off, with its reason, taken off what the promotions left. Amounts
 * are typed in the draft's currency and sent in minor units; the server prices the result.
 */
import { useState, type FormEvent } from 'react';
import type { DraftOrder, DraftOrderPatch } from '../../data/draft-orders.ts';
import { useShippingZones } from '../../data/shipping.ts';
import { ProblemBanner, RadioChoice, SelectField, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { bpsToPercentText, formatMoney, percentTextToBps } from '../../ui/money.ts';
import {
  fieldMessage,
  localProblem,
  unclaimed,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';

type ShippingMode = 'automatic' | 'method' | 'custom';

export function ShippingForm({
  draft,
  busy,
  problem: serverProblem,
  onSave,
}: {
  draft: DraftOrder;
  busy: boolean;
  problem: FormProblem | null;
  onSave: (patch: DraftOrderPatch) => void;
}) {
  const zones = useShippingZones();
  const [mode, setMode] = useState<ShippingMode>(
    draft.customShipping ? 'custom' : draft.shippingMethodId ? 'method' : 'automatic',
  );
  const [methodId, setMethodId] = useState(draft.shippingMethodId ?? '');
  const [title, setTitle] = useState(draft.customShipping?.title ?? '');
  const [amount, setAmount] = useState<number | null>(draft.customShipping?.amount.amount ?? null);
  const [amountIssue, setAmountIssue] = useState<string | null>(null);
  const [localIssue, setLocalIssue] = useState<FormProblem | null>(null);
  const problem = localIssue ?? serverProblem;
  const methods = (zones.data?.items ?? []).flatMap((zone) =>
    zone.methods.map((method) => ({ value: method.id, label: `${method.name} (${zone.name})` })),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const fields: FieldMessage[] = [];
    if (mode === 'method' && !methodId)
      fields.push({ pointer: '/shippingMethodId', detail: 'Choose a shipping method.' });
    if (mode === 'custom') {
      if (!title.trim())
        fields.push({ pointer: '/customShipping/title', detail: 'Enter a title, like Courier.' });
      if (amountIssue) fields.push({ pointer: '/customShipping/amount', detail: amountIssue });
      else if (amount === null)
        fields.push({ pointer: '/customShipping/amount', detail: 'Enter the amount, like 7.00.' });
    }
    if (fields.length > 0) return setLocalIssue(localProblem('The shipping needs your attention.', fields));
    onSave(
      mode === 'automatic'
        ? { shippingMethodId: null, customShipping: null }
        : mode === 'method'
          ? { shippingMethodId: methodId, customShipping: null }
          : { shippingMethodId: null, customShipping: { title: title.trim(), amount: amount! } },
    );
  }

  const shown = /^\/(shippingMethodId|customShipping)(\/|$)/;
  return (
    <form className="draft-shipping" aria-label="Shipping method" onSubmit={submit} noValidate>
      <ProblemBanner problem={problem} others={problem ? unclaimed(problem, (p) => shown.test(p)) : []} />
      <p>
        Charged now:{' '}
        {draft.shipping ? (
          <>
            {draft.shipping.name}, {formatMoney(draft.shipping.amount.amount, draft.shipping.amount.currency)}
          </>
        ) : (
          <span className="muted">nothing (no address yet, or nothing to ship)</span>
        )}
      </p>
      <RadioChoice<ShippingMode>
        legend="How it ships"
        value={mode}
        choices={[
          { value: 'automatic', label: 'Automatic: the destination’s method, as at checkout' },
          { value: 'method', label: 'One of the store’s methods' },
          { value: 'custom', label: 'Custom: a title and an amount' },
        ]}
        onChange={(next) => {
          setMode(next);
          setLocalIssue(null);
        }}
      />
      {mode === 'method' ? (
        <SelectField
          label="Shipping method"
          value={methodId}
          options={[{ value: '', label: 'Choose…' }, ...methods]}
          hint="It must serve the shipping address."
          error={fieldMessage(problem, '/shippingMethodId', 'The method')}
          onChange={(event) => {
            setMethodId(event.target.value);
            setLocalIssue(null);
          }}
        />
      ) : null}
      {mode === 'custom' ? (
        <div className="orders-form-grid">
          <TextField
            label="Shipping title"
            value={title}
            maxLength={200}
            error={fieldMessage(problem, '/customShipping/title', 'The title')}
            onChange={(event) => {
              setTitle(event.target.value);
              setLocalIssue(null);
            }}
          />
          <MoneyField
            label="Shipping amount"
            currency={draft.currency}
            value={amount}
            error={fieldMessage(problem, '/customShipping/amount', 'The amount')}
            onChange={(next, issue) => {
              setAmount(next);
              setAmountIssue(issue);
              setLocalIssue(null);
            }}
          />
        </div>
      ) : null}
      <div className="actions form-actions">
        <button type="submit" className="primary" disabled={busy}>
          Save shipping
        </button>
      </div>
    </form>
  );
}

export function DiscountForm({
  draft,
  busy,
  problem: serverProblem,
  onSave,
}: {
  draft: DraftOrder;
  busy: boolean;
  problem: FormProblem | null;
  onSave: (patch: DraftOrderPatch) => void;
}) {
  const current = draft.discount;
  const [kind, setKind] = useState<'percent' | 'amount'>(current?.kind ?? 'percent');
  const [percent, setPercent] = useState(
    current?.kind === 'percent' ? bpsToPercentText(Math.round(current.value * 100)) : '',
  );
  const [amount, setAmount] = useState<number | null>(current?.kind === 'amount' ? current.value : null);
  const [amountIssue, setAmountIssue] = useState<string | null>(null);
  const [reason, setReason] = useState(current?.reason ?? '');
  const [localIssue, setLocalIssue] = useState<FormProblem | null>(null);
  const problem = localIssue ?? serverProblem;

  function submit(event: FormEvent) {
    event.preventDefault();
    const fields: FieldMessage[] = [];
    let value = 0;
    if (kind === 'percent') {
      const parsed = percentTextToBps(percent);
      if (!parsed.ok) fields.push({ pointer: '/discount/value', detail: parsed.message });
      else if (parsed.bps === 0)
        fields.push({ pointer: '/discount/value', detail: 'Enter a percentage above 0, like 10.' });
      // Basis points are hundredths of a percent: 1250 is 12.5 (the API's `value`).
      else value = Number(bpsToPercentText(parsed.bps));
    } else if (amountIssue) fields.push({ pointer: '/discount/value', detail: amountIssue });
    else if (!amount) fields.push({ pointer: '/discount/value', detail: 'Enter the amount off, like 5.00.' });
    else value = amount;
    if (!reason.trim()) fields.push({ pointer: '/discount/reason', detail: 'Say why, like “Trade fair”.' });
    if (fields.length > 0) return setLocalIssue(localProblem('The discount needs your attention.', fields));
    onSave({ discount: { kind, value, reason: reason.trim() } });
  }

  const shown = /^\/discount(\/|$)/;
  return (
    <form className="draft-discount" aria-label="Discount" onSubmit={submit} noValidate>
      <ProblemBanner problem={problem} others={problem ? unclaimed(problem, (p) => shown.test(p)) : []} />
      {current ? (
        <p>
          Takes off {formatMoney(current.amount.amount, current.amount.currency)} now ({current.reason}).
        </p>
      ) : (
        <p className="muted">No discount. It comes off what the automatic promotions leave.</p>
      )}
      <RadioChoice<'percent' | 'amount'>
        legend="Kind"
        value={kind}
        choices={[
          { value: 'percent', label: 'A percentage' },
          { value: 'amount', label: 'An amount' },
        ]}
        onChange={(next) => {
          setKind(next);
          setLocalIssue(null);
        }}
      />
      <div className="orders-form-grid">
        {kind === 'percent' ? (
          <TextField
            label="Percentage off"
            inputMode="decimal"
            value={percent}
            hint="Up to 2 decimals, like 12.5."
            error={fieldMessage(problem, '/discount/value', 'The percentage')}
            onChange={(event) => {
              setPercent(event.target.value);
              setLocalIssue(null);
            }}
          />
        ) : (
          <MoneyField
            label="Amount off"
            currency={draft.currency}
            value={amount}
            error={fieldMessage(problem, '/discount/value', 'The amount')}
            onChange={(next, issue) => {
              setAmount(next);
              setAmountIssue(issue);
              setLocalIssue(null);
            }}
          />
        )}
        <TextField
          label="Reason"
          value={reason}
          maxLength={500}
          error={fieldMessage(problem, '/discount/reason', 'The reason')}
          onChange={(event) => {
            setReason(event.target.value);
            setLocalIssue(null);
          }}
        />
      </div>
      <div className="actions form-actions">
        <button type="submit" className="primary" disabled={busy}>
          Apply discount
        </button>
        {current ? (
          <button type="button" disabled={busy} onClick={() => onSave({ discount: null })}>
            Remove discount
          </button>
        ) : null}
      </div>
    </form>
  );
}
