import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { TaxClassRow } from './pricing.tables.ts';

/** All SQL on tax classes (decision `tax-classes`). */

type Db = Kysely<Database> | Transaction<Database>;

export function taxClassRows(db: Db, storeId: string): Promise<TaxClassRow[]> {
  return db.selectFrom('tax_classes').selectAll().where('store_id', '=', storeId).orderBy('code').execute();
}

export function insertTaxClass(
  db: Db,
  values: Pick<TaxClassRow, 'store_id' | 'code' | 'name' | 'created_at' | 'updated_at'>,
): Promise<TaxClassRow | undefined> {
  return db
    .insertInto('tax_classes')
    .values(values)
    .onConflict((oc) => oc.columns(['store_id', 'code']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a class; a product, variant or method that names it makes the database refuse (23503). */
export async function deleteTaxClass(db: Db, storeId: string, code: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('tax_classes')
    .where('store_id', '=', storeId)
    .where('code', '=', code)
    .returning('code')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** The areas whose rates name a class (its rate there), locked until the caller's transaction ends. */
export async function areasRatingClass(
  db: Transaction<Database>,
  storeId: string,
  code: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('tax_rates')
    .select('country')
    .where('store_id', '=', storeId)
    .where(sql<boolean>`class_rates ? ${code}`)
    .forUpdate()
    .execute();
  return rows.map((row) => row.country.trim());
}
