import {
  sql,
  type Insertable,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  type Transaction,
  type Updateable,
} from 'kysely';
import type { Database } from '../db/tables.ts';
import type { PromotionRow, PromotionTable } from './promotions.tables.ts';

/** All SQL on promotions. */

type Db = Kysely<Database>;

export function promotionsQuery(
  db: Db,
  storeId: string,
): SelectQueryBuilder<Database, 'promotions', PromotionRow> {
  return db.selectFrom('promotions').selectAll().where('store_id', '=', storeId);
}

export function findPromotion(db: Db, storeId: string, id: string): Promise<PromotionRow | undefined> {
  return promotionsQuery(db, storeId).where('id', '=', id).executeTakeFirst();
}

/** The promotion, locked until the transaction ends (a change reads, merges and writes it). */
export function lockPromotion(
  trx: Transaction<Database>,
  storeId: string,
  id: string,
): Promise<PromotionRow | undefined> {
  return promotionsQuery(trx, storeId).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Inserts a promotion; undefined when the store has its code already. */
export function insertPromotion(
  db: Db,
  values: Insertable<PromotionTable>,
): Promise<PromotionRow | undefined> {
  return db
    .insertInto('promotions')
    .values(values)
    .onConflict((oc) => oc.constraint('promotions_code_key').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updatePromotionRow(
  db: Db,
  storeId: string,
  id: string,
  values: Updateable<PromotionTable>,
): Promise<PromotionRow> {
  return db
    .updateTable('promotions')
    .set(values)
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function deletePromotionRow(
  db: Db,
  storeId: string,
  id: string,
  discountCodeOnly = false,
): Promise<{ id: string; code: string | null } | undefined> {
  let query = db.deleteFrom('promotions').where('store_id', '=', storeId).where('id', '=', id);
  if (discountCodeOnly) query = query.where(IS_DISCOUNT_CODE);
  return query.returning(['id', 'code']).executeTakeFirst();
}

/**
 * The promotions a discount code of the old endpoints can say (decision `discount-codes-are-promotions`): a code, no
 * condition and no per-customer limit, and a whole percentage or an amount off the order.
 */
export const IS_DISCOUNT_CODE = sql<SqlBool>`(code IS NOT NULL AND conditions = '{}'::jsonb
  AND per_customer_limit IS NULL AND action->>'target' = 'order'
  AND (action->>'kind' = 'amount' OR (action->>'kind' = 'percent' AND (action->>'bps')::int % 100 = 0)))`;

export function discountCodesQuery(
  db: Db,
  storeId: string,
): SelectQueryBuilder<Database, 'promotions', PromotionRow> {
  return promotionsQuery(db, storeId).where(IS_DISCOUNT_CODE);
}

/** The automatic promotions that have not ended by `now`, and those of `codes` (upper case) whatever their dates. */
export function promotionsInForce(
  db: Db,
  storeId: string,
  codes: readonly string[],
  automatic: boolean,
  now: Date,
): Promise<PromotionRow[]> {
  return promotionsQuery(db, storeId)
    .where((eb) => {
      const which = [];
      // Automatic ones that have not ended; the codes' whatever their dates (an ended code is
      // reported `ended`, not `unknown`).
      if (automatic)
        which.push(
          eb.and([eb('automatic', '=', true), eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)])]),
        );
      if (codes.length > 0) which.push(eb('code', 'in', codes));
      return eb.or(which);
    })
    .execute();
}

/**
 * The promotions `ids` of the store, locked in id order (a row's place in the table moves with
 * each update, so an UPDATE over several rows would lock them in an order that differs between
 * transactions, and two checkouts could deadlock).
 */
const lockedInOrder = (storeId: string, ids: readonly string[]) =>
  sql`SELECT id FROM promotions WHERE store_id = ${storeId} AND id = ANY(${[...ids]}::uuid[]) ORDER BY id FOR UPDATE`;

/**
 * Counts one use of each promotion an order applies, where its limit allows (decision
 * `promotion-limits`): the ids whose use was counted. A promotion used up meanwhile is missing.
 * One statement.
 */
export async function countPromotionUses(
  trx: Transaction<Database>,
  storeId: string,
  ids: readonly string[],
  now: Date,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`
    WITH locked AS (${lockedInOrder(storeId, ids)})
    UPDATE promotions p SET used_count = p.used_count + 1, updated_at = ${now}
    FROM locked
    WHERE p.store_id = ${storeId} AND p.id = locked.id
      AND (p.usage_limit IS NULL OR p.used_count < p.usage_limit)
    RETURNING p.id`.execute(trx);
  return new Set(rows.map((row) => row.id));
}

/** Moves the use counts of promotions by `delta` (-1 never below zero; +1 whatever the limit). */
export async function adjustPromotionUses(
  trx: Transaction<Database>,
  storeId: string,
  ids: readonly string[],
  delta: 1 | -1,
  now: Date,
): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    WITH locked AS (${lockedInOrder(storeId, ids)})
    UPDATE promotions p SET used_count = p.used_count + ${delta}, updated_at = ${now}
    FROM locked
    WHERE p.store_id = ${storeId} AND p.id = locked.id AND p.used_count >= ${delta === -1 ? 1 : 0}`.execute(
    trx,
  );
}
