import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { FulfillmentStatus, OrderRow, OrderStatus } from './orders.tables.ts';

/**
 * The SQL across a store's orders: the admin list and its search, the console home's counts, and
 * the operator's counts over every store. One order's SQL is in orders.repository.ts.
 */

type Db = Kysely<Database>;

/** The admin list's query (newest first is applied by the keyset pagination). */
export function ordersQuery(
  db: Db,
  storeId: string,
  filter: {
    status?: OrderStatus | undefined;
    fulfillmentStatus?: FulfillmentStatus | undefined;
    q?: string | undefined;
    customerId?: string | undefined;
    /** Only the orders the customer's account shows: placed signed in, or paid (with `customerId`). */
    account?: boolean;
  } = {},
): SelectQueryBuilder<Database, 'orders', OrderRow> {
  let query = db.selectFrom('orders').selectAll().where('store_id', '=', storeId);
  if (filter.customerId) query = query.where('customer_id', '=', filter.customerId);
  if (filter.account)
    query = query.where((eb) => eb.or([eb('signed_in', '=', true), eb('paid_at', 'is not', null)]));
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.fulfillmentStatus) query = query.where('fulfillment_status', '=', filter.fulfillmentStatus);
  if (filter.q) query = query.where(matchesOrderSearch(filter.q));
  return query;
}

/**
 * The admin search, case-insensitive, `q` a plain string (strpos and starts_with, so `%` and `_`
 * are literal): digits, optionally after `#`, are the order's number exactly; with an `@`, the
 * email's start; otherwise part of the shipping address's name or of the email.
 */
function matchesOrderSearch(q: string): RawBuilder<SqlBool> {
  const digits = /^#?(\d+)$/.exec(q)?.[1];
  if (digits !== undefined) {
    // Order numbers are integer: a longer run of digits is no order's (and must not reach the cast).
    const number = Number(digits);
    return number <= 2_147_483_647 ? sql<SqlBool>`number = ${number}` : sql<SqlBool>`false`;
  }
  const needle = sql`lower(${q}::text)`;
  if (q.includes('@')) return sql<SqlBool>`starts_with(lower(email), ${needle})`;
  return sql<SqlBool>`(strpos(lower(shipping_address->>'name'), ${needle}) > 0 OR strpos(lower(email), ${needle}) > 0)`;
}

/** What the console's home counts, in one pass over the store's orders (tenant-scoped). */
export interface OrderCountsRow {
  paid: number;
  /** Decision `markets`: per currency, the sum of the totals paid in it (orders are in their market's). */
  revenue: { amount: number; currency: string }[];
  pending: number;
  expired: number;
}

/**
 * Orders paid since `since` (count and the sum of their totals), orders pending now, and orders
 * that expired since `since`. Counted and summed by the database.
 */
export async function orderCounts(db: Db, storeId: string, since: Date): Promise<OrderCountsRow> {
  const row = await db
    .selectFrom('orders')
    .select([
      sql<string>`count(*) filter (where status = 'paid' and paid_at >= ${since})`.as('paid'),
      sql<{ amount: string; currency: string }[] | null>`(
        SELECT json_agg(json_build_object('currency', r.currency, 'amount', r.amount::text) ORDER BY r.currency)
        FROM (SELECT trim(o.currency) AS currency, sum(o.total_amount) AS amount FROM orders o
              WHERE o.store_id = ${storeId} AND o.status = 'paid' AND o.paid_at >= ${since}
              GROUP BY trim(o.currency)) r)`.as('revenue'),
      sql<string>`count(*) filter (where status = 'pending')`.as('pending'),
      sql<string>`count(*) filter (where status = 'expired' and expired_at >= ${since})`.as('expired'),
    ])
    .where('store_id', '=', storeId)
    .executeTakeFirstOrThrow();
  return {
    paid: Number(row.paid),
    revenue: (row.revenue ?? []).map((r) => ({ amount: Number(r.amount), currency: r.currency })),
    pending: Number(row.pending),
    expired: Number(row.expired),
  };
}

/**
 * Orders by status across every store, and pending orders whose expiry is before `before`: the
 * operator's view (metrics, decision `metrics-off-until-readable`), never a merchant's. The second count reads the partial index of
 * pending orders; the first counts the table.
 */
export async function countOrdersPlatformWide(
  db: Db,
  before: Date,
): Promise<{ byStatus: { status: OrderStatus; count: number | string }[]; pastExpiry: number }> {
  const [byStatus, late] = await Promise.all([
    db
      .selectFrom('orders')
      .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
      .groupBy('status')
      .execute(),
    db
      .selectFrom('orders')
      .where('status', '=', 'pending')
      .where('expires_at', '<', before)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirst(),
  ]);
  return { byStatus, pastExpiry: Number(late?.count ?? 0) };
}
