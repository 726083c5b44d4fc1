import { minorToDecimal } from '../lib/money.ts';
import type { RowError } from './imports.tables.ts';

/**
 * Reading the cells of one row into typed values, each refusal kept as a row error that names the
 * row and column (decision `csv-imports`). A refusal says what is wrong, never the value itself: a
 * customers file holds personal data, and errors outlive the file.
 */
export class CellReader {
  readonly row: number;
  readonly errors: RowError[];

  constructor(row: number, errors: RowError[]) {
    this.row = row;
    this.errors = errors;
  }

  fail(column: string | null, detail: string): undefined {
    this.errors.push({ row: this.row, column, detail });
    return undefined;
  }

  /** TRUE or FALSE in any case (also yes/no, 1/0); blank is `blank`. */
  boolean(column: string, text: string | undefined, blank: boolean): boolean | undefined {
    if (text === undefined || text === '') return blank;
    const value = BOOLEANS.get(text.toLowerCase());
    return value ?? this.fail(column, 'must be TRUE or FALSE');
  }

  /** A whole number within bounds; blank is undefined. */
  integer(column: string, text: string | undefined, min: number, max: number): number | undefined {
    if (text === undefined || text === '') return undefined;
    if (!/^-?\d+(\.0+)?$/.test(text)) return this.fail(column, 'must be a whole number');
    const value = Number.parseInt(text, 10);
    if (value < min || value > max) return this.fail(column, `must be between ${min} and ${max}`);
    return value;
  }

  /**
   * A price as a decimal in the currency's major unit ("19.99", "20", "1,234.50") → integer minor
   * units, exactly (no float): more fraction digits than the currency has is refused, not rounded.
   */
  money(column: string, text: string | undefined, digits: number): number | undefined {
    if (text === undefined || text === '') return undefined;
    const amount = decimalToMinor(text, digits);
    if (amount === null)
      return this.fail(
        column,
        digits === 0
          ? 'must be an amount without decimals, such as 1200'
          : `must be an amount such as 19.99, with at most ${digits} decimal${digits === 1 ? '' : 's'}`,
      );
    if (amount > MAX_AMOUNT)
      return this.fail(column, `must be at most ${minorToDecimal(MAX_AMOUNT, digits)}`);
    return amount;
  }

  /** A text of at most `max` characters; blank is undefined. */
  text(column: string, text: string | undefined, max: number): string | undefined {
    if (text === undefined || text === '') return undefined;
    if ([...text].length > max) return this.fail(column, `must be at most ${max} characters`);
    return text;
  }
}

const BOOLEANS = new Map([
  ['true', true],
  ['false', false],
  ['yes', true],
  ['no', false],
  ['1', true],
  ['0', false],
]);

/** The largest amount the catalog takes (minor units), as the API's schema says. */
const MAX_AMOUNT = 1_000_000_000_00;

/** "19.99" with 2 digits → 1999; thousands separators (",") allowed; null when not such a number. */
export function decimalToMinor(text: string, digits: number): number | null {
  const match = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return null;
  const whole = match[1]!.replaceAll(',', '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return null;
  const units = BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
  return units > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(units);
}
