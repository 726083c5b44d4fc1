/**
 * Money for display: amounts are integer minor units on the wire (`{ amount: 1999, currency: 'USD' }`).
 * These turn them into text through strings, never through floating point (19.99 * 100 is
 * 1998.9999999999998), for any currency the browser or Node knows.
 */

/** Digits after the decimal point for a currency (USD 2, JPY 0, KWD 3), as the browser's Intl knows it. */
export function currencyExponent(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/** The exact decimal string of an amount in minor units: 1999 → "19.99", -5 → "-0.05", 500 (JPY) → "500". */
export function minorToDecimal(amount: number, exponent: number): string {
  const negative = amount < 0;
  const digits = String(Math.abs(Math.trunc(amount))).padStart(exponent + 1, '0');
  const whole = exponent === 0 ? digits : digits.slice(0, -exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(-exponent)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** An amount for display in the browser's locale: formatted from its exact decimal string. */
export function formatMoney(amount: number, currency: string, locale?: string): string {
  const exponent = currencyExponent(currency);
  const decimal = minorToDecimal(amount, exponent);
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency }) as Intl.NumberFormat & {
      format(value: number | bigint | `${number}`): string;
    };
    // Intl formats a decimal string exactly (no conversion to a float).
    return format.format(decimal as `${number}`);
  } catch {
    return `${decimal} ${currency}`;
  }
}
