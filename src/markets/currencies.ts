import currencyCodes from 'currency-codes';

/**
 * ISO 4217 currencies and their minor units (decision `markets`), from the `currency-codes` data
 * set, which is generated from the ISO 4217 maintenance agency's list (not a hand-kept table):
 * JPY 0, EUR 2, KWD 3. Precious metals, bond units, SDRs and the testing code
 * are not currencies a store prices in.
 */

const DIGITS = new Map<string, number>(
  currencyCodes.data
    .filter(
      (entry) =>
        Number.isInteger(entry.digits) &&
        entry.digits >= 0 &&
        entry.digits <= 4 &&
        // The list's "ZZ" entities: gold, silver, SDRs, bond units, the testing code.
        !entry.countries.every((country) => country.startsWith('Zz')),
    )
    .map((entry) => [entry.code, entry.digits]),
);

/** The ISO 4217 minor units of a currency (`JPY` → 0), or undefined when it is not one. */
export function currencyDigits(code: string): number | undefined {
  return DIGITS.get(code);
}

export function isIsoCurrency(code: string): boolean {
  return DIGITS.has(code);
}
