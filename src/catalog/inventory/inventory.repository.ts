import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.ts';
import { eventInsert, type NewEvent } from '../../events/events.ts';
import type { VariantRow } from '../catalog.tables.ts';

/**
 * Every stock statement of the catalog (inventory.ts and sellable.ts call them): what may be sold,
 * reservations, sales, releases, restocks, locks and low stock.
 */

/** Current price, titles and stock of the store's variants whose product is active. */
export function findSellableVariants(db: Kysely<Database>, storeId: string, variantIds: readonly string[]) {
  return db
    .selectFrom('variants as v')
    .innerJoin('products as p', (join) =>
      join.onRef('p.store_id', '=', 'v.store_id').onRef('p.id', '=', 'v.product_id'),
    )
    .select([
      'v.id as variantId',
      'v.product_id as productId',
      'p.title',
      'v.label',
      'v.sku',
      'v.price_amount as priceAmount',
      'v.on_hand as onHand',
      'v.reserved',
      'v.weight_grams as weightGrams',
      'v.requires_shipping as requiresShipping',
      sql<string>`coalesce(v.tax_class, p.tax_class, 'standard')`.as('taxClass'),
      'p.gift_card as giftCard',
    ])
    .where('v.store_id', '=', storeId)
    .where('v.id', 'in', [...variantIds])
    .where('p.status', '=', 'active')
    .where('v.archived_at', 'is', null)
    .execute();
}

export interface StockLevel {
  product_id: string;
  on_hand: number;
  reserved: number;
}

export function stockLevel(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
): Promise<Pick<VariantRow, 'on_hand' | 'reserved'> | undefined> {
  return db
    .selectFrom('variants')
    .select(['on_hand', 'reserved'])
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .executeTakeFirst();
}

/** A variant at or below a stock level, with its product's title. */
export interface LowStockRow {
  product_id: string;
  product_title: string;
  id: string;
  label: string;
  sku: string | null;
  on_hand: number;
  reserved: number;
}

/**
 * Variants of active products whose sellable stock (`on_hand − reserved`) is at most `threshold`:
 * the first `limit`, least stock first, and how many there are in all.
 */
