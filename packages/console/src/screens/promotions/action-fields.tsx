/**
 * A promotion form's "how it is used" and "what it takes off": a code the buyer types or automatic;
 * the action's kind (a percentage, an amount in the store currency, free shipping, buy X get Y), its
 * value and whether it comes off the order or the matching items; a buy X get Y's two sides, each a
 * quantity of some products or collections, and the percentage off what is got.
 */
import type { ReactNode } from 'react';
import type { PromotionActionKind } from '../../data/promotions.ts';
import { ChoiceList, RadioChoice, TextField } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import type { PromotionDraft, Selection } from './draft.ts';
import { ProductsField } from './product-picker.tsx';

export interface FieldsProps {
  draft: PromotionDraft;
  update: (changes: Partial<PromotionDraft>) => void;
  at: (pointer: string, name: string) => string | undefined;
}

export function CodeFields({ draft, update, at }: FieldsProps) {
  return (
    <>
      <RadioChoice
        legend="How buyers get it"
        value={draft.automatic ? 'automatic' : 'code'}
        choices={[
          { value: 'code', label: 'With a code', hint: 'The buyer types the code on their cart.' },
          { value: 'automatic', label: 'Automatic', hint: 'Applied whenever a cart qualifies, no code.' },
        ]}
        onChange={(how) => update({ automatic: how === 'automatic' })}
      />
      {draft.automatic ? (
        at('/code', 'The code') ? (
          <p className="field-error">{at('/code', 'The code')}</p>
        ) : null
      ) : (
        <TextField
          label="Code"
          value={draft.code}
          autoComplete="off"
          maxLength={64}
          hint="Letters, digits, hyphens and underscores; buyers may type it in any case (kept upper case)."
          error={at('/code', 'The code')}
          onChange={(event) => update({ code: event.target.value })}
        />
      )}
    </>
  );
}

const KINDS: { value: PromotionActionKind; label: string }[] = [
  { value: 'percent', label: 'A percentage off' },
  { value: 'amount', label: 'An amount off' },
  { value: 'free_shipping', label: 'Free shipping' },
  { value: 'buy_x_get_y', label: 'Buy X, get Y' },
];

export function ActionFields({
  draft,
  update,
  at,
  currency,
  onAmountProblem,
}: FieldsProps & { currency: string; onAmountProblem: (problem: string | null) => void }) {
  return (
    <>
      <RadioChoice
        legend="What it takes off"
        value={draft.kind}
        choices={KINDS}
        onChange={(kind) => update({ kind })}
      />
      <div className="orders-form-grid">
        {draft.kind === 'percent' ? (
          <TextField
            label="Percentage off (%)"
            inputMode="decimal"
            autoComplete="off"
            value={draft.percent}
            hint="0.01 to 100, like 25 or 12.5."
            error={at('/action/value', 'The percentage')}
            onChange={(event) => update({ percent: event.target.value })}
          />
        ) : null}
        {draft.kind === 'amount' ? (
          <MoneyField
            label="Amount off"
            currency={currency}
            value={draft.amount}
            error={at('/action/value', 'The amount')}
            onChange={(amount, problem) => {
              update({ amount });
              onAmountProblem(problem);
            }}
          />
        ) : null}
      </div>
      {draft.kind === 'percent' || draft.kind === 'amount' ? (
        <RadioChoice
          legend="Off what"
          value={draft.target}
          choices={[
            { value: 'order', label: 'The whole order' },
            {
              value: 'items',
              label: 'The matching items',
              hint: 'The products and collections chosen under Conditions (none chosen: every item).',
            },
          ]}
          onChange={(target) => update({ target })}
        />
      ) : null}
    </>
  );
}

function Side({
  legend,
  quantity,
  selection,
  pointer,
  collections,
  titles,
  at,
  extra,
  onChange,
}: {
  legend: string;
  quantity: string;
  selection: Selection;
  pointer: string;
  collections: readonly { id: string; title: string }[];
  titles: ReadonlyMap<string, string | null>;
  at: FieldsProps['at'];
  extra?: ReactNode;
  onChange: (changes: { quantity?: string; selection?: Selection }) => void;
}) {
  return (
    <fieldset className="promotion-side">
      <legend>{legend}</legend>
      <div className="orders-form-grid">
        <TextField
          label="Quantity"
          inputMode="numeric"
          autoComplete="off"
          value={quantity}
          hint="1 to 1000 units."
          error={at(`${pointer}/quantity`, 'The quantity')}
          onChange={(event) => onChange({ quantity: event.target.value })}
        />
        {extra}
      </div>
      <ProductsField
        legend="Of these products"
        hint="None chosen and no collection ticked: any product."
        ids={selection.productIds}
        titles={titles}
        error={at(`${pointer}/productIds`, 'The products')}
        onChange={(productIds) => onChange({ selection: { ...selection, productIds } })}
      />
      <ChoiceList
        className="choice-list scrolling"
        legend="Or from these collections"
        noneMeans="A unit counts if it is one of the products above or in one of these collections."
        choices={collections.map((collection) => ({ id: collection.id, label: collection.title }))}
        ticked={selection.collectionIds}
        empty="No collections yet."
        onChange={(collectionIds) => onChange({ selection: { ...selection, collectionIds } })}
      />
    </fieldset>
  );
}

export function BuyGetFields({
  draft,
  update,
  at,
  collections,
  titles,
}: FieldsProps & {
  collections: readonly { id: string; title: string }[];
  titles: ReadonlyMap<string, string | null>;
}) {
  return (
    <div className="promotion-buy-get">
      <Side
        legend="Buys"
        quantity={draft.buyQuantity}
        selection={draft.buy}
        pointer="/action/buy"
        collections={collections}
        titles={titles}
        at={at}
        onChange={({ quantity, selection }) =>
          update({
            ...(quantity !== undefined ? { buyQuantity: quantity } : {}),
            ...(selection ? { buy: selection } : {}),
          })
        }
      />
      <Side
        legend="Gets"
        quantity={draft.getQuantity}
        selection={draft.get}
        pointer="/action/get"
        collections={collections}
        titles={titles}
        at={at}
        extra={
          <TextField
            label="Percentage off what they get (%)"
            inputMode="decimal"
            autoComplete="off"
            value={draft.getPercent}
            hint="100 makes it free; the cheapest units qualifying are the ones got."
            error={at('/action/get/percent', 'The percentage')}
            onChange={(event) => update({ getPercent: event.target.value })}
          />
        }
        onChange={({ quantity, selection }) =>
          update({
            ...(quantity !== undefined ? { getQuantity: quantity } : {}),
            ...(selection ? { get: selection } : {}),
          })
        }
      />
    </div>
  );
}
