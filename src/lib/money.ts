/** Money is always an integer number of minor units with its ISO 4217 currency code. */
export interface Money {
  amount: number;
  currency: string;
}

export function money(amount: number, currency: string): Money {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`Money amount must be an integer, got ${amount}`);
  return { amount, currency };
}

export function addMoney(a: Money, b: Money): Money {
  if (a.currency !== b.currency) throw new RangeError(`Cannot add ${a.currency} and ${b.currency}`);
  return money(a.amount + b.amount, a.currency);
}

/** Human formatting for mail and logs, e.g. 1999 USD → "$19.99", 500 JPY → "¥500". */
export function formatMoney(value: Money, locale = 'en-US'): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency: value.currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(value.amount / 10 ** digits);
}
