/** Money is always an integer number of minor units with its ISO 4217 currency code. */
export interface Money {
  amount: number;
  currency: string;
}

/** Human formatting for mail and logs, e.g. 1999 USD → "$19.99", 500 JPY → "¥500". */
export function formatMoney(value: Money, locale = 'en-US'): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency: value.currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(value.amount / 10 ** digits);
}
