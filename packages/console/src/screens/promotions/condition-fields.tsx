/**
 * A promotion form's conditions (what must hold: a minimum subtotal in the store currency and a
 * minimum quantity of the matching items, the products and collections that match, customer
 * groups, markets, first order only) and its limits (what it combines with, when it runs, how many
 * uses in all and per buyer).
 */
import type { CustomerGroup } from '../../data/customer-groups.ts';
import type { Market } from '../../data/markets.ts';
import type { PromotionCombinesWith } from '../../data/promotions.ts';
import { CheckboxField, ChoiceList, PeriodFields, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import type { FieldsProps } from './action-fields.tsx';
import { ProductsField } from './product-picker.tsx';

export function ConditionFields({
  draft,
  update,
  at,
  currency,
  collections,
  groups,
  markets,
  titles,
}: FieldsProps & {
  currency: string;
  collections: readonly { id: string; title: string }[];
  groups: readonly CustomerGroup[];
  markets: readonly Market[];
  titles: ReadonlyMap<string, string | null>;
}) {
  const matching = draft.matching;
  return (
    <fieldset className="promotion-conditions">
      <legend>Conditions</legend>
      <p className="hint">What must hold for it to apply; nothing set: every cart qualifies.</p>
      <div className="orders-form-grid">
        <MoneyField
          label="Minimum subtotal (optional)"
          currency={currency}
          value={draft.minSubtotal}
          optional
          hint="Of the matching items, before discounts."
          error={at('/conditions/minSubtotal', 'The minimum subtotal')}
          onChange={(minSubtotal) => update({ minSubtotal })}
        />
        <TextField
          label="Minimum quantity (optional)"
          inputMode="numeric"
          autoComplete="off"
          value={draft.minQuantity}
          hint="Units of the matching items."
          error={at('/conditions/minQuantity', 'The minimum quantity')}
          onChange={(event) => update({ minQuantity: event.target.value })}
        />
      </div>
      <ProductsField
        legend="Matching products"
        hint="Lines of these products match; none chosen and no collection ticked: every line matches."
        ids={matching.productIds}
        titles={titles}
        error={at('/conditions/productIds', 'The products')}
        onChange={(productIds) => update({ matching: { ...matching, productIds } })}
      />
      <div className="orders-form-grid">
        <ChoiceList
          className="choice-list scrolling"
          legend="Matching collections"
          noneMeans="Lines of products in these collections match too."
          choices={collections.map((collection) => ({ id: collection.id, label: collection.title }))}
          ticked={matching.collectionIds}
          empty="No collections yet."
          onChange={(collectionIds) => update({ matching: { ...matching, collectionIds } })}
        />
        <ChoiceList
          legend="Customer groups"
          noneMeans="None ticked: every buyer. Ticked: only members of those groups, signed in."
          choices={groups.map((group) => ({ id: group.id, label: group.name }))}
          ticked={draft.customerGroupIds}
          empty="No customer groups yet."
          onChange={(customerGroupIds) => update({ customerGroupIds })}
        />
        <ChoiceList
          legend="Markets"
          noneMeans="None ticked: every market."
          choices={markets.map((market) => ({ id: market.id, label: `${market.name} (${market.currency})` }))}
          ticked={draft.marketIds}
          empty="No markets."
          onChange={(marketIds) => update({ marketIds })}
        />
      </div>
      <CheckboxField
        label="First order only"
        hint="Only for a buyer who has not ordered before."
        checked={draft.firstOrderOnly}
        onChange={(event) => update({ firstOrderOnly: event.target.checked })}
      />
    </fieldset>
  );
}

const COMBINES: { key: keyof PromotionCombinesWith; label: string; hint: string }[] = [
  { key: 'order', label: 'Order promotions', hint: 'A percentage or an amount off the whole order.' },
  { key: 'items', label: 'Item promotions', hint: 'Off matching items, or buy X get Y.' },
  { key: 'shipping', label: 'Shipping promotions', hint: 'Free shipping.' },
];

export function LimitFields({ draft, update, at }: FieldsProps) {
  return (
    <>
      <fieldset className="promotion-combines">
        <legend>Combines with</legend>
        <p className="hint">
          Two promotions apply together only if each allows the other’s kind; none ticked: it applies alone.
        </p>
        {COMBINES.map((kind) => (
          <CheckboxField
            key={kind.key}
            label={kind.label}
            hint={kind.hint}
            checked={draft.combinesWith[kind.key]}
            onChange={(event) =>
              update({ combinesWith: { ...draft.combinesWith, [kind.key]: event.target.checked } })
            }
          />
        ))}
      </fieldset>
      <PeriodFields
        startsAt={draft.startsAt}
        endsAt={draft.endsAt}
        startError={at('/startsAt', 'The start')}
        endError={at('/endsAt', 'The end')}
        onChange={update}
      />
      <div className="orders-form-grid">
        <TextField
          label="Usage limit (optional)"
          inputMode="numeric"
          autoComplete="off"
          value={draft.usageLimit}
          hint="Uses in all; empty: no limit."
          error={at('/usageLimit', 'The usage limit')}
          onChange={(event) => update({ usageLimit: event.target.value })}
        />
        <TextField
          label="Uses per customer (optional)"
          inputMode="numeric"
          autoComplete="off"
          value={draft.perCustomerLimit}
          hint="Per buyer (their account, else their email); empty: no limit."
          error={at('/perCustomerLimit', 'The limit per customer')}
          onChange={(event) => update({ perCustomerLimit: event.target.value })}
        />
      </div>
    </>
  );
}
