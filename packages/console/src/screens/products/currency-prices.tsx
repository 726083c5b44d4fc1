/**
 * A variant's prices in other currencies (decision `market-prices`): one price and compare-at price
 * per currency the store's markets sell in besides its own (and any a variant has from before).
 * Empty, a market converts the store price at its rate and rounds it by its rule: each field says
 * what that gives for the price as typed (market-parts.ts, the server's rule). Without options, a
 * group in each variant's fields; with options, a table of the combinations under the matrix.
 */
import { Fragment, useId } from 'react';
import { useMarkets, type Market } from '../../data/markets.ts';
import { DataTable } from '../../ui/components.tsx';
import { MoneyField } from '../../ui/money-field.tsx';
import { convertedPrice, foreignMarkets, rateText, ROUNDING_NAMES } from '../market-parts.ts';
import { NO_CURRENCY_PRICE, type CurrencyPriceDraft, type ProductDraft, type VariantDraft } from './draft.ts';
import { comboId, comboLabel, combinations } from './matrix.ts';

/** A currency the form offers prices in, and the markets that sell in it (none: kept from before). */
export interface ForeignCurrency {
  currency: string;
  markets: Market[];
}

type At = (pointer: string, name: string) => string | undefined;
export type PriceChange = (
  variant: VariantDraft,
  currency: string,
  changes: Partial<CurrencyPriceDraft>,
) => void;

/** The markets' currencies other than the store's, then those the variants have prices in besides. */
export function useForeignCurrencies(draft: ProductDraft, storeCurrency: string): ForeignCurrency[] {
  const markets = useMarkets().data?.items ?? [];
  const list: ForeignCurrency[] = [];
  for (const market of foreignMarkets(markets, storeCurrency)) {
    const entry = list.find((each) => each.currency === market.currency);
    if (entry) entry.markets.push(market);
    else list.push({ currency: market.currency, markets: [market] });
  }
  for (const variant of draft.variants)
    for (const currency of Object.keys(variant.prices))
      if (currency !== storeCurrency && !list.some((each) => each.currency === currency))
        list.push({ currency, markets: [] });
  return list;
}

/** What an empty price in `entry` gives: the store price converted in each of its markets. */
function convertedHint(
  entry: ForeignCurrency,
  storeAmount: number | null,
  storeCurrency: string,
  short: boolean,
) {
  const { currency, markets } = entry;
  if (markets.length === 0) return `No market sells in ${currency} now: kept for when one does.`;
  if (storeAmount === null) return `Empty: the ${storeCurrency} price, converted.`;
  const amounts = markets.map(
    (market) =>
      `${convertedPrice(storeAmount, market, storeCurrency)}${markets.length > 1 ? ` in ${market.name}` : ''}`,
  );
  if (short) return `Empty: ${amounts.join(', ')}`;
  const [only] = markets;
  const how =
    markets.length === 1 && only
      ? ` (${rateText(only.exchangeRate, storeCurrency, currency)}, ${ROUNDING_NAMES[only.rounding].toLowerCase()})`
      : '';
  return `Empty: ${amounts.join(', ')}, converted${how}.`;
}

/** A currency's two fields: the price and the compare-at price, in that currency. */
function PriceFields({
  entry,
  variant,
  base,
  name,
  storeCurrency,
  table,
  at,
  onChange,
}: {
  entry: ForeignCurrency;
  variant: VariantDraft;
  /** The form's pointer of the variant (`/variants/2`). */
  base: string;
  /** The row's name in a table ("M / Blue"); empty in a variant's own group. */
  name: string;
  storeCurrency: string;
  table: boolean;
  at: At;
  onChange: PriceChange;
}) {
  const { currency } = entry;
  const price = variant.prices[currency] ?? NO_CURRENCY_PRICE;
  const pointer = `${base}/prices/${currency}`;
  const amount = (
    <MoneyField
      label={table ? `${name} price` : 'Price'}
      hideLabel={table}
      currency={currency}
      value={price.amount}
      optional
      hint={convertedHint(entry, variant.priceAmount, storeCurrency, table)}
      error={
        at(`${pointer}/amount`, `The ${currency} price`) ?? at(`${pointer}/currency`, `The ${currency} price`)
      }
      onChange={(next, problem) => onChange(variant, currency, { amount: next, amountProblem: problem })}
    />
  );
  const compareAt = (
    <MoneyField
      label={table ? `${name} compare-at price` : 'Compare-at price'}
      hideLabel={table}
      currency={currency}
      value={price.compareAt}
      optional
      {...(table ? {} : { hint: `Optional, with a ${currency} price.` })}
      error={at(`${pointer}/compareAtAmount`, `The ${currency} compare-at price`)}
      onChange={(next, problem) =>
        onChange(variant, currency, { compareAt: next, compareAtProblem: problem })
      }
    />
  );
  return table ? (
    <>
      <td>{amount}</td>
      <td>{compareAt}</td>
    </>
  ) : (
    <>
      {amount}
      {compareAt}
    </>
  );
}

/** A variant's group of prices in other currencies (a product without options). */
export function CurrencyPrices({
  index,
  variant,
  currencies,
  storeCurrency,
  at,
  onChange,
}: {
  index: number;
  variant: VariantDraft;
  currencies: readonly ForeignCurrency[];
  storeCurrency: string;
  at: At;
  onChange: PriceChange;
}) {
  if (currencies.length === 0) return null;
  return (
    <fieldset className="currency-prices">
      <legend>Prices in other currencies</legend>
      <div className="variant-grid">
        {currencies.map((entry) => (
          <PriceFields
            key={entry.currency}
            entry={entry}
            variant={variant}
            base={`/variants/${index}`}
            name=""
            storeCurrency={storeCurrency}
            table={false}
            at={at}
            onChange={onChange}
          />
        ))}
      </div>
    </fieldset>
  );
}

/** The prices in other currencies of a product with options: a row per variant, in the matrix's order. */
export function CurrencyPriceTable({
  draft,
  currencies,
  storeCurrency,
  at,
  onChange,
}: {
  draft: ProductDraft;
  currencies: readonly ForeignCurrency[];
  storeCurrency: string;
  at: At;
  onChange: PriceChange;
}) {
  const headingId = useId();
  if (currencies.length === 0) return null;
  const rows = new Map(
    draft.variants.map((variant, index) => [comboId(variant.combo, draft.options), index]),
  );
  return (
    <section className="currency-prices" aria-labelledby={headingId}>
      <h3 id={headingId}>Prices in other currencies</h3>
      <p className="hint">
        Empty, a market converts the {storeCurrency} price at its rate and rounds it by its rule (shown under
        each field).
      </p>
      <DataTable
        wrap="variant-table-wrap"
        className="variant-table"
        caption="Prices in other currencies"
        columns={[
          'Variant',
          ...currencies.flatMap((entry) => [`Price (${entry.currency})`, `Compare-at (${entry.currency})`]),
        ]}
      >
        {combinations(draft.options).map((combo) => {
          const index = rows.get(comboId(combo, draft.options));
          if (index === undefined) return null;
          const variant = draft.variants[index]!;
          const name = comboLabel(combo, draft.options);
          return (
            <tr key={variant.key}>
              <th scope="row">
                <span className="combo">{name}</span>
              </th>
              {currencies.map((entry) => (
                <Fragment key={entry.currency}>
                  <PriceFields
                    entry={entry}
                    variant={variant}
                    base={`/variants/${index}`}
                    name={name}
                    storeCurrency={storeCurrency}
                    table
                    at={at}
                    onChange={onChange}
                  />
                </Fragment>
              ))}
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}
