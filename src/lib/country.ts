const names = new Intl.DisplayNames(['en'], { type: 'region' });
/** Codes Intl names but ISO 3166-1 does not assign (or only reserves). */
const NOT_ISO = new Set([
  'AC',
  'CP',
  'DG',
  'EA',
  'EU',
  'EZ',
  'IC',
  'QO',
  'TA',
  'UK',
  'UN',
  'XA',
  'XB',
  'XK',
  'ZZ',
]);

/** Is this an assigned ISO 3166-1 alpha-2 country code (upper case)? */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_ISO.has(code)) return false;
  const name = names.of(code);
  return name !== undefined && name !== code && name !== 'Unknown Region';
}
