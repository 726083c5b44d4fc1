/**
 * Shipping in words, for the Shipping screen and the order page: a zone's areas (countries named
 * in the browser's language, regions by their names in the address data, in Latin letters first
 * where theirs are in another script), a method's kind, price
 * and delivery estimate.
 */
import { countryName, countryOptions, countryRules, regionLabel } from '@storefront/address';
import type { MethodKind, ShippingMethod, ZoneArea } from '../data/shipping.ts';
import { formatMoney } from '../ui/money.ts';
import { deliveryEstimate } from '@storefront/blocks';

export const REST_OF_WORLD = '*';

export const KIND_LABELS: Record<MethodKind, string> = {
  flat: 'Flat rate',
  weight: 'By weight',
  free_over: 'Free over an amount',
  pickup: 'Pickup',
};

/** A label inside a sentence: "Postal codes" → "postal codes", but "ZIP codes" stays. */
export function inSentence(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
}

/** "State" → "States", "County" → "Counties", "Parish" → "Parishes". */
export function plural(noun: string): string {
  if (/[^aeiou]y$/i.test(noun)) return `${noun.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/i.test(noun)) return `${noun}es`;
  return `${noun}s`;
}

/** The countries a zone can name (those the address data knows, as the server checks), by name. */
export const zoneCountries = (): readonly { code: string; name: string }[] => countryOptions();

/** The console's language (`<html lang>`): region names show as a reader of it can read them. */
export const consoleLanguage = (): string => document.documentElement.lang || 'en';

/**
 * A region's name from its ISO 3166-2 code (`US-CA` → California, `JP-13` → Tokyo (東京都) in an
 * English console), or the code when unknown.
 */
export function regionName(country: string, code: string): string {
  const region = countryRules(country)?.regions.find((candidate) => candidate.code === code);
  return region ? regionLabel(region, consoleLanguage()) : code;
}

/** An area as a merchant reads it: "United States: California, Oregon", "Rest of the world". */
export function describeArea(area: ZoneArea): string {
  if (area.country === REST_OF_WORLD) return 'Rest of the world';
  const country = countryName(area.country);
  if (area.regions.length > 0) {
    return `${country}: ${area.regions.map((code) => regionName(area.country, code)).join(', ')}`;
  }
  if (area.postalCodePrefixes.length > 0) {
    const label = countryRules(area.country)?.labels.postalCode ?? 'Postal code';
    return `${country}: ${inSentence(plural(label))} starting ${area.postalCodePrefixes.join(', ')}`;
  }
  return country;
}

const grams = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

export function formatGrams(value: number): string {
  return `${grams.format(value)} g`;
}

const moneyOrFree = (amount: number, currency: string) =>
  amount === 0 ? 'Free' : formatMoney(amount, currency);

/** What a method charges, one line per price (a weight method's tiers). */
export function methodPrices(method: ShippingMethod, currency: string): string[] {
  switch (method.kind) {
    case 'weight':
      return (method.weightTiers ?? []).map(
        (tier) => `up to ${formatGrams(tier.upToGrams)}: ${moneyOrFree(tier.amount, currency)}`,
      );
    case 'free_over':
      return [
        `${moneyOrFree(method.amount ?? 0, currency)}, free from ${formatMoney(method.freeOverAmount ?? 0, currency)}`,
      ];
    case 'flat':
    case 'pickup':
      return [moneyOrFree(method.amount ?? 0, currency)];
  }
}

export { deliveryEstimate };
