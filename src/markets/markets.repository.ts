import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { MarketRow, MarketTable } from './markets.tables.ts';
import type { Insertable, Updateable } from 'kysely';

/** All SQL on markets, their countries, explicit variant prices and market card prices. */

type Db = Kysely<Database> | Transaction<Database>;

export type MarketWithCountries = MarketRow & { countries: string[] };

/** A store's markets with their countries: the default first, then by creation. */
export async function marketRows(db: Db, storeId: string): Promise<MarketWithCountries[]> {
  const [markets, countries] = await Promise.all([
    db
      .selectFrom('markets')
      .selectAll()
      .where('store_id', '=', storeId)
      .orderBy('is_default', 'desc')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('market_countries')
      .select(['market_id', 'country'])
      .where('store_id', '=', storeId)
      .orderBy('country')
      .execute(),
  ]);
  return markets.map((market) => ({
    ...market,
    exchange_rate: normalRate(market.exchange_rate),
    countries: countries.filter((row) => row.market_id === market.id).map((row) => row.country),
  }));
}

/** numeric comes back as text with the scale it was stored with ("0.920"): the merchant's form. */
export function normalRate(rate: string): string {
  return rate.includes('.') ? rate.replace(/0+$/, '').replace(/\.$/, '') : rate;
}

export function lockMarket(db: Transaction<Database>, storeId: string, marketId: string) {
  return db
    .selectFrom('markets')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', marketId)
    .forUpdate()
    .executeTakeFirst();
}

export function insertMarket(db: Db, values: Insertable<MarketTable>): Promise<MarketRow> {
  return db.insertInto('markets').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateMarketRow(
  db: Db,
  storeId: string,
  marketId: string,
  changes: Updateable<MarketTable>,
): Promise<void> {
  await db
    .updateTable('markets')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('id', '=', marketId)
    .execute();
}

export async function deleteMarketRow(db: Db, storeId: string, marketId: string): Promise<boolean> {
  const row = await db
    .deleteFrom('markets')
    .where('store_id', '=', storeId)
    .where('id', '=', marketId)
    .where('is_default', '=', false)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The markets other than `marketId` that hold any of `countries`: country → market name. */
export async function countriesTaken(
  db: Db,
  storeId: string,
  marketId: string | null,
  countries: readonly string[],
): Promise<{ country: string; name: string }[]> {
  if (countries.length === 0) return [];
  let query = db
    .selectFrom('market_countries as c')
    .innerJoin('markets as m', (join) =>
      join.onRef('m.store_id', '=', 'c.store_id').onRef('m.id', '=', 'c.market_id'),
    )
    .select(['c.country', 'm.name'])
    .where('c.store_id', '=', storeId)
    .where('c.country', 'in', [...countries]);
  if (marketId !== null) query = query.where('c.market_id', '<>', marketId);
  return query.orderBy('c.country').execute();
}

/** Sets a market's countries (a country another market holds makes the database refuse: 23505). */
export async function replaceCountries(
  db: Db,
  storeId: string,
  marketId: string,
  countries: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('market_countries')
    .where('store_id', '=', storeId)
    .where('market_id', '=', marketId)
    .execute();
  if (countries.length === 0) return;
  await db
    .insertInto('market_countries')
    .values(countries.map((country) => ({ store_id: storeId, country, market_id: marketId })))
    .execute();
}
