/**
 * A price converted into a market's currency as the server converts it (decision `market-prices`),
 * for the console's previews: the store price × the market's decimal rate, in the market currency's
 * minor units, rounded by the market's rule. Integers and BigInt fractions only, never a float. The
 * service's own is src/markets/conversion.ts (the front ends import nothing from src/):
 * test/conversion.test.ts holds the two equal on random inputs.
 *
 * - `none`: half up to the minor unit;
 * - `to_whole`: up to the next whole major unit (19.20 → 20.00; 20.00 stays);
 * - `to_99`: up to the next amount ending in .99 (19.20 → 19.99, 20.00 → 20.99); a currency without
 *   minor units rounds up to its unit.
 *
 * 0 stays 0.
 */

export type Rounding = 'none' | 'to_99' | 'to_whole';

export interface Conversion {
  /** The merchant's decimal rate, e.g. "0.92": units of the market's currency per unit of the store's. */
  rate: string;
  /** Minor units of the market's currency and of the store's. */
  digits: number;
  baseDigits: number;
  rounding: Rounding;
}

/** A rate as the API takes it: a positive decimal, at most 6 digits before the point and 12 after. */
const RATE = /^(?:0|[1-9][0-9]{0,5})(?:\.[0-9]{1,12})?$/;

export function isExchangeRate(rate: string): boolean {
  return RATE.test(rate) && /[1-9]/.test(rate);
}

/** A typed rate as the API's decimal string: trimmed, a decimal comma read as a point ("0,92" → "0.92"). */
export const normalRate = (text: string): string => text.trim().replace(',', '.');

/** The rate as a fraction: "0.92" → 92 / 100. */
function fraction(rate: string): { numerator: bigint; denominator: bigint } {
  const [whole = '0', decimals = ''] = rate.split('.');
  return { numerator: BigInt(whole + decimals), denominator: 10n ** BigInt(decimals.length) };
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** amount × rate in the market's minor units, exactly, as a fraction n / d. */
function exact(amount: number, conversion: Conversion): { n: bigint; d: bigint } {
  const { numerator, denominator } = fraction(conversion.rate);
  const shift = conversion.digits - conversion.baseDigits;
  let n = BigInt(amount) * numerator;
  let d = denominator;
  if (shift >= 0) n *= 10n ** BigInt(shift);
  else d *= 10n ** BigInt(-shift);
  return { n, d };
}

/** The store price `amount` (minor units) in the market's currency, rounded by its rule. */
export function convertPrice(amount: number, conversion: Conversion): number {
  if (amount <= 0) return amount;
  const { n, d } = exact(amount, conversion);
  const unit = 10n ** BigInt(conversion.digits);
  switch (conversion.rounding) {
    case 'none':
      return Number((2n * n + d) / (2n * d));
    case 'to_whole':
      return Number(ceilDiv(n, d * unit) * unit);
    case 'to_99':
      return Number(conversion.digits === 0 ? ceilDiv(n, d) : ceilDiv(ceilDiv(n, d) + 1n, unit) * unit - 1n);
  }
}

/**
 * amount × rate before rounding, as an exact decimal in the market's major units (2400 at "0.9234",
 * USD to EUR: "22.1616"); a rate is a decimal, so the product always ends.
 */
export function unroundedText(amount: number, conversion: Conversion): string {
  const { n, d } = exact(amount, conversion);
  // d is a power of ten: 10^k; the major units are n / (d × 10^digits).
  const places = d.toString().length - 1 + conversion.digits;
  const digits = n.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const decimals = places > 0 ? digits.slice(-places).replace(/0+$/, '') : '';
  const minimum = decimals.padEnd(conversion.digits, '0');
  return minimum === '' ? whole : `${whole}.${minimum}`;
}
