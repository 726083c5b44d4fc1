import { validationFailed, type FieldError } from '../lib/errors.ts';
import { allocate, unitsPart } from '../pricing/tax-arithmetic.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { taxRefunds, taxSales, type TaxRefundRow, type TaxReportWindow } from './tax-report.repository.ts';
import {
  TAX_REPORT_MAX_DAYS,
  type TaxReport,
  type TaxReportQuery,
  type TaxReportRow,
} from './tax-report.schemas.ts';

/**
 * The tax report (decision `tax-report`): per country, region, class, rate and currency, what the
 * orders paid in a window were charged (net, tax, gross, distinct orders), and the tax that refunds
 * settled in the same window gave back. Sums come from the database; refunds come in keyset
 * batches, so the work is bounded by the window and never holds every order in memory.
 */

type ReportDeps = Pick<OrdersDeps, 'db' | 'clock'>;

const DAY_MS = 24 * 3600 * 1000;
const REFUND_BATCH = 500;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A bound as given: a date (its day's start in UTC, or the next day's for `to`) or a zoned timestamp. */
function parseBound(value: string, end: boolean): Date | null {
  const date = DATE.exec(value);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const at = new Date(Date.UTC(year, month - 1, day + (end ? 1 : 0)));
    const start = new Date(Date.UTC(year, month - 1, day));
    // 2026-02-30 would roll over into March: not a date.
    if (start.getUTCFullYear() !== year || start.getUTCMonth() !== month - 1 || start.getUTCDate() !== day)
      return null;
    return at;
  }
  if (!TIMESTAMP.test(value)) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}

const BOUND_DETAIL =
  'must be an ISO 8601 date (2026-10-01) or a timestamp with a time zone (2026-10-01T00:00:00Z)';

/** The window a query asks for, checked: [from, to), at most TAX_REPORT_MAX_DAYS long. */
export function reportWindow(query: TaxReportQuery, now: Date): TaxReportWindow {
  const errors: FieldError[] = [];
  const to = query.to === undefined ? now : parseBound(query.to, true);
  if (to === null) errors.push({ pointer: '/to', detail: BOUND_DETAIL, in: 'query' });
  let from: Date | null = null;
  if (query.from !== undefined) {
    from = parseBound(query.from, false);
    if (from === null) errors.push({ pointer: '/from', detail: BOUND_DETAIL, in: 'query' });
  } else if (to !== null) {
    // The month `to` falls in (its last instant's month, so `to` = 2026-11-01 means October).
    const last = new Date(to.getTime() - 1);
    from = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 1));
  }
  if (errors.length > 0) throw validationFailed('The report’s window is not valid.', errors);
  if (from!.getTime() >= to!.getTime())
    throw validationFailed('The report’s window is empty: `from` must be before `to`.', [
      { pointer: '/from', detail: 'must be before to', in: 'query' },
    ]);
  if (to!.getTime() - from!.getTime() > TAX_REPORT_MAX_DAYS * DAY_MS)
    throw validationFailed(`A report covers at most ${TAX_REPORT_MAX_DAYS} days: ask for several.`, [
      { pointer: '/to', detail: `must be at most ${TAX_REPORT_MAX_DAYS} days after from`, in: 'query' },
    ]);
  return { from: from!, to: to!, currency: query.currency };
}

interface Entry {
  country: string | null;
  region: string | null;
  class: string;
  rateBps: number | null;
  currency: string;
  orders: number;
  net: number;
  tax: number;
  taxRefunded: number;
}

const keyOf = (entry: Pick<Entry, 'country' | 'region' | 'class' | 'rateBps' | 'currency'>): string =>
  JSON.stringify([entry.currency, entry.country, entry.region, entry.class, entry.rateBps]);

/**
 * The tax a refund gave back, over its order's tax lines: the order's tax in proportion to what
 * had been refunded, rounded down and counted cumulatively (so refunding the whole total gives back
 * the whole tax exactly), shared over the lines by their tax, largest remainder.
 */
