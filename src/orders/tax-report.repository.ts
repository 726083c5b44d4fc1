import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { OrderTaxLine } from './orders.tables.ts';

/**
 * All SQL of the tax report (decision `tax-report`): paid orders' tax lines summed by the database,
 * and the succeeded refunds of a window in keyset batches, each with what it had been refunded of
 * its order before it. Both read one store only.
 */

type Db = Kysely<Database>;

export interface TaxReportWindow {
  from: Date;
  /** Exclusive. */
  to: Date;
  /** One currency, or every one. */
  currency: string | undefined;
}

/** One (country, region, class, rate, currency) of the orders paid in a window, summed. */
export interface TaxSalesRow {
  country: string | null;
  region: string | null;
  class: string;
  rate_bps: number | null;
  currency: string;
  orders: number;
  net: number;
  tax: number;
}

/**
 * The tax lines of the orders paid in [from, to) (paid, or cancelled after they were paid), summed
 * per country, region, class, rate and currency. An order from before tax lines were kept (its
 * `tax_lines` null) counts as one line of class `standard`, rate unknown (null), in its country,
 * taxing its goods after discount (total − shipping − tax: those orders added tax on top and never
 * taxed shipping).
 */
export async function taxSales(db: Db, storeId: string, window: TaxReportWindow): Promise<TaxSalesRow[]> {
  const currency = window.currency === undefined ? sql`` : sql`AND o.currency = ${window.currency}`;
  const paid = sql`o.store_id = ${storeId} AND o.paid_at >= ${window.from} AND o.paid_at < ${window.to}
    AND o.status IN ('paid', 'cancelled') ${currency}`;
  const { rows } = await sql<TaxSalesRow>`
    SELECT l.country, l.region, l.class, l.rate_bps, l.currency,
      count(DISTINCT l.order_id)::int AS orders,
      sum(l.taxable)::bigint AS net,
      sum(l.amount)::bigint AS tax
    FROM (
      SELECT o.id AS order_id, btrim(o.currency) AS currency,
        e.line->>'country' AS country, e.line->>'region' AS region, e.line->>'class' AS class,
        (e.line->>'rateBps')::int AS rate_bps,
        (e.line->>'taxable')::bigint AS taxable, (e.line->>'amount')::bigint AS amount
      FROM orders o CROSS JOIN LATERAL jsonb_array_elements(o.tax_lines) AS e(line)
      WHERE ${paid} AND o.tax_lines IS NOT NULL
      UNION ALL
      SELECT o.id, btrim(o.currency), btrim(o.country), NULL, 'standard', NULL::int,
        o.total_amount - o.shipping_amount - o.tax_amount, o.tax_amount
      FROM orders o
      WHERE ${paid} AND o.tax_lines IS NULL
    ) l
    GROUP BY l.country, l.region, l.class, l.rate_bps, l.currency`.execute(db);
  return rows;
}

/** A succeeded refund settled in the window, with its order's tax and what was refunded before it. */
export interface TaxRefundRow {
  id: string;
  settled_at: Date;
  amount: number;
  /** The order's succeeded refunds settled before this one (by settle time, then id). */
  refunded_before: number;
  currency: string;
  country: string | null;
  order_tax: number;
  order_total: number;
  /** Null on orders from before tax lines were kept. */
  tax_lines: OrderTaxLine[] | null;
}

/**
 * The next `limit` succeeded refunds settled in [from, to), after `after` (settle time, id), of
 * orders that were paid (a refund of an order never paid, like a late payment given back, refunds
 * no tax the report counted). The running sum runs over all of an order's succeeded refunds, those
 * settled before the window too.
 */
export async function taxRefunds(
  db: Db,
  storeId: string,
  window: TaxReportWindow,
  after: { settledAt: Date; id: string } | undefined,
  limit: number,
): Promise<TaxRefundRow[]> {
  const currency = window.currency === undefined ? sql`` : sql`AND o.currency = ${window.currency}`;
  const next =
    after === undefined ? sql`` : sql`AND (r.settled_at, r.id) > (${after.settledAt}, ${after.id})`;
  const { rows } = await sql<TaxRefundRow>`
    WITH page AS (
      SELECT r.id, r.order_id, r.settled_at, r.amount,
        btrim(o.currency) AS currency, btrim(o.country) AS country,
        o.tax_amount AS order_tax, o.total_amount AS order_total, o.tax_lines
      FROM refunds r
      JOIN orders o ON o.store_id = r.store_id AND o.id = r.order_id
      WHERE r.store_id = ${storeId} AND r.status = 'succeeded'
        AND r.settled_at >= ${window.from} AND r.settled_at < ${window.to} ${next}
        AND o.paid_at IS NOT NULL ${currency}
      ORDER BY r.settled_at, r.id
      LIMIT ${limit}
    ),
    running AS (
      SELECT r.id,
        sum(r.amount) OVER (PARTITION BY r.order_id ORDER BY r.settled_at, r.id) - r.amount AS refunded_before
      FROM refunds r
      WHERE r.store_id = ${storeId} AND r.status = 'succeeded'
        AND r.order_id IN (SELECT order_id FROM page)
    )
    SELECT p.id, p.settled_at, p.amount, running.refunded_before::bigint AS refunded_before,
      p.currency, p.country, p.order_tax, p.order_total, p.tax_lines
    FROM page p
    JOIN running ON running.id = p.id
    ORDER BY p.settled_at, p.id`.execute(db);
  return rows;
}
