import { sql, type Kysely, type Transaction, type Updateable } from 'kysely';
import type { Database } from '../../db/tables.ts';
import type { PriceListKind, PriceListRow, PriceListTable } from './price-lists.tables.ts';

/** All SQL on price lists, their markets, groups and prices (decision `price-lists`). */

type Db = Kysely<Database> | Transaction<Database>;

export type PriceListWithScope = PriceListRow & {
  market_ids: string[];
  group_ids: string[];
  price_count: number;
};

/** The admin list's query: a store's price lists with their markets, groups and price counts. */
export function priceListsQuery(db: Db, storeId: string) {
  return db
    .selectFrom('price_lists')
    .selectAll()
    .select([
      sql<string[]>`coalesce((
        SELECT json_agg(m.market_id ORDER BY m.market_id) FROM price_list_markets m
        WHERE m.store_id = price_lists.store_id AND m.price_list_id = price_lists.id), '[]'::json)`.as(
        'market_ids',
      ),
      sql<string[]>`coalesce((
        SELECT json_agg(g.group_id ORDER BY g.group_id) FROM price_list_groups g
        WHERE g.store_id = price_lists.store_id AND g.price_list_id = price_lists.id), '[]'::json)`.as(
        'group_ids',
      ),
      sql<number>`(
        SELECT count(*) FROM price_list_prices p
        WHERE p.store_id = price_lists.store_id AND p.price_list_id = price_lists.id)`.as('price_count'),
    ])
    .where('price_lists.store_id', '=', storeId);
}

export function findPriceList(db: Db, storeId: string, priceListId: string) {
  return priceListsQuery(db, storeId).where('price_lists.id', '=', priceListId).executeTakeFirst();
}

/** A list's prices, by variant id, then currency. */
export function priceListPrices(db: Db, storeId: string, priceListId: string) {
  return db
    .selectFrom('price_list_prices')
    .select(['variant_id', 'currency', 'amount'])
    .where('store_id', '=', storeId)
    .where('price_list_id', '=', priceListId)
    .orderBy('variant_id')
    .orderBy('currency')
    .execute();
}

export function lockPriceList(trx: Transaction<Database>, storeId: string, priceListId: string) {
  return trx
    .selectFrom('price_lists')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', priceListId)
    .forUpdate()
    .executeTakeFirst();
}

