/**
 * Markets in words and numbers, for the Markets screen and the product form's prices in other
 * currencies (decision `market-prices`): the rounding rules with an example, a market's rate, and
 * how a store price converts into its currency (ui/conversion.ts, the server's rule).
 */
import type { Market, Rounding } from '../data/markets.ts';
import { convertPrice, type Conversion } from '../ui/conversion.ts';
import { currencyExponent, formatMoney, minorToDecimal } from '../ui/money.ts';

/** A rule's name, as the list and the product form say it. */
export const ROUNDING_NAMES: Record<Rounding, string> = {
  none: 'No rounding',
  to_99: 'Up to .99',
  to_whole: 'Up to a whole unit',
};

/**
 * The rounding choices with a plain example in the market's currency ("Up to .99: 19.20 → 19.99"),
 * made by the rule itself; a currency without minor units has no .99 and rounds up to its unit.
 */
export function roundingChoices(currency: string): { value: Rounding; label: string }[] {
  const digits = currencyExponent(currency);
  const sample = digits === 0 ? null : digits === 1 ? 192 : 1920 * 10 ** (digits - 2);
  const example = (rounding: Rounding): string => {
    if (sample === null) return '';
    const to = convertPrice(sample, { rate: '1', digits, baseDigits: digits, rounding });
    return `: ${minorToDecimal(sample, digits)} → ${minorToDecimal(to, digits)}`;
  };
  return [
    { value: 'none', label: `${ROUNDING_NAMES.none} (half up to the smallest unit)` },
    {
      value: 'to_99',
      label:
        sample === null
          ? `${ROUNDING_NAMES.to_99} (up to a whole unit: ${currency} has no decimals)`
          : `${ROUNDING_NAMES.to_99}${example('to_99')}`,
    },
    { value: 'to_whole', label: `${ROUNDING_NAMES.to_whole}${example('to_whole')}` },
  ];
}

/** A market in another currency than the store's: how store prices convert into it. */
export function conversionOf(
  market: Pick<Market, 'exchangeRate' | 'currency' | 'rounding'>,
  storeCurrency: string,
): Conversion {
  return {
    rate: market.exchangeRate,
    digits: currencyExponent(market.currency),
    baseDigits: currencyExponent(storeCurrency),
    rounding: market.rounding,
  };
}

/** "1 USD = 0.92 EUR". */
export const rateText = (rate: string, storeCurrency: string, currency: string): string =>
  `1 ${storeCurrency} = ${rate} ${currency}`;

/** The markets whose prices are in another currency than the store's. */
export const foreignMarkets = (markets: readonly Market[], storeCurrency: string): Market[] =>
  markets.filter((market) => !market.default && market.currency !== storeCurrency);

/** A store price (minor units) as a market shows it when the variant has no explicit price there. */
export function convertedPrice(amount: number, market: Market, storeCurrency: string): string {
  return formatMoney(convertPrice(amount, conversionOf(market, storeCurrency)), market.currency);
}
