/**
 * Wording shared by the pages: dates, what an email address must look like before it is sent, and
 * prices typed by the shopper. Prices shown are the client's `formatMoney`: the currency's ISO 4217
 * minor units (JPY 0, EUR 2, KWD 3), through Intl, from the exact decimal of the integer amount.
 */

/** A date as the shopper's locale writes it ("Nov 29, 2026"). */
export const day = (iso: string): string =>
  new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

/** Something@something: the check the forms make before the service makes its own. */
export const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * A typed price ("12", "12.5", "12,50") as integer minor units of a currency with `exponent` of
 * them (`currencyExponent`), exactly: through its digits, never a float (0.29 * 100 is
 * 28.999999999999996). More decimals than the currency has round half up ("12.345" → 1235 in USD,
 * "12.5" → 13 in JPY). Null when empty, NaN when it is not a price.
 */
export function priceToMinor(text: string, exponent: number): number | null {
  const trimmed = text.trim().replace(',', '.');
  if (trimmed === '') return null;
  const parts = /^(\d{1,9})(?:\.(\d*))?$/.exec(trimmed);
  if (!parts) return Number.NaN;
  const fraction = parts[2] ?? '';
  const minor = Number(parts[1]! + fraction.padEnd(exponent, '0').slice(0, exponent));
  return (fraction[exponent] ?? '0') >= '5' ? minor + 1 : minor;
}
