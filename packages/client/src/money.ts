/**
 * Money for display: amounts are integer minor units on the wire (`{ amount: 1999, currency: 'USD' }`).
 * These turn them into text through strings, never through floating point (19.99 * 100 is
 * 1998.9999999999998), for any currency the browser or Node knows.
 */

/**
 * ISO 4217 minor units of the currencies that have other than two (the service's own list,
 * src/markets/currencies.ts, generated from ISO's; a test holds the two equal). Amounts on the wire
 * are in these units. Intl's digits are CLDR's display digits, which differ for some currencies
 * (HUF, IDR and COP have two minor units in ISO 4217 and none in CLDR; IQD three and none), so they
 * cannot say how to read an amount.
 */
const MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XDR: 0,
  XOF: 0,
  XPF: 0,
  XSU: 0,
  XUA: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** Digits after the decimal point of a currency's amounts: its ISO 4217 minor units (USD 2, JPY 0, KWD 3). */
export function currencyExponent(currency: string): number {
  return MINOR_UNITS[currency.toUpperCase()] ?? 2;
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
    // Every minor unit shown, as many as the currency has: 1999 HUF minor units are "HUF 19.99".
    const format = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    }) as Intl.NumberFormat & {
      format(value: number | bigint | `${number}`): string;
    };
    // Intl formats a decimal string exactly (no conversion to a float).
    return format.format(decimal as `${number}`);
  } catch {
    return `${decimal} ${currency}`;
  }
}
