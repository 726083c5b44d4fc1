/**
 * A price list form's choices: its kind (sale or override, said in plain words), who it is for (the
 * markets and customer groups it is limited to: none ticked means all) and when (start and end, in
 * the browser's time zone).
 */
import { useId } from 'react';
import type { CustomerGroup } from '../../data/customer-groups.ts';
import type { Market } from '../../data/markets.ts';
import type { PriceListKind } from '../../data/price-lists.ts';
import { ChoiceList, PeriodFields } from '../../ui/components.tsx';
import type { PriceListDraft } from './draft.ts';

const KINDS: { value: PriceListKind; label: string; hint: string }[] = [
  {
    value: 'sale',
    label: 'Sale',
    hint: 'A reduced price, shown against the regular one crossed out. When several sales apply, the lowest price wins; a sale at or above the regular price is not applied.',
  },
  {
    value: 'override',
    label: 'Override',
    hint: 'A price that replaces the regular one, like a wholesale or VIP price, with nothing crossed out. When several apply (and no sale does), the newest list wins.',
  },
];

export function KindField({
  value,
  onChange,
}: {
  value: PriceListKind;
  onChange: (kind: PriceListKind) => void;
}) {
  const id = useId();
  return (
    <fieldset className="price-list-kinds">
      <legend>Type</legend>
      {KINDS.map((kind) => (
        <div key={kind.value} className="field">
          <label className="checkbox">
            <input
              type="radio"
              name={id}
              value={kind.value}
              checked={value === kind.value}
              aria-describedby={`${id}-${kind.value}`}
              onChange={() => onChange(kind.value)}
            />
            <span>{kind.label}</span>
          </label>
          <p className="hint" id={`${id}-${kind.value}`}>
            {kind.hint}
          </p>
        </div>
      ))}
    </fieldset>
  );
}

export function ScopeFields({
  draft,
  markets,
  groups,
  update,
}: {
  draft: PriceListDraft;
  markets: readonly Market[];
  groups: readonly CustomerGroup[];
  update: (changes: Partial<PriceListDraft>) => void;
}) {
  return (
    <div className="orders-form-grid">
      <ChoiceList
        className="price-list-choices"
        legend="Markets"
        noneMeans="None ticked: every market. Give a price in each market’s currency: list prices are never converted."
        choices={markets.map((market) => ({ id: market.id, label: `${market.name} (${market.currency})` }))}
        ticked={draft.marketIds}
        empty="No markets."
        onChange={(marketIds) => update({ marketIds })}
      />
      <ChoiceList
        className="price-list-choices"
        legend="Customer groups"
        noneMeans="None ticked: every buyer, guests too. Ticked: only members of those groups, signed in to the shop."
        choices={groups.map((group) => ({ id: group.id, label: group.name }))}
        ticked={draft.customerGroupIds}
        empty="No customer groups yet."
        onChange={(customerGroupIds) => update({ customerGroupIds })}
      />
    </div>
  );
}

export function DateFields({
  draft,
  at,
  update,
}: {
  draft: PriceListDraft;
  at: (pointer: string, name: string) => string | undefined;
  update: (changes: Partial<PriceListDraft>) => void;
}) {
  return (
    <PeriodFields
      startsAt={draft.startsAt}
      endsAt={draft.endsAt}
      startError={at('/startsAt', 'The start')}
      endError={at('/endsAt', 'The end')}
      onChange={update}
    />
  );
}
