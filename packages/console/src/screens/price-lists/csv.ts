/**
 * A price list's prices pasted as CSV (decision `price-lists`): a line `SKU,price` or
 * `SKU,price,currency` (a header line allowed; a tab or a semicolon separates as well as a comma, as
 * spreadsheets paste), each resolved to its variant by SKU and its price read as the console reads
 * every typed amount (ui/money.ts: decimals in the currency's minor units, exactly). Every line is
 * kept with what is wrong with it (an unknown SKU, a bad price, a repeated variant and currency), so
 * the form shows them all before anything is sent. No React here.
 */
import type { CatalogVariant } from '../../data/catalog-variant.ts';
import { currencyExponent, decimalToMinor, minorToDecimal } from '../../ui/money.ts';

export type { CatalogVariant } from '../../data/catalog-variant.ts';

export interface PriceLine {
  /** The line's number in the pasted text (1 first). */
  line: number;
  sku: string;
  /** The price as pasted. */
  price: string;
  currency: string;
  variant: CatalogVariant | null;
  /** Minor units, when the price reads. */
  amount: number | null;
  /** What is wrong with the line, in words; null when it is ready. */
  problem: string | null;
}

/** The columns of a line: split at tabs, else semicolons, else commas; quotes around a field taken off. */
function fieldsOf(text: string): string[] {
  const separator = text.includes('\t') ? '\t' : text.includes(';') ? ';' : ',';
  return text.split(separator).map((field) =>
    field
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim(),
  );
}

const CURRENCY = /^[A-Z]{3}$/;

/** A first line that names its columns ("SKU,price,currency") rather than giving a price. */
const isHeader = (fields: readonly string[]): boolean =>
  /^sku$/i.test(fields[0] ?? '') || (fields.length > 1 && /^(price|amount)$/i.test(fields[1] ?? ''));

/** The SKUs a paste names (its lines' first columns, a header left out): what to look up. */
export function skusOf(text: string): string[] {
  const rows = text.split(/\r?\n/).filter((row) => row.trim() !== '');
  return rows.flatMap((row, index) => {
    const fields = fieldsOf(row);
    return (index === 0 && isHeader(fields)) || !fields[0] ? [] : [fields[0]];
  });
}

/**
 * Every non-empty line of `text` as a price line: `defaultCurrency` for lines without a currency,
 * variants found by exact SKU in `bySku`.
 */
export function parsePriceLines(
  text: string,
  defaultCurrency: string,
  bySku: ReadonlyMap<string, CatalogVariant>,
): PriceLine[] {
  const lines: PriceLine[] = [];
  const seen = new Map<string, number>();
  const rows = text.split(/\r?\n/);
  const first = rows.findIndex((row) => row.trim() !== '');
  rows.forEach((raw, index) => {
    if (raw.trim() === '') return;
    const fields = fieldsOf(raw);
    if (index === first && isHeader(fields)) return;
    const [sku = '', price = '', currencyField = ''] = fields;
    const currency = (currencyField || defaultCurrency).toUpperCase();
    const entry: PriceLine = {
      line: index + 1,
      sku,
      price,
      currency,
      variant: null,
      amount: null,
      problem: null,
    };
    lines.push(entry);
    entry.variant = bySku.get(sku) ?? null;
    const parsed = CURRENCY.test(currency) ? decimalToMinor(price, currencyExponent(currency)) : null;
    if (parsed?.ok) entry.amount = parsed.amount;
    const key = `${entry.variant?.id} ${currency}`;
    const earlier = seen.get(key);
    if (fields.length > 3) entry.problem = 'Too many columns: give SKU, price and currency.';
    else if (sku === '') entry.problem = 'No SKU.';
    else if (!parsed) entry.problem = `“${currencyField}” is not a currency code, like EUR.`;
    else if (!entry.variant) entry.problem = `No variant has the SKU “${sku}”.`;
    else if (!parsed.ok)
      entry.problem = parsed.problem === 'empty' ? 'No price.' : `The price “${price}”: ${parsed.message}`;
    else if (earlier !== undefined)
      entry.problem = `A second ${currency} price for ${sku}: line ${earlier} has one.`;
    else seen.set(key, entry.line);
  });
  return lines;
}

/** A list's prices as CSV lines (`SKU,price,currency`) for the variants that have a SKU. */
export function pricesAsCsv(
  prices: readonly { variantId: string; currency: string; amount: number }[],
  byId: ReadonlyMap<string, CatalogVariant>,
): string {
  return prices
    .map((price) => {
      const sku = byId.get(price.variantId)?.sku;
      return sku
        ? `${sku},${minorToDecimal(price.amount, currencyExponent(price.currency))},${price.currency}`
        : null;
    })
    .filter((line): line is string => line !== null)
    .join('\n');
}
