/**
 * What a price that includes tax says after it, by the country the shopper buys in (issue 45): the
 * name of that country's consumption tax where it has one shoppers know, else "incl. tax", which is
 * true everywhere. Shown only where the market's prices include tax (ui.tsx `InclTax`).
 *
 * The table is short on purpose: a country missing from it says "incl. tax", never a wrong name.
 * Add a country when its consumption tax is called VAT or GST in English in every part of it.
 */

export type TaxWords = 'incl. VAT' | 'incl. GST' | 'incl. tax';

/**
 * Countries whose consumption tax is VAT (value-added tax): the 27 EU member states, the EEA and
 * EFTA states outside the EU (Iceland, Liechtenstein, Norway, Switzerland), the United Kingdom, and
 * Monaco (France's VAT), Turkey (KDV), South Africa and the Gulf states with one (UAE, Saudi Arabia,
 * Bahrain, Oman).
 */
// prettier-ignore
const VAT = new Set([
  // EU member states
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT',
  'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
  // EEA and EFTA, the UK
  'IS', 'LI', 'NO', 'CH', 'GB',
  // Others
  'MC', 'TR', 'ZA', 'AE', 'SA', 'BH', 'OM',
]);

/**
 * Countries whose consumption tax is GST (goods and services tax): Australia, New Zealand,
 * Singapore, India and Canada (its federal GST; a province's HST or PST is on top of it, so a price
 * with every tax in it includes the GST). Not Malaysia: its GST was replaced by the sales and
 * service tax (SST) in 2018, so it says "incl. tax".
 */
const GST = new Set(['AU', 'NZ', 'SG', 'IN', 'CA']);

/** "incl. VAT", "incl. GST" or "incl. tax" for a country (ISO 3166-1 alpha-2), or null: none known. */
export function taxWords(country: string | null): TaxWords {
  if (country !== null && VAT.has(country)) return 'incl. VAT';
  if (country !== null && GST.has(country)) return 'incl. GST';
  return 'incl. tax';
}

/**
 * The country whose tax the shopper's prices name: the one they chose, else the market's when it
 * names exactly one (the default market names none: every country), else null.
 */
export function taxCountry(
  chosen: string | null,
  market: { countries: readonly string[] } | null,
): string | null {
  if (chosen !== null) return chosen;
  return market?.countries.length === 1 ? market.countries[0]! : null;
}