export function insertPriceList(
  trx: Transaction<Database>,
  values: {
    storeId: string;
    name: string;
    kind: PriceListKind;
    allMarkets: boolean;
    allGroups: boolean;
    startsAt: Date | null;
    endsAt: Date | null;
    now: Date;
  },
): Promise<PriceListRow> {
  return trx
    .insertInto('price_lists')
    .values({
      store_id: values.storeId,
      name: values.name,
      kind: values.kind,
      all_markets: values.allMarkets,
      all_groups: values.allGroups,
      starts_at: values.startsAt,
      ends_at: values.endsAt,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updatePriceListRow(
  trx: Transaction<Database>,
  storeId: string,
  priceListId: string,
  changes: Updateable<PriceListTable>,
): Promise<void> {
  await trx
    .updateTable('price_lists')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('id', '=', priceListId)
    .execute();
}

export async function deletePriceListRow(db: Db, storeId: string, priceListId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('price_lists')
    .where('store_id', '=', storeId)
    .where('id', '=', priceListId)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Sets a list's markets (a market of another store, or deleted meanwhile: 23503). */
export async function replacePriceListMarkets(
  trx: Transaction<Database>,
  storeId: string,
  priceListId: string,
  marketIds: readonly string[],
): Promise<void> {
  await trx
    .deleteFrom('price_list_markets')
    .where('store_id', '=', storeId)
    .where('price_list_id', '=', priceListId)
    .execute();
  if (marketIds.length === 0) return;
  await trx
    .insertInto('price_list_markets')
    .values(
      marketIds.map((marketId) => ({ store_id: storeId, price_list_id: priceListId, market_id: marketId })),
    )
    .execute();
}

/** Sets a list's customer groups (a group that is not one of the store's: 23503). */
export async function replacePriceListGroups(
  trx: Transaction<Database>,
  storeId: string,
  priceListId: string,
  groupIds: readonly string[],
): Promise<void> {
  await trx
    .deleteFrom('price_list_groups')
    .where('store_id', '=', storeId)
    .where('price_list_id', '=', priceListId)
    .execute();
  if (groupIds.length === 0) return;
  await trx
    .insertInto('price_list_groups')
    .values(groupIds.map((groupId) => ({ store_id: storeId, price_list_id: priceListId, group_id: groupId })))
    .execute();
}

/**
 * Sets a list's prices, the new ones in one statement whatever their number (a variant that is not
 * one of the store's: 23503).
 */
export async function replacePriceListPrices(
  trx: Transaction<Database>,
  storeId: string,
  priceListId: string,
  prices: readonly { variantId: string; currency: string; amount: number }[],
): Promise<void> {
  await trx
    .deleteFrom('price_list_prices')
    .where('store_id', '=', storeId)
    .where('price_list_id', '=', priceListId)
    .execute();
  if (prices.length === 0) return;
  const rows = JSON.stringify(prices.map((p) => ({ v: p.variantId, c: p.currency, a: p.amount })));
  await sql`
    INSERT INTO price_list_prices (store_id, price_list_id, variant_id, currency, amount)
    SELECT ${storeId}::uuid, ${priceListId}::uuid, p.v, p.c, p.a
    FROM json_to_recordset(${rows}::json) AS p(v uuid, c text, a bigint)`.execute(trx);
}

/** Those of `variantIds` that are variants of the store. */
export async function existingVariantIds(
  db: Db,
  storeId: string,
  variantIds: readonly string[],
): Promise<string[]> {
  if (variantIds.length === 0) return [];
  const rows = await db
    .selectFrom('variants')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', '=', sql<string>`ANY(${[...variantIds]}::uuid[])`)
    .execute();
  return rows.map((row) => row.id);
}

export interface ActivePriceListRow {
  variant_id: string;
  price_list_id: string;
  name: string;
  kind: PriceListKind;
  amount: number;
  starts_at: Date | null;
  ends_at: Date | null;
  created_at: Date;
}

/**
 * The price-list entries that apply to these variants for one buyer at one moment, in one
 * statement: lists in force at `at` (`starts_at` ≤ at < `ends_at`), in every market or in
 * `marketId`, for every buyer or for one of `groupIds`, with a price in `currency`. Per variant, in
 * the order decision `price-lists` ranks them: sales lowest first, then overrides newest first.
 */
export async function activePriceListRows(
  db: Db,
  storeId: string,
  variantIds: readonly string[],
  scope: { marketId: string; currency: string; groupIds: readonly string[]; at: Date },
): Promise<ActivePriceListRow[]> {
  if (variantIds.length === 0) return [];
  const { rows } = await sql<ActivePriceListRow>`
    SELECT pp.variant_id, pl.id AS price_list_id, pl.name, pl.kind, pp.amount, pl.starts_at, pl.ends_at,
           pl.created_at
    FROM price_list_prices pp
    JOIN price_lists pl ON pl.store_id = pp.store_id AND pl.id = pp.price_list_id
    WHERE pp.store_id = ${storeId}::uuid
      AND pp.variant_id = ANY(${[...variantIds]}::uuid[])
      AND pp.currency = ${scope.currency}
      AND (pl.starts_at IS NULL OR pl.starts_at <= ${scope.at})
      AND (pl.ends_at IS NULL OR pl.ends_at > ${scope.at})
      AND (pl.all_markets OR EXISTS (
        SELECT 1 FROM price_list_markets m
        WHERE m.store_id = pl.store_id AND m.price_list_id = pl.id AND m.market_id = ${scope.marketId}::uuid))
      AND (pl.all_groups OR EXISTS (
        SELECT 1 FROM price_list_groups g
        WHERE g.store_id = pl.store_id AND g.price_list_id = pl.id
          AND g.group_id = ANY(${[...scope.groupIds]}::uuid[])))
    ORDER BY pp.variant_id, pl.kind = 'sale' DESC,
             CASE WHEN pl.kind = 'sale' THEN pp.amount END, pl.created_at DESC, pl.id`.execute(db);
  return rows;
}
