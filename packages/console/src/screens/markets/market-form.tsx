/**
 * A market's form (decision `markets`): its name, countries (two-letter codes typed or added by
 * name), currency, exchange rate, rounding (with an example worked out at the rate typed) and
 * whether its prices include tax. The default market takes only its name and tax setting. The form
 * checks what it can before sending; the server's refusals are shown at their fields (a country
 * another market holds, 409 `market_conflict`, at the countries), the rest in the banner.
 */
import { useId, type FormEvent } from 'react';
import { useSaveMarket, type Market } from '../../data/markets.ts';
import { CheckboxField, ProblemBanner, SubmitCancel, TextField } from '../../ui/components.tsx';
import { fieldMessage, toFormProblem, unclaimed, type FormProblem } from '../../ui/problems.ts';
import { useFormDraft, useFormFocus } from '../../ui/form-state.ts';
import { CountryFields, CurrencyFields } from './market-fields.tsx';
import { checkMarket, marketDraft, marketSave, NAME_MAX, type MarketDraft } from './draft.ts';

const SHOWN = /^\/(name|countries|currency|exchangeRate|rounding|pricesIncludeTax)(\/|$)/;

/**
 * Every message of the problem at `pointer` or under it (`/countries/2`), as sentences: a conflict
 * names each country another market holds.
 */
function messagesAt(problem: FormProblem | null, pointer: string, name: string): string | undefined {
  const details = (problem?.fields ?? [])
    .filter((field) => field.pointer === pointer || field.pointer.startsWith(`${pointer}/`))
    .map((field) => (/^[a-z]/.test(field.detail) ? `${name} ${field.detail}` : field.detail))
    .map((detail) => (/[.!?)]$/.test(detail) ? detail : `${detail}.`));
  return details.length > 0 ? [...new Set(details)].join(' ') : undefined;
}

export function MarketForm({
  market,
  storeCurrency,
  onDone,
}: {
  /** The market to change; null for a new one. */
  market: Market | null;
  storeCurrency: string;
  /** After a save (with what to say), or on Cancel (null). */
  onDone: (notice: string | null) => void;
}) {
  const titleId = useId();
  const { draft, update, problem, setProblem } = useFormDraft<MarketDraft>(() => marketDraft(market));
  const { form, banner } = useFormFocus(problem);
  const save = useSaveMarket((saved) =>
    onDone(market ? `The market “${saved.name}” was saved.` : `The market “${saved.name}” was created.`),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const local = checkMarket(draft, market, storeCurrency);
    if (local) return setProblem(local);
    const call = marketSave(draft, market);
    if (!call) return onDone('Nothing changed.');
    save.mutate(call, { onError: (error) => setProblem(toFormProblem(error)) });
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  const isDefault = market?.default === true;
  return (
    <section className="panel orders-panel orders-form-panel market-form" aria-labelledby={titleId}>
      <h2 id={titleId}>{market ? `Change the market “${market.name}”` : 'New market'}</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <div ref={banner} tabIndex={-1} className="banner-anchor">
          <ProblemBanner
            problem={problem}
            others={problem ? unclaimed(problem, (pointer) => SHOWN.test(pointer)) : []}
          />
        </div>
        <div className="orders-form-grid">
          <TextField
            label="Market name"
            value={draft.name}
            maxLength={NAME_MAX}
            autoComplete="off"
            hint="For you and your reports, like “Europe” or “Japan”."
            error={at('/name', 'The name')}
            onChange={(event) => update({ name: event.target.value })}
          />
        </div>
        {isDefault ? (
          <p>
            Sells to <strong>all other countries</strong> (those no other market names) in{' '}
            <strong>{storeCurrency}</strong>, the store’s currency, at the variants’ own prices.
          </p>
        ) : (
          <>
            <CountryFields
              value={draft.countries}
              error={messagesAt(problem, '/countries', 'The countries')}
              onChange={(countries) => update({ countries })}
            />
            <CurrencyFields draft={draft} storeCurrency={storeCurrency} at={at} update={update} />
          </>
        )}
        <CheckboxField
          role="switch"
          label="Prices include tax"
          checked={draft.pricesIncludeTax}
          hint={
            isDefault
              ? 'The store setting (also on the Settings page): prices are gross, tax is part of them.'
              : 'Prices in this market are gross: tax is part of them, as shoppers in the EU expect.'
          }
          onChange={(event) => update({ pricesIncludeTax: event.target.checked })}
        />
        {at('/pricesIncludeTax', 'Prices include tax') ? (
          <p className="field-error">{at('/pricesIncludeTax', 'Prices include tax')}</p>
        ) : null}
        <SubmitCancel
          className="actions form-actions"
          label={market ? 'Save market' : 'Create market'}
          busyLabel="Saving…"
          busy={save.isPending}
          onCancel={() => onDone(null)}
        />
      </form>
    </section>
  );
}
