import type { Transaction } from 'kysely';
import { lockScope } from '../db/advisory-lock.ts';
import { isForeignKeyViolation } from '../db/errors.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { Database } from '../db/tables.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../lib/errors.ts';
import type { TaxClass, TaxClassBody } from './pricing.schemas.ts';
import type { TaxClassRow } from './pricing.tables.ts';
import { areasRatingClass, deleteTaxClass, insertTaxClass, taxClassRows } from './tax-classes.repository.ts';

/**
 * Tax classes (decision `tax-classes`): `standard` is made with every store and cannot go; staff
 * add others (`reduced`, `zero`) and give them rates per area. Products, variants and shipping
 * methods name a class; the database refuses an unknown class there and the deletion of one in use.
 */

type Deps = Pick<ServiceDeps, 'db' | 'clock'>;

export const STANDARD_TAX_CLASS = 'standard';

const classView = (row: TaxClassRow): TaxClass => ({
  code: row.code,
  name: row.name,
  createdAt: row.created_at.toISOString(),
});

/** A store's classes, `standard` first. */
export async function listTaxClasses(deps: Pick<ServiceDeps, 'db'>, storeId: string): Promise<TaxClass[]> {
  const rows = await taxClassRows(deps.db, storeId);
  const first = rows.filter((row) => row.code === STANDARD_TAX_CLASS);
  return [...first, ...rows.filter((row) => row.code !== STANDARD_TAX_CLASS)].map(classView);
}

export async function createTaxClass(deps: Deps, storeId: string, body: TaxClassBody): Promise<TaxClass> {
  const exists = () => new AppError('tax_class_exists', 409, `The tax class ${body.code} exists already.`);
  const now = deps.clock.now();
  const row = await insertTaxClass(deps.db, {
    store_id: storeId,
    code: body.code,
    name: body.name.trim(),
    created_at: now,
    updated_at: now,
  });
  if (!row) throw exists();
  return classView(row);
}

const inUse = (detail: string) => new AppError('tax_class_in_use', 409, detail);

/**
 * Deletes a class no product, variant, shipping method or rate names (409 `tax_class_in_use`
 * otherwise, saying what does). Under the store's tax-class lock, so a rate written at the same
 * time cannot name it after the check.
 */
export async function removeTaxClass(deps: Deps, storeId: string, code: string): Promise<void> {
  if (code === STANDARD_TAX_CLASS) throw inUse('Every store has the standard class: it cannot be deleted.');
  try {
    await deps.db.transaction().execute(async (trx) => {
      await lockScope(trx, 'tax-classes', storeId);
      const areas = await areasRatingClass(trx, storeId, code);
      if (areas.length > 0)
        throw inUse(
          `The rates of ${areas.join(', ')} name the class ${code}: take it out of their classRates first.`,
        );
      if (!(await deleteTaxClass(trx, storeId, code)))
        throw notFound('No tax class with that code in this store.');
    });
  } catch (error) {
    if (isForeignKeyViolation(error))
      throw inUse(
        `Products, variants or shipping methods are taxed at the class ${code}: give them another class first.`,
      );
    throw error;
  }
}

/**
 * Checks the classes a rate names (in the caller's transaction, under the store's tax-class lock):
 * each must exist, and `standard`'s rate is the rate itself. 400 with a pointer per bad class.
 */
export async function assertRatedClasses(
  trx: Transaction<Database>,
  storeId: string,
  classRates: Readonly<Record<string, number>>,
): Promise<void> {
  await lockScope(trx, 'tax-classes', storeId);
  const known = new Set((await taxClassRows(trx, storeId)).map((row) => row.code));
  const errors: FieldError[] = [];
  for (const code of Object.keys(classRates)) {
    if (code === STANDARD_TAX_CLASS)
      errors.push({ pointer: `/classRates/${code}`, detail: 'is the rate itself: set it as taxRateBps' });
    else if (!known.has(code))
      errors.push({
        pointer: `/classRates/${code}`,
        detail: 'is not a tax class of this store (POST /tax-classes)',
      });
  }
  if (errors.length > 0) throw validationFailed('Unknown tax classes.', errors);
}
