/** Money is always an integer number of minor units with its ISO 4217 currency code. */
export interface Money {
  amount: number;
  currency: string;
}

/** Integer minor units as an exact decimal string with `digits` fraction digits: 1999, 2 → "19.99". */
export function minorToDecimal(amount: number, digits: number): `${number}` {
  const units = BigInt(amount);
  const sign = units < 0n ? '-' : '';
  const size = units < 0n ? -units : units;
  if (digits === 0) return `${sign}${size}` as `${number}`;
  const scale = 10n ** BigInt(digits);
  const fraction = (size % scale).toString().padStart(digits, '0');
  return `${sign}${size / scale}.${fraction}` as `${number}`;
}

/**
 * Human formatting for pages, mail and logs, e.g. 1999 USD → "$19.99", 500 JPY → "¥500", with the
 * currency's own fraction digits. Intl formats the decimal string exactly: no float is involved.
 */
export function formatMoney(value: Money, locale = 'en-US'): string {
  const { format, digits } = moneyFormat(locale, value.currency);
  return format.format(minorToDecimal(value.amount, digits));
}

/** Formatters by locale and currency: building an Intl.NumberFormat costs far more than using one. */
const formats = new Map<string, { format: Intl.NumberFormat; digits: number }>();

function moneyFormat(locale: string, currency: string): { format: Intl.NumberFormat; digits: number } {
  const key = `${locale}|${currency}`;
  let entry = formats.get(key);
  if (!entry) {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    entry = { format, digits: format.resolvedOptions().maximumFractionDigits ?? 2 };
    // Locales and currencies come from a small set; the bound only guards against surprises.
    if (formats.size >= 1000) formats.clear();
    formats.set(key, entry);
  }
  return entry;
}
