import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { TaxServiceRow } from './tax-service.tables.ts';

/** All SQL on the stores' tax services. */

type Db = Kysely<Database>;

export function findTaxService(db: Db, storeId: string): Promise<TaxServiceRow | undefined> {
  return db.selectFrom('tax_services').selectAll().where('store_id', '=', storeId).executeTakeFirst();
}

/** Creates the store's service with its sealed secret; undefined when it has one already. */
export function insertTaxService(
  db: Db,
  values: Pick<
    TaxServiceRow,
    'store_id' | 'url' | 'active' | 'secret_ciphertext' | 'created_at' | 'updated_at'
  >,
): Promise<TaxServiceRow | undefined> {
  return db
    .insertInto('tax_services')
    .values(values)
    .onConflict((oc) => oc.column('store_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Changes the store's service; undefined when it has none. */
export function updateTaxService(
  db: Db,
  storeId: string,
  changes: Partial<Pick<TaxServiceRow, 'url' | 'active' | 'secret_ciphertext'>> & { updated_at: Date },
): Promise<TaxServiceRow | undefined> {
  return db
    .updateTable('tax_services')
    .set(changes)
    .where('store_id', '=', storeId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteTaxService(db: Db, storeId: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('tax_services')
    .where('store_id', '=', storeId)
    .returning('store_id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** Every store's sealed secret after `after` (store order), for `storefront secrets rotate`. */
export function taxServiceSecretsAfter(
  db: Db,
  after: { store_id: string } | undefined,
  limit: number,
): Promise<Pick<TaxServiceRow, 'store_id' | 'secret_ciphertext'>[]> {
  let query = db.selectFrom('tax_services').select(['store_id', 'secret_ciphertext']);
  if (after) query = query.where('store_id', '>', after.store_id);
  return query.orderBy('store_id').limit(limit).execute();
}

/** Writes a re-sealed secret, unless the secret changed meanwhile (a rotation by staff). */
export async function writeTaxServiceSecret(
  db: Db,
  row: Pick<TaxServiceRow, 'store_id' | 'secret_ciphertext'>,
  sealed: string,
): Promise<void> {
  await db
    .updateTable('tax_services')
    .set({ secret_ciphertext: sealed })
    .where('store_id', '=', row.store_id)
    .where('secret_ciphertext', '=', row.secret_ciphertext)
    .execute();
}
