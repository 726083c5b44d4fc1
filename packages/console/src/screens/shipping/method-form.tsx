/**
 * A shipping method's form: its name, its kind and only that kind's prices (flat and pickup an
 * amount, free over an amount and the threshold, by weight a table of tiers), the delivery
 * estimate, whether it is offered, and the tax class its shipping is taxed at, or "Follows the
 * goods" (null, decisions `tax-classes` and `shipping-tax`). Amounts are typed in the store currency (MoneyField).
 */
import { useState } from 'react';
import {
  useSaveMethod,
  type MethodBody,
  type MethodKind,
  type ShippingMethod,
  type ShippingZone,
} from '../../data/shipping.ts';
import { SelectField, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import {
  fieldMessage,
  localProblem,
  toFormProblem,
  type FieldMessage,
  type FormProblem,
} from '../../ui/problems.ts';
import { countryName } from '@storefront/address';
import { FormPanel } from './form-panel.tsx';
import { formatGrams, KIND_LABELS } from '../shipping-parts.ts';
import { TaxClassSelect } from '../tax-parts.tsx';

interface Amount {
  value: number | null;
  /** What is wrong with the typed text, if anything (the value is then the last good one). */
  problem: string | null;
}

interface TierDraft {
  key: string;
  upTo: string;
  amount: Amount;
}

interface MethodDraft {
  name: string;
  kind: MethodKind;
  amount: Amount;
  freeOver: Amount;
  tiers: TierDraft[];
  minDays: string;
  maxDays: string;
  active: boolean;
  /** The class its shipping is taxed at; null follows the goods. */
  taxClass: string | null;
}

let tierKeys = 0;
const tierDraft = (upTo = '', value: number | null = null): TierDraft => ({
  key: `tier-${++tierKeys}`,
  upTo,
  amount: { value, problem: null },
});
const amount = (value: number | null): Amount => ({ value, problem: null });
const days = (value: number | null) => (value === null ? '' : String(value));

function methodDraft(method: ShippingMethod | null): MethodDraft {
  return {
    name: method?.name ?? '',
    kind: method?.kind ?? 'flat',
    amount: amount(method?.amount ?? null),
    freeOver: amount(method?.freeOverAmount ?? null),
    tiers: method?.weightTiers?.map((tier) => tierDraft(String(tier.upToGrams), tier.amount)) ?? [
      tierDraft(),
    ],
    minDays: days(method?.minDeliveryDays ?? null),
    maxDays: days(method?.maxDeliveryDays ?? null),
    active: method?.active ?? true,
    taxClass: method?.taxClass ?? null,
  };
}

const WHOLE = /^\d{1,8}$/;

/** Checks the draft as the server would, and builds the body of the kind's fields only. */
function methodBody(draft: MethodDraft): { body: MethodBody } | { problem: FormProblem } {
  const fields: FieldMessage[] = [];
  const money = (value: Amount, pointer: string, missing: string): number => {
    if (value.problem) fields.push({ pointer, detail: value.problem });
    else if (value.value === null) fields.push({ pointer, detail: missing });
    return value.value ?? 0;
  };
  const dayCount = (text: string, pointer: string): number | null => {
    if (text.trim() === '') return null;
    if (!WHOLE.test(text.trim()) || Number(text) > 365) {
      fields.push({ pointer, detail: 'Enter a whole number of days from 0 to 365, or leave it empty.' });
      return null;
    }
    return Number(text);
  };

  const name = draft.name.trim();
  if (name === '')
    fields.push({ pointer: '/name', detail: 'Enter a name shoppers will see, like “Ground”.' });
  const minDeliveryDays = dayCount(draft.minDays, '/minDeliveryDays');
  const maxDeliveryDays = dayCount(draft.maxDays, '/maxDeliveryDays');
  if (minDeliveryDays !== null && maxDeliveryDays !== null && minDeliveryDays > maxDeliveryDays)
    fields.push({ pointer: '/maxDeliveryDays', detail: 'Enter at least the minimum.' });
  const common = { name, minDeliveryDays, maxDeliveryDays, active: draft.active, taxClass: draft.taxClass };

  let body: MethodBody;
  if (draft.kind === 'weight') {
    if (draft.tiers.length === 0) fields.push({ pointer: '/weightTiers', detail: 'Add at least one tier.' });
    const weightTiers = draft.tiers.map((tier, i) => {
      const upToGrams = Number(tier.upTo.trim());
      if (!WHOLE.test(tier.upTo.trim()) || upToGrams < 1 || upToGrams > 10_000_000)
        fields.push({
          pointer: `/weightTiers/${i}/upToGrams`,
          detail: 'Enter a whole number of grams from 1 to 10,000,000.',
        });
      else if (i > 0 && upToGrams <= Number(draft.tiers[i - 1]!.upTo.trim()))
        fields.push({
          pointer: `/weightTiers/${i}/upToGrams`,
          detail: 'Each tier goes up to more grams than the one before.',
        });
      return { upToGrams, amount: money(tier.amount, `/weightTiers/${i}/amount`, 'Enter a price.') };
    });
    body = { ...common, kind: 'weight', weightTiers };
  } else {
    const price = money(draft.amount, '/amount', 'Enter a price (0 for free).');
    body =
      draft.kind === 'free_over'
        ? {
            ...common,
            kind: 'free_over',
            amount: price,
            freeOverAmount: money(
              draft.freeOver,
              '/freeOverAmount',
              'Enter the amount from which it is free.',
            ),
          }
        : { ...common, kind: draft.kind, amount: price };
  }
  return fields.length > 0 ? { problem: localProblem('Some fields need your attention.', fields) } : { body };
}

export function MethodForm({
  zone,
  method,
  currency,
  onDone,
}: {
  zone: ShippingZone;
  /** The method to change; null for a new one. */
  method: ShippingMethod | null;
  currency: string;
  /** After a save (with what to say), or on Cancel (null). */
  onDone: (notice: string | null) => void;
}) {
  const [draft, setDraft] = useState<MethodDraft>(() => methodDraft(method));
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const save = useSaveMethod(zone.id, (saved) =>
    onDone(method ? `The method “${saved.name}” was saved.` : `The method “${saved.name}” was added.`),
  );

  const update = (changes: Partial<MethodDraft>) => {
    setDraft((current) => ({ ...current, ...changes }));
    setProblem(null);
  };
  const updateTier = (key: string, changes: Partial<TierDraft>) =>
    update({ tiers: draft.tiers.map((tier) => (tier.key === key ? { ...tier, ...changes } : tier)) });

  function submit() {
    const checked = methodBody(draft);
    if ('problem' in checked) return setProblem(checked.problem);
    save.mutate(
      { methodId: method?.id ?? null, body: checked.body },
      { onError: (error) => setProblem(toFormProblem(error)) },
    );
  }

  const at = (pointer: string, field: string) => fieldMessage(problem, pointer, field);
  const shown = (pointer: string) =>
    /^\/(name|kind|minDeliveryDays|maxDeliveryDays|active|taxClass|weightTiers\/\d+\/(upToGrams|amount))$/.test(
      pointer,
    ) || (draft.kind === 'weight' ? pointer === '/weightTiers' : /^\/(amount|freeOverAmount)$/.test(pointer));

  return (
    <FormPanel
      title={method ? `Change the method “${method.name}”` : `New method for “${zone.name}”`}
      intro={
        method?.countryDefault ? (
          <p className="hint">
            The default for {countryName(method.countryDefault)}: a checkout there that names no method is
            charged this one. Its price is also the country&apos;s shipping on the Discounts, tax &amp;
            shipping page.
          </p>
        ) : null
      }
      problem={problem}
      shown={shown}
      submitLabel={method ? 'Save method' : 'Add method'}
      busy={save.isPending}
      onSubmit={submit}
      onCancel={() => onDone(null)}
    >
      <div className="shipping-grid">
        <TextField
          label="Method name"
          value={draft.name}
          maxLength={200}
          autoComplete="off"
          hint="Shoppers see it at checkout, like “Ground” or “Express”."
          error={at('/name', 'The name')}
          onChange={(event) => update({ name: event.target.value })}
        />
        <SelectField
          label="Kind"
          value={draft.kind}
          options={Object.entries(KIND_LABELS).map(([value, label]) => ({ value, label }))}
          error={at('/kind', 'The kind')}
          onChange={(event) => update({ kind: event.target.value as MethodKind })}
        />
      </div>
      {draft.kind === 'weight' ? (
        <WeightTiers
          tiers={draft.tiers}
          currency={currency}
          at={at}
          onChange={updateTier}
          onAdd={() => update({ tiers: [...draft.tiers, tierDraft()] })}
          onRemove={(key) => update({ tiers: draft.tiers.filter((tier) => tier.key !== key) })}
        />
      ) : (
        <div className="shipping-grid">
          <MoneyField
            label="Price"
            currency={currency}
            value={draft.amount.value}
            optional
            hint={draft.kind === 'pickup' ? 'Usually 0: free to collect.' : '0 for free shipping.'}
            error={at('/amount', 'The price')}
            onChange={(value, typed) => update({ amount: { value, problem: typed } })}
          />
          {draft.kind === 'free_over' ? (
            <MoneyField
              label="Free from"
              currency={currency}
              value={draft.freeOver.value}
              optional
              hint="Free when the goods come to at least this, after discounts."
              error={at('/freeOverAmount', 'The amount')}
              onChange={(value, typed) => update({ freeOver: { value, problem: typed } })}
            />
          ) : null}
        </div>
      )}
      <div className="shipping-grid">
        <TextField
          label="Delivery from (days, optional)"
          inputMode="numeric"
          autoComplete="off"
          value={draft.minDays}
          hint="The estimate shoppers see, like 3 to 7 days."
          error={at('/minDeliveryDays', 'The minimum')}
          onChange={(event) => update({ minDays: event.target.value })}
        />
        <TextField
          label="Delivery to (days, optional)"
          inputMode="numeric"
          autoComplete="off"
          value={draft.maxDays}
          error={at('/maxDeliveryDays', 'The maximum')}
          onChange={(event) => update({ maxDays: event.target.value })}
        />
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={draft.active}
          onChange={(event) => update({ active: event.target.checked })}
        />
        <span>Active: offered at checkout</span>
      </label>
      <div className="shipping-grid">
        <TaxClassSelect
          label="Tax class"
          value={draft.taxClass}
          inherited="Follows the goods"
          hint="Where the destination taxes shipping: following the goods splits it over their classes; a class taxes it at that class's rate."
          error={at('/taxClass', 'The tax class')}
          onChange={(taxClass) => update({ taxClass })}
        />
      </div>
    </FormPanel>
  );
}

function WeightTiers({
  tiers,
  currency,
  at,
  onChange,
  onAdd,
  onRemove,
}: {
  tiers: readonly TierDraft[];
  currency: string;
  at: (pointer: string, field: string) => string | undefined;
  onChange: (key: string, changes: Partial<TierDraft>) => void;
  onAdd: () => void;
  onRemove: (key: string) => void;
}) {
  const error = at('/weightTiers', 'The tiers');
  return (
    <fieldset className="weight-tiers">
      <legend>Prices by weight</legend>
      <p className="hint">
        A parcel pays the first tier it fits (up to and including its weight); a heavier one is not offered
        this method.
      </p>
      {tiers.map((tier, index) => {
        const grams = Number(tier.upTo);
        return (
          <fieldset key={tier.key} className="weight-tier">
            <legend>Tier {index + 1}</legend>
            <div className="shipping-grid">
              <TextField
                label="Up to (g)"
                inputMode="numeric"
                autoComplete="off"
                value={tier.upTo}
                hint={WHOLE.test(tier.upTo.trim()) && grams > 0 ? `Up to ${formatGrams(grams)}.` : undefined}
                error={at(`/weightTiers/${index}/upToGrams`, 'The weight')}
                onChange={(event) => onChange(tier.key, { upTo: event.target.value })}
              />
              <MoneyField
                label="Price"
                currency={currency}
                value={tier.amount.value}
                optional
                error={at(`/weightTiers/${index}/amount`, 'The price')}
                onChange={(value, typed) => onChange(tier.key, { amount: { value, problem: typed } })}
              />
            </div>
            {tiers.length > 1 ? (
              <button type="button" className="danger" onClick={() => onRemove(tier.key)}>
                Remove tier {index + 1}
              </button>
            ) : null}
          </fieldset>
        );
      })}
      {error ? <p className="field-error">{error}</p> : null}
      <button type="button" onClick={onAdd}>
        Add tier
      </button>
    </fieldset>
  );
}
