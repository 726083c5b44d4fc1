/**
 * The market form's countries (codes typed, or added by name; their names read back under the
 * field) and its money: the currency (its name read back), the exchange rate and the rounding,
 * with a price worked out at the rate as typed (the server's rule, ui/conversion.ts).
 */
import { countryName } from '@storefront/address';
import { useState } from 'react';
import { SelectField, TextField } from '../../ui/components.tsx';
import { convertPrice, isExchangeRate, normalRate, unroundedText } from '../../ui/conversion.ts';
import { CountrySelect } from '../../ui/country-select.tsx';
import { currencyExponent, formatMoney, minorToDecimal } from '../../ui/money.ts';
import { conversionOf, roundingChoices } from '../market-parts.ts';
import { normalCurrency, typedCountries, unknownCountries, type MarketDraft } from './draft.ts';

export function CountryFields({
  value,
  error,
  onChange,
}: {
  value: string;
  error: string | undefined;
  onChange: (countries: string) => void;
}) {
  const [pick, setPick] = useState('');
  const codes = typedCountries(value);
  const unknown = new Set(unknownCountries(codes));
  const named = codes.filter((code) => !unknown.has(code)).map((code) => `${countryName(code)} (${code})`);
  return (
    <div className="orders-form-grid">
      <TextField
        label="Countries"
        value={value}
        autoComplete="off"
        spellCheck={false}
        hint={
          <>
            Two-letter codes separated by commas, like DE, FR, NL. A country is in one market at most.{' '}
            {named.length > 0 ? `${named.join(', ')}.` : 'None yet.'}
          </>
        }
        error={error}
        onChange={(event) => onChange(event.target.value)}
      />
      <div className="market-add-country">
        <CountrySelect label="Add a country by name" value={pick} onChange={setPick} />
        <button
          type="button"
          onClick={() => {
            if (pick !== '' && !codes.includes(pick)) onChange([...codes, pick].join(', '));
            setPick('');
          }}
        >
          Add country
        </button>
      </div>
    </div>
  );
}

/** The currency's name in the browser's language ("Euro"), or null when it knows none. */
function currencyName(code: string): string | null {
  try {
    const name = new Intl.DisplayNames(undefined, { type: 'currency' }).of(code);
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
}

/** "A 24.00 USD price: 24.00 × 0.92 = 22.08 EUR, shown as €22.99." */
function workedExample(draft: MarketDraft, currency: string, storeCurrency: string): string | null {
  const rate = normalRate(draft.rate);
  if (!/^[A-Z]{3}$/.test(currency) || !isExchangeRate(rate)) return null;
  const baseDigits = currencyExponent(storeCurrency);
  const sample = 24 * 10 ** baseDigits;
  const conversion = conversionOf({ exchangeRate: rate, currency, rounding: draft.rounding }, storeCurrency);
  const price = `${minorToDecimal(sample, baseDigits)} ${storeCurrency}`;
  const shown = formatMoney(convertPrice(sample, conversion), currency);
  return `A ${price} price: ${minorToDecimal(sample, baseDigits)} × ${rate} = ${unroundedText(sample, conversion)} ${currency}, shown as ${shown}.`;
}

export function CurrencyFields({
  draft,
  storeCurrency,
  at,
  update,
}: {
  draft: MarketDraft;
  storeCurrency: string;
  at: (pointer: string, name: string) => string | undefined;
  update: (changes: Partial<MarketDraft>) => void;
}) {
  const currency = normalCurrency(draft.currency);
  const valid = /^[A-Z]{3}$/.test(currency);
  const name = valid ? currencyName(currency) : null;
  const example = workedExample(draft, currency, storeCurrency);
  return (
    <div className="orders-form-grid">
      <TextField
        label="Currency"
        value={draft.currency}
        maxLength={3}
        autoComplete="off"
        spellCheck={false}
        hint={name ? `${name}.` : 'A three-letter ISO 4217 code, like EUR, GBP or JPY.'}
        error={at('/currency', 'The currency')}
        onChange={(event) => update({ currency: event.target.value })}
      />
      <TextField
        label="Exchange rate"
        value={draft.rate}
        inputMode="decimal"
        autoComplete="off"
        hint={`How many ${valid ? currency : 'units of its currency'} one ${storeCurrency} buys: your own rate, nothing is fetched. Prices without one set in ${valid ? currency : 'its currency'} are converted with it.`}
        error={at('/exchangeRate', 'The exchange rate')}
        onChange={(event) => update({ rate: event.target.value })}
      />
      <SelectField
        label="Rounding"
        value={draft.rounding}
        options={roundingChoices(valid ? currency : 'EUR')}
        hint={example ?? 'For converted prices; prices you set in the currency are never rounded.'}
        error={at('/rounding', 'The rounding')}
        onChange={(event) => update({ rounding: event.target.value as MarketDraft['rounding'] })}
      />
    </div>
  );
}
