/**
 * Money in the console: amounts are integer minor units on the wire; people type and read decimals
 * in the store's currency. Both directions go through strings, never through floating point
 * (19.99 * 100 is 1998.9999999999998). Display (`formatMoney`) is the client's, shared with the shop.
 */
import { currencyExponent, formatMoney, minorToDecimal } from '@storefront/client';

export { currencyExponent, formatMoney, minorToDecimal };

export type ParsedMoney = { ok: true; amount: number } | { ok: false; message: string };

/**
 * A typed decimal ("19.99", "19,99", "1,234.50", "1 234,5", "20") as integer minor units, exactly.
 * The last "." or "," is the decimal separator, except a lone "," followed by exactly three digits
 * ("1,234"), which groups thousands. So "19.999" in a 2-decimal currency is refused ("at most 2
 * decimals"), never read as 19,999. Refuses signs when not allowed and anything that is not a number.
 */
export function decimalToMinor(input: string, exponent: number, { allowNegative = false } = {}): ParsedMoney {
  let text = input.trim().replace(/[\s\u00a0\u202f']/g, '');
  if (text === '') return { ok: false, message: 'Enter an amount.' };
  let negative = false;
  if (text.startsWith('-')) {
    negative = true;
    text = text.slice(1);
  }
  if (negative && !allowNegative) return { ok: false, message: 'The amount cannot be negative.' };
  if (!/^\d[\d.,]*$/.test(text) || /[.,]$/.test(text))
    return { ok: false, message: 'Enter a number, like 19.99.' };
  const separators = text.match(/[.,]/g) ?? [];
  let whole = text;
  let fraction = '';
  const last = Math.max(text.lastIndexOf('.'), text.lastIndexOf(','));
  const loneThousands = separators.length === 1 && separators[0] === ',' && /^\d{1,3},\d{3}$/.test(text);
  if (last !== -1 && !loneThousands) {
    whole = text.slice(0, last);
    fraction = text.slice(last + 1);
    // Everything before the decimal separator is digits, grouped by the other separator in threes.
    const other = text[last] === '.' ? ',' : '.';
    if (
      whole.includes(text[last]!) ||
      (whole.includes(other) && !new RegExp(`^\\d{1,3}(\\${other}\\d{3})+$`).test(whole))
    ) {
      return { ok: false, message: 'Enter a number, like 19.99.' };
    }
  } else if (loneThousands) {
    whole = text;
  }
  whole = whole.replace(/[.,]/g, '');
  if (fraction.length > exponent) {
    return {
      ok: false,
      message: exponent === 0 ? 'This currency has no decimals.' : `Use at most ${exponent} decimals.`,
    };
  }
  const digits = (whole + fraction.padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  if (digits.length > 15) return { ok: false, message: 'The amount is too large.' };
  const amount = Number(digits);
  return { ok: true, amount: negative ? -amount : amount };
}
