/**
 * Money and rates in the console: amounts are integer minor units on the wire, rates basis points
 * (1/100 of a percent: 825 = 8.25 %); people type and read decimals. Both directions go through
 * strings, never through floating point (19.99 * 100 is 1998.9999999999998), and a typed rate is
 * read by the same parser as a typed amount. Display (`formatMoney`) is the client's, shared with
 * the shop.
 */
import { currencyExponent, formatMoney, minorToDecimal } from '@storefront/client';

export { currencyExponent, formatMoney, minorToDecimal };

/** Why a typed amount was refused (`message` says it to the merchant). */
export type MoneyProblem = 'empty' | 'negative' | 'not_a_number' | 'too_many_decimals' | 'too_large';

export type ParsedMoney =
  { ok: true; amount: number } | { ok: false; problem: MoneyProblem; message: string };

const notANumber: ParsedMoney = {
  ok: false,
  problem: 'not_a_number',
  message: 'Enter a number, like 19.99.',
};

/**
 * A typed decimal ("19.99", "19,99", "1,234.50", "1 234,5", "20") as integer minor units, exactly.
 * The last "." or "," is the decimal separator, except a lone "," followed by exactly three digits
 * ("1,234"), which groups thousands. So "19.999" in a 2-decimal currency is refused ("at most 2
 * decimals"), never read as 19,999. Refuses signs when not allowed and anything that is not a number.
 */
export function decimalToMinor(input: string, exponent: number, { allowNegative = false } = {}): ParsedMoney {
  let text = input.trim().replace(/[\s\u00a0\u202f']/g, '');
  if (text === '') return { ok: false, problem: 'empty', message: 'Enter an amount.' };
  let negative = false;
  if (text.startsWith('-')) {
    negative = true;
    text = text.slice(1);
  }
  if (negative && !allowNegative)
    return { ok: false, problem: 'negative', message: 'The amount cannot be negative.' };
  if (!/^\d[\d.,]*$/.test(text) || /[.,]$/.test(text)) return notANumber;
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
      return notANumber;
    }
  } else if (loneThousands) {
    whole = text;
  }
  whole = whole.replace(/[.,]/g, '');
  if (fraction.length > exponent) {
    return {
      ok: false,
      problem: 'too_many_decimals',
      message: exponent === 0 ? 'This currency has no decimals.' : `Use at most ${exponent} decimals.`,
    };
  }
  const digits = (whole + fraction.padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  if (digits.length > 15) return { ok: false, problem: 'too_large', message: 'The amount is too large.' };
  const amount = Number(digits);
  return { ok: true, amount: negative ? -amount : amount };
}

// ---- Rates in basis points (1/100 of a percent): 825 = 8.25 % ----

/** The exact decimal of a rate in basis points, without trailing zeros: 2000 → "20", 825 → "8.25", 750 → "7.5". */
export function bpsToPercentText(bps: number): string {
  return minorToDecimal(bps, 2).replace(/\.?0+$/, '');
}

/** A rate for display in the browser's locale ("8.25%"), formatted from its exact decimal string. */
export function formatPercent(bps: number): string {
  const format = new Intl.NumberFormat(undefined, {
    style: 'percent',
    maximumFractionDigits: 2,
  }) as Intl.NumberFormat & { format(value: `${number}`): string };
  return format.format(minorToDecimal(bps, 4) as `${number}`);
}

export type ParsedRate = { ok: true; bps: number } | { ok: false; message: string };

/**
 * A typed percentage ("20", "8.25", "7,5", "8.25 %") as basis points: read by `decimalToMinor` with
 * 2 decimals (a percent's hundredths are basis points), then checked to be 0 to 100.
 */
export function percentTextToBps(text: string): ParsedRate {
  const parsed = decimalToMinor(text.trim().replace(/\s*%$/, ''), 2);
  const tooLarge = { ok: false, message: 'A rate is at most 100 %.' } as const;
  if (parsed.ok) return parsed.amount > 10_000 ? tooLarge : { ok: true, bps: parsed.amount };
  if (parsed.problem === 'too_many_decimals') return { ok: false, message: parsed.message };
  if (parsed.problem === 'too_large') return tooLarge;
  return { ok: false, message: 'Enter a percentage, like 8.25.' };
}
