import type { Insertable, Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { DiscountRow, DiscountTable, TaxRateRow } from './pricing.tables.ts';

/** All SQL on discount codes and on tax and shipping rates. */

type Db = Kysely<Database>;

export function discountsQuery(
  db: Db,
  storeId: string,
): SelectQueryBuilder<Database, 'discounts', DiscountRow> {
  return db.selectFrom('discounts').selectAll().where('store_id', '=', storeId);
}

export function findDiscountByCode(db: Db, storeId: string, code: string): Promise<DiscountRow | undefined> {
  return discountsQuery(db, storeId).where('code', '=', code).executeTakeFirst();
}

/** Inserts a discount; undefined when the store has that code already. */
export function insertDiscount(db: Db, values: Insertable<DiscountTable>): Promise<DiscountRow | undefined> {
  return db
    .insertInto('discounts')
    .values(values)
    .onConflict((oc) => oc.columns(['store_id', 'code']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function deleteDiscount(db: Db, storeId: string, discountId: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('discounts')
    .where('store_id', '=', storeId)
    .where('id', '=', discountId)
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** Counts one use of a discount if its limit allows; false when it is used up. */
export async function countDiscountUse(
  trx: Transaction<Database>,
  storeId: string,
  discountId: string,
  now: Date,
): Promise<boolean> {
  const used = await trx
    .updateTable('discounts')
    .set((eb) => ({ used_count: eb('used_count', '+', 1), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('id', '=', discountId)
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('used_count', '<', eb.ref('usage_limit'))]))
    .returning('id')
    .executeTakeFirst();
  return used !== undefined;
}

/**
 * Moves a discount's use count by `delta` for the code an order kept: -1 gives a use back (never
 * below zero), +1 counts one again whatever the limit. Nothing when the code was deleted since.
 */
export async function adjustDiscountUse(
  trx: Transaction<Database>,
  storeId: string,
  code: string,
  delta: 1 | -1,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('discounts')
    .set((eb) => ({ used_count: eb('used_count', '+', delta), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('code', '=', code)
    .where('used_count', '>=', delta === -1 ? 1 : 0)
    .execute();
}

export function taxRates(db: Db, storeId: string): Promise<TaxRateRow[]> {
  return db.selectFrom('tax_rates').selectAll().where('store_id', '=', storeId).orderBy('country').execute();
}

export function upsertTaxRate(
  db: Db,
  storeId: string,
  country: string,
  values: Pick<TaxRateRow, 'tax_rate_bps' | 'updated_at'> &
    Partial<{ class_rates: string; shipping_tax: TaxRateRow['shipping_tax'] }>,
): Promise<TaxRateRow> {
  return db
    .insertInto('tax_rates')
    .values({ store_id: storeId, country, ...values })
    .onConflict((oc) => oc.columns(['store_id', 'country']).doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteTaxRate(db: Db, storeId: string, country: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('tax_rates')
    .where('store_id', '=', storeId)
    .where('country', '=', country)
    .returning('country')
    .executeTakeFirst();
  return deleted !== undefined;
}
