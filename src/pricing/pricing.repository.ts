import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { TaxRateRow } from './pricing.tables.ts';

/** All SQL on tax and shipping rates (discount codes are promotions: src/promotions/). */

type Db = Kysely<Database>;

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
