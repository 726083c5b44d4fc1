/** The search's price range: two fields in the shopper's market's currency, checked before they are sent. */
import { currencyExponent, formatMoney, minorToDecimal } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { priceToMinor } from '../../format.ts';
import { goToSearch, type SearchState } from '../../search.ts';
import type { FacetSet } from './use-facets.ts';

/** Minor units as the text of a price field ("12.5" for 1250 in USD, "50" for 5000); '' for none. */
function toField(amount: number | null, exponent: number): string {
  if (amount === null) return '';
  return minorToDecimal(amount, exponent)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

export function PriceFilter({
  state,
  facets,
  currency,
}: {
  state: SearchState;
  facets: FacetSet | undefined;
  currency: string | undefined;
}) {
  const exponent = currency ? currencyExponent(currency) : 2;
  const [min, setMin] = useState(() => toField(state.minPrice, exponent));
  const [max, setMax] = useState(() => toField(state.maxPrice, exponent));
  const [problem, setProblem] = useState<string | null>(null);
  // Back, forward or "Clear all filters" change the address: the fields follow it.
  useEffect(() => {
    setMin(toField(state.minPrice, exponent));
    setMax(toField(state.maxPrice, exponent));
    setProblem(null);
  }, [state.minPrice, state.maxPrice, exponent]);

  function apply(event: Event) {
    event.preventDefault();
    const minPrice = priceToMinor(min, exponent);
    const maxPrice = priceToMinor(max, exponent);
    if (Number.isNaN(minPrice) || Number.isNaN(maxPrice)) {
      setProblem('Enter prices as numbers, like 12 or 12.50.');
      return;
    }
    if (minPrice !== null && maxPrice !== null && minPrice > maxPrice) {
      setProblem('The lowest price must not be above the highest.');
      return;
    }
    setProblem(null);
    goToSearch({ ...state, minPrice, maxPrice, pages: 1 });
  }

  const range = facets?.main.price;
  const hint =
    range && range.min !== null && range.max !== null && currency
      ? `${formatMoney(range.min, currency)} – ${formatMoney(range.max, currency)} here`
      : null;
  return (
    <form class="filter-group price-filter" onSubmit={apply} noValidate>
      <fieldset aria-describedby={hint ? 'price-hint' : undefined}>
        <legend>Price{currency ? ` (${currency})` : ''}</legend>
        {hint ? (
          <p id="price-hint" class="field-hint">
            {hint}
          </p>
        ) : null}
        <div class="price-fields">
          <PriceField name="minPrice" label="Min" value={min} invalid={problem !== null} onInput={setMin} />
          <PriceField name="maxPrice" label="Max" value={max} invalid={problem !== null} onInput={setMax} />
        </div>
        {problem ? (
          <p id="price-problem" class="field-problem" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" class="button-secondary">
          Apply price
        </button>
      </fieldset>
    </form>
  );
}

/** One end of the price range: "Min" or "Max" (read out as "Min price"), tied to the range's problem. */
function PriceField(props: {
  name: string;
  label: string;
  value: string;
  invalid: boolean;
  onInput: (value: string) => void;
}) {
  return (
    <label>
      <span>
        {props.label}
        <span class="visually-hidden"> price</span>
      </span>
      <input
        type="text"
        inputMode="decimal"
        name={props.name}
        value={props.value}
        aria-invalid={props.invalid ? true : undefined}
        aria-describedby={props.invalid ? 'price-problem' : undefined}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </label>
  );
}
