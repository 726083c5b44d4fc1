import type { Rounding } from './markets.tables.ts';

/**
 * Converting a price from the store's currency into a market's (decision `market-prices`), exactly:
 * integers and a decimal rate as a fraction, no float anywhere. The same rule as the database's
 * `storefront_market_price` (migration 0042), which prices catalog reads; conversion.test.ts holds
 * the two equal on random inputs, on both databases.
 *
 * - `none`: half up to the market currency's minor unit;
 * - `to_whole`: up to the next whole major unit (19.20 → 20.00; 20.00 stays);
 * - `to_99`: up to the next amount ending in .99 of the major unit (19.20 → 19.99, 20.00 → 20.99);
 *   a currency without minor units has no .99, and rounds up to its unit.
 *
 * 0 stays 0 (a free item is not made to cost 0.99).
 */

/** A merchant's exchange rate: a positive decimal with at most 6 integer and 12 fraction digits. */
export const EXCHANGE_RATE = '^(?:0|[1-9][0-9]{0,5})(?:\\.[0-9]{1,12})?$';
const RATE = new RegExp(EXCHANGE_RATE);

export interface Conversion {
  /** The decimal rate, e.g. "0.92". */
  rate: string;
  /** Minor units of the market's currency and of the store's. */
  digits: number;
  baseDigits: number;
  rounding: Rounding;
}

/** The largest amount a conversion gives: beyond it, integers stop being exact in JSON. */
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

export function isExchangeRate(rate: string): boolean {
  return RATE.test(rate) && /[1-9]/.test(rate);
}

/** The rate as a fraction: "0.92" → 92 / 100. */
function fraction(rate: string): { numerator: bigint; denominator: bigint } {
  const [whole, decimals = ''] = rate.split('.');
  return { numerator: BigInt(whole! + decimals), denominator: 10n ** BigInt(decimals.length) };
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

export function convert(amount: number, conversion: Conversion, rounding = conversion.rounding): number {
  if (amount <= 0) return amount;
  const { numerator, denominator: rateDenominator } = fraction(conversion.rate);
  const shift = conversion.digits - conversion.baseDigits;
  // amount × rate × 10^shift = n / d, exactly.
  let n = BigInt(amount) * numerator;
  let d = rateDenominator;
  if (shift >= 0) n *= 10n ** BigInt(shift);
  else d *= 10n ** BigInt(-shift);
  const unit = 10n ** BigInt(conversion.digits);
  let result: bigint;
  switch (rounding) {
    case 'none':
      result = (2n * n + d) / (2n * d);
      break;
    case 'to_whole':
      result = ceilDiv(n, d * unit) * unit;
      break;
    case 'to_99':
      result = conversion.digits === 0 ? ceilDiv(n, d) : ceilDiv(ceilDiv(n, d) + 1n, unit) * unit - 1n;
      break;
  }
  return Number(result > MAX ? MAX : result);
}
