/**
 * A market's form as typed (text until checked), what the form checks before sending, and the
 * API's body: a new market's, or a saved one's changes (the default market takes only its name and
 * tax setting). No React here.
 */
import { isKnownCountry } from '@storefront/address';
import type { Market, MarketPatch, MarketSave, Rounding } from '../../data/markets.ts';
import { isExchangeRate, normalRate } from '../../ui/conversion.ts';
import { localProblem, type FieldMessage, type FormProblem } from '../../ui/problems.ts';

export interface MarketDraft {
  name: string;
  /** Country codes as typed, separated by commas or spaces ("DE, FR, nl"). */
  countries: string;
  currency: string;
  /** The exchange rate as typed ("0.92", "0,92"). */
  rate: string;
  rounding: Rounding;
  pricesIncludeTax: boolean;
}

export const NAME_MAX = 100;

export function marketDraft(market: Market | null): MarketDraft {
  return {
    name: market?.name ?? '',
    countries: market?.countries.join(', ') ?? '',
    currency: market?.currency ?? '',
    rate: market && !market.default ? market.exchangeRate : '',
    rounding: market?.rounding ?? 'to_99',
    pricesIncludeTax: market?.pricesIncludeTax ?? false,
  };
}

/** The typed codes, upper-cased, once each, in the order typed. */
export function typedCountries(text: string): string[] {
  const codes = text
    .split(/[\s,;]+/)
    .map((code) => code.trim().toUpperCase())
    .filter((code) => code !== '');
  return [...new Set(codes)];
}

/** The typed codes that are no ISO 3166-1 country (the server's list: @storefront/address). */
export const unknownCountries = (codes: readonly string[]): string[] =>
  codes.filter((code) => !/^[A-Z]{2}$/.test(code) || !isKnownCountry(code));

export const normalCurrency = (text: string): string => text.trim().toUpperCase();

/** What the form can tell before sending: a name, known country codes, a currency code, a rate. */
export function checkMarket(
  draft: MarketDraft,
  market: Market | null,
  storeCurrency: string,
): FormProblem | null {
  const fields: FieldMessage[] = [];
  const name = draft.name.trim();
  if (name === '') fields.push({ pointer: '/name', detail: 'Enter a name, like “Europe”.' });
  else if (name.length > NAME_MAX)
    fields.push({ pointer: '/name', detail: `Use at most ${NAME_MAX} characters.` });
  if (!market?.default) {
    const codes = typedCountries(draft.countries);
    const unknown = unknownCountries(codes);
    if (codes.length === 0)
      fields.push({ pointer: '/countries', detail: 'Enter at least one country code, like DE, FR.' });
    else if (unknown.length > 0)
      fields.push({
        pointer: '/countries',
        detail: `${unknown.map((code) => `“${code}”`).join(', ')} ${unknown.length === 1 ? 'is not a country code' : 'are not country codes'}: use two-letter ISO codes, like DE for Germany.`,
      });
    else if (codes.length > 250) fields.push({ pointer: '/countries', detail: 'Use at most 250 countries.' });
    const currency = normalCurrency(draft.currency);
    if (!/^[A-Z]{3}$/.test(currency))
      fields.push({ pointer: '/currency', detail: 'Enter a three-letter ISO 4217 code, like EUR.' });
    const rate = normalRate(draft.rate);
    if (rate === '' && currency !== storeCurrency && /^[A-Z]{3}$/.test(currency))
      fields.push({
        pointer: '/exchangeRate',
        detail: `Enter how many ${currency} one ${storeCurrency} buys, like 0.92.`,
      });
    else if (rate !== '' && !isExchangeRate(rate))
      fields.push({
        pointer: '/exchangeRate',
        detail: 'Enter a positive decimal, like 0.92 (at most 6 digits before the point and 12 after).',
      });
  }
  return fields.length > 0 ? localProblem('Some fields need your attention.', fields) : null;
}

/** The call that saves the form: a new market, or only what changed of a saved one (null: nothing). */
export function marketSave(draft: MarketDraft, market: Market | null): MarketSave | null {
  const name = draft.name.trim();
  const countries = typedCountries(draft.countries);
  const currency = normalCurrency(draft.currency);
  const rate = normalRate(draft.rate);
  if (!market) {
    return {
      id: null,
      body: {
        name,
        countries,
        currency,
        ...(rate !== '' ? { exchangeRate: rate } : {}),
        rounding: draft.rounding,
        pricesIncludeTax: draft.pricesIncludeTax,
      },
    };
  }
  const body: MarketPatch = {};
  if (name !== market.name) body.name = name;
  if (draft.pricesIncludeTax !== market.pricesIncludeTax) body.pricesIncludeTax = draft.pricesIncludeTax;
  if (!market.default) {
    if ([...countries].sort().join() !== [...market.countries].sort().join()) body.countries = countries;
    if (currency !== market.currency) body.currency = currency;
    if (rate !== '' && rate !== market.exchangeRate) body.exchangeRate = rate;
    if (draft.rounding !== market.rounding) body.rounding = draft.rounding;
  }
  return Object.keys(body).length > 0 ? { id: market.id, body } : null;
}
