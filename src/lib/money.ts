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