function refundedTaxLines(
  refund: TaxRefundRow,
): { line: Omit<Entry, 'orders' | 'net' | 'tax' | 'taxRefunded'>; amount: number }[] {
  const taxRefunded = unitsPart(
    refund.order_tax,
    refund.order_total,
    refund.refunded_before,
    refund.refunded_before + refund.amount,
  );
  const lines =
    refund.tax_lines === null
      ? [
          {
            country: refund.country,
            region: null,
            class: 'standard',
            rateBps: null,
            amount: refund.order_tax,
          },
        ]
      : refund.tax_lines;
  if (lines.length === 0) return [];
  const shares = allocate(
    taxRefunded,
    lines.map((line) => line.amount),
  );
  return lines.map((line, index) => ({
    line: {
      country: line.country,
      region: line.region,
      class: line.class,
      rateBps: line.rateBps,
      currency: refund.currency,
    },
    amount: shares[index]!,
  }));
}

/** Nulls first, then ascending (code points, the same on every database). */
function compare(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

export async function taxReport(
  deps: ReportDeps,
  storeId: string,
  query: TaxReportQuery,
  /** Refunds read per statement. */
  batch = REFUND_BATCH,
): Promise<TaxReport> {
  const window = reportWindow(query, deps.clock.now());
  const entries = new Map<string, Entry>();
  const entry = (line: Omit<Entry, 'orders' | 'net' | 'tax' | 'taxRefunded'>): Entry => {
    const key = keyOf(line);
    let found = entries.get(key);
    if (!found) {
      found = { ...line, orders: 0, net: 0, tax: 0, taxRefunded: 0 };
      entries.set(key, found);
    }
    return found;
  };
  for (const row of await taxSales(deps.db, storeId, window)) {
    const found = entry({
      country: row.country,
      region: row.region,
      class: row.class,
      rateBps: row.rate_bps,
      currency: row.currency,
    });
    found.orders += row.orders;
    found.net += row.net;
    found.tax += row.tax;
  }
  let after: { settledAt: Date; id: string } | undefined;
  for (;;) {
    const refunds = await taxRefunds(deps.db, storeId, window, after, batch);
    for (const refund of refunds)
      for (const { line, amount } of refundedTaxLines(refund))
        // A share of 0 adds nothing, and no row of zeros for an order paid outside the window.
        if (amount > 0) entry(line).taxRefunded += amount;
    if (refunds.length < batch) break;
    const last = refunds.at(-1)!;
    after = { settledAt: last.settled_at, id: last.id };
  }
  const items: TaxReportRow[] = [...entries.values()]
    .sort(
      (a, b) =>
        compare(a.currency, b.currency) ||
        compare(a.country, b.country) ||
        compare(a.region, b.region) ||
        compare(a.class, b.class) ||
        compare(a.rateBps, b.rateBps),
    )
    .map((found) => {
      const money = (amount: number) => ({ amount, currency: found.currency });
      return {
        country: found.country,
        region: found.region,
        class: found.class,
        rateBps: found.rateBps,
        currency: found.currency,
        orders: found.orders,
        net: money(found.net),
        tax: money(found.tax),
        gross: money(found.net + found.tax),
        taxRefunded: money(found.taxRefunded),
      };
    });
  return { from: window.from.toISOString(), to: window.to.toISOString(), items };
}

/** The CSV columns, in order; amounts are integers in minor units of the row's `currency`. */
const CSV_COLUMNS = [
  'currency',
  'country',
  'region',
  'class',
  'rateBps',
  'orders',
  'net',
  'tax',
  'gross',
  'taxRefunded',
] as const;

/** A CSV field (RFC 4180), never read as a formula by a spreadsheet. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The report as CSV: a header row, then one line per row, CRLF line ends. */
export function taxReportCsv(report: TaxReport): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of report.items)
    lines.push(
      [
        row.currency,
        row.country,
        row.region,
        row.class,
        row.rateBps,
        row.orders,
        row.net.amount,
        row.tax.amount,
        row.gross.amount,
        row.taxRefunded.amount,
      ]
        .map(csvField)
        .join(','),
    );
  return `${lines.join('\r\n')}\r\n`;
}

/** `tax-<from>-<to>.csv`: a bound at midnight UTC as its date, else as a compact UTC timestamp. */
export function taxReportFilename(report: TaxReport): string {
  const bound = (iso: string): string =>
    iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace(/[:.]/g, '').replace(/000Z$/, 'Z');
  return `tax-${bound(report.from)}-${bound(report.to)}.csv`;
}