export async function lowStockVariants(
  db: Kysely<Database>,
  storeId: string,
  threshold: number,
  limit: number,
): Promise<{ rows: LowStockRow[]; count: number }> {
  const low = db
    .selectFrom('variants as v')
    .innerJoin('products as p', (join) =>
      join.onRef('p.store_id', '=', 'v.store_id').onRef('p.id', '=', 'v.product_id'),
    )
    .where('v.store_id', '=', storeId)
    .where('p.status', '=', 'active')
    .where('v.archived_at', 'is', null)
    .where(sql<boolean>`v.on_hand - v.reserved <= ${threshold}`);
  const [rows, total] = await Promise.all([
    low
      .select([
        'v.product_id',
        'p.title as product_title',
        'v.id',
        'v.label',
        'v.sku',
        'v.on_hand',
        'v.reserved',
      ])
      .orderBy(sql`v.on_hand - v.reserved`)
      .orderBy('p.title')
      .orderBy('v.position')
      .limit(limit)
      .execute(),
    low.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

/** The variant row, locked for the rest of the transaction; undefined when unknown. */
export function lockVariant(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
): Promise<VariantRow | undefined> {
  return db
    .selectFrom('variants')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .forUpdate()
    .executeTakeFirst();
}

/** Sets on hand (the caller locked the row and checked what is reserved); the row after. */
export function updateOnHand(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  onHand: number,
  now: Date,
): Promise<VariantRow> {
  return db
    .updateTable('variants')
    .set({ on_hand: onHand, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The given variants' stock, locked in id order. */
export function lockStockLevels(
  db: Kysely<Database>,
  storeId: string,
  variantIds: readonly string[],
): Promise<(StockLevel & { id: string })[]> {
  return db
    .selectFrom('variants')
    .select(['id', 'product_id', 'on_hand', 'reserved'])
    .where('store_id', '=', storeId)
    .where('id', 'in', [...variantIds])
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Adds to `reserved` only while `on_hand − reserved >= quantity`; undefined when short or unknown.
 * When it reserved, the same statement records `event` with the variant's `productId` and its
 * `available` after the reservation added to the event's data, and returns the variant's price and
 * whether its product is active.
 */
export function reserveIfAvailable(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
  event: NewEvent,
): Promise<(StockLevel & { price_amount: number; sellable: boolean }) | undefined> {
  return db
    .with('r', (db) =>
      db
        .updateTable('variants')
        .set((eb) => ({ reserved: eb('reserved', '+', quantity), updated_at: now }))
        .where('store_id', '=', storeId)
        .where('id', '=', variantId)
        .where(sql<boolean>`on_hand - reserved >= ${quantity}`)
        .returning((eb) => [
          'product_id',
          'on_hand',
          'reserved',
          'price_amount',
          eb
            .exists(
              eb
                .selectFrom('products as p')
                .select(sql`1`.as('one'))
                .where('p.store_id', '=', storeId)
                .whereRef('p.id', '=', 'variants.product_id')
                .where('p.status', '=', 'active')
                .where(sql<boolean>`variants.archived_at IS NULL`),
            )
            .$castTo<boolean>()
            .as('sellable'),
        ]),
    )
    .with('e', (db) =>
      eventInsert(db, event, {
        from: 'r',
        more: sql`jsonb_build_object('productId', r.product_id, 'available', greatest(0, r.on_hand - r.reserved))`,
      }),
    )
    .selectFrom('r')
    .selectAll()
    .executeTakeFirst();
}

/**
 * The levels of a variant after a change, and before it; and whether its product sells gift cards
 * (decision `gift-card-products`: a sale reads it without a statement of its own).
 */
export type StockShift = StockLevel & { old_on_hand: number; old_reserved: number; gift_card: boolean };

/**
 * Moves levels by their deltas (each stopping at zero), locking the row; the levels after and
 * before, or undefined when the variant is gone.
 */
async function shiftStock(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  deltas: Partial<Record<'on_hand' | 'reserved', number>>,
  now: Date,
): Promise<StockShift | undefined> {
  const changes = Object.entries(deltas).map(
    ([level, delta]) => sql`${sql.ref(level)} = greatest(${sql.ref(`v.${level}`)} + ${delta}, 0)`,
  );
  const { rows } = await sql<StockShift>`
      WITH old AS (
        SELECT id, on_hand, reserved FROM variants
        WHERE store_id = ${storeId} AND id = ${variantId}
        FOR UPDATE
      )
      UPDATE variants v
      SET ${sql.join(changes)}, updated_at = ${now}
      FROM old
      WHERE v.store_id = ${storeId} AND v.id = old.id
      RETURNING v.product_id, v.on_hand, v.reserved, old.on_hand AS old_on_hand, old.reserved AS old_reserved,
        (SELECT p.gift_card FROM products p WHERE p.store_id = v.store_id AND p.id = v.product_id) AS gift_card`.execute(
    db,
  );
  return rows[0];
}

/** Lowers on hand and reserved by `quantity` (stopping at zero): reserved units sold. */
export function sellFromReserved(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
): Promise<StockShift | undefined> {
  return shiftStock(db, storeId, variantId, { on_hand: -quantity, reserved: -quantity }, now);
}

/** Lowers reserved by `quantity` (stopping at zero). */
export function releaseFromReserved(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
): Promise<StockShift | undefined> {
  return shiftStock(db, storeId, variantId, { reserved: -quantity }, now);
}

/** Raises on hand by `quantity` (units came back). */
export function addToOnHand(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
): Promise<StockShift | undefined> {
  return shiftStock(db, storeId, variantId, { on_hand: quantity }, now);
}

/** Lowers on hand by `quantity` (the caller checked and locked the row). */
export function takeFromOnHand(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
): Promise<StockLevel> {
  return db
    .updateTable('variants')
    .set((eb) => ({ on_hand: eb('on_hand', '-', quantity), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .returning(['product_id', 'on_hand', 'reserved'])
    .executeTakeFirstOrThrow();
}
