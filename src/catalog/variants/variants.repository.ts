import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { Database } from '../../db/tables.ts';
import type { VariantRow, VariantTable } from '../catalog.tables.ts';

/** All SQL on variants but their stock (inventory/ holds every stock statement). */

/** The variants of the given products, by product and position. */
export function variantsOfProducts(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<VariantRow[]> {
  return db
    .selectFrom('variants')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('product_id', 'in', [...productIds])
    .orderBy('product_id')
    .orderBy('position')
    .execute();
}

/** The variants of one product, by position. */
export function variantsOfProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<VariantRow[]> {
  return db
    .selectFrom('variants')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .orderBy('position')
    .execute();
}

/** Up to `limit` ids of a product's live (not archived) variants. */
export async function variantIdsOfProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('variants')
    .select('id')
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .where('archived_at', 'is', null)
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The variant row; undefined when unknown (inventory.ts locks it: `lockVariant`). */
export function findVariant(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
): Promise<VariantRow | undefined> {
  return db
    .selectFrom('variants')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .executeTakeFirst();
}

/** One of `skus` that a variant of the store (other than `exceptVariantId`) uses, or undefined. */
export async function findTakenSku(
  db: Kysely<Database>,
  storeId: string,
  skus: readonly string[],
  exceptVariantId?: string,
): Promise<string | undefined> {
  let query = db
    .selectFrom('variants')
    .select('sku')
    .where('store_id', '=', storeId)
    .where('sku', 'in', [...skus]);
  if (exceptVariantId) query = query.where('id', '<>', exceptVariantId);
  const taken = await query.executeTakeFirst();
  return taken?.sku ?? undefined;
}

/** How many variants a product has, and the highest position among them (null without any). */
export async function variantCountAndLastPosition(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<{ count: number; lastPosition: number | null }> {
  const row = await db
    .selectFrom('variants')
    .select((eb) => [eb.fn.max<number>('position').as('position'), eb.fn.countAll<number>().as('n')])
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), lastPosition: row.position === null ? null : Number(row.position) };
}

/** A new variant's values, checked by the service; the repository makes the row. */
export interface NewVariant {
  sku: string | null;
  label: string;
  options: Record<string, string>;
  priceAmount: number;
  compareAtAmount: number | null;
  onHand: number;
  weightGrams: number | null;
  requiresShipping: boolean;
  imageId: string | null;
  /** Its own tax class; null: its product's. */
  taxClass: string | null;
}

function variantRow(
  where: { storeId: string; productId: string; now: Date },
  position: number,
  variant: NewVariant,
): Insertable<VariantTable> {
  return {
    store_id: where.storeId,
    product_id: where.productId,
    position,
    sku: variant.sku,
    label: variant.label,
    options: JSON.stringify(variant.options),
    price_amount: variant.priceAmount,
    compare_at_amount: variant.compareAtAmount,
    on_hand: variant.onHand,
    weight_grams: variant.weightGrams,
    requires_shipping: variant.requiresShipping,
    image_id: variant.imageId,
    tax_class: variant.taxClass,
    created_at: where.now,
    updated_at: where.now,
  };
}

/** Inserts a variant of the product at `position`. */
export function insertVariant(
  db: Kysely<Database>,
  where: { storeId: string; productId: string; now: Date },
  position: number,
  variant: NewVariant,
): Promise<VariantRow> {
  return db
    .insertInto('variants')
    .values(variantRow(where, position, variant))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts the product's variants in one statement, at positions 0, 1, … in their order. */
export async function insertVariants(
  db: Kysely<Database>,
  where: { storeId: string; productId: string; now: Date },
  variants: readonly NewVariant[],
): Promise<string[]> {
  const rows = await db
    .insertInto('variants')
    .values(variants.map((variant, position) => variantRow(where, position, variant)))
    .returning(['id', 'position'])
    .execute();
  return rows.sort((a, b) => a.position - b.position).map((row) => row.id);
}

/** A variant of the bulk import: the columns it sets (the others take their defaults). */
export type BulkVariantRow = Pick<
  VariantRow,
  | 'store_id'
  | 'id'
  | 'product_id'
  | 'position'
  | 'sku'
  | 'label'
  | 'price_amount'
  | 'compare_at_amount'
  | 'on_hand'
>;

/** Inserts many variants in one statement, as `insertBulkProducts` does products. */
export async function insertBulkVariants(
  db: Kysely<Database>,
  variants: readonly BulkVariantRow[],
): Promise<void> {
  if (variants.length === 0) return;
  await sql`
    INSERT INTO variants (store_id, id, product_id, position, sku, label, price_amount, compare_at_amount, on_hand)
    SELECT store_id, id, product_id, position, sku, label, price_amount, compare_at_amount, on_hand
    FROM json_to_recordset(${JSON.stringify(variants)}::json) AS r(
      store_id uuid, id uuid, product_id uuid, position integer, sku text, label text,
      price_amount bigint, compare_at_amount bigint, on_hand integer)`.execute(db);
}

export function updateVariantRow(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  changes: Updateable<VariantTable>,
): Promise<VariantRow> {
  return db
    .updateTable('variants')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Sets `requires_shipping` false on every variant of a product; whether any was true. */
export async function stopShippingProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .updateTable('variants')
    .set({ requires_shipping: false, updated_at: now })
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .where('requires_shipping', '=', true)
    .returning('id')
    .execute();
  return rows.length > 0;
}

export async function deleteVariantRow(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
): Promise<void> {
  await db.deleteFrom('variants').where('store_id', '=', storeId).where('id', '=', variantId).execute();
}

/** A variant found by `lookupVariantRows`, with its product's title. */
export interface VariantLookupRow {
  id: string;
  product_id: string;
  product_title: string;
  label: string;
  sku: string | null;
  archived_at: Date | null;
}

/** The store's variants with one of `ids` or one of `skus` (SKUs compared exactly), by product and position. */
export function lookupVariantRows(
  db: Kysely<Database>,
  storeId: string,
  ids: readonly string[],
  skus: readonly string[],
): Promise<VariantLookupRow[]> {
  return db
    .selectFrom('variants as v')
    .innerJoin('products as p', (join) =>
      join.onRef('p.store_id', '=', 'v.store_id').onRef('p.id', '=', 'v.product_id'),
    )
    .select(['v.id', 'v.product_id', 'p.title as product_title', 'v.label', 'v.sku', 'v.archived_at'])
    .where('v.store_id', '=', storeId)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('v.id', 'in', [...ids])] : []),
        ...(skus.length > 0 ? [eb('v.sku', 'in', [...skus])] : []),
      ]),
    )
    .orderBy('p.title')
    .orderBy('v.product_id')
    .orderBy('v.position')
    .execute();
}

/** Which of these SKUs the store's variants use, with the handle of their product. */
export async function takenSkus(
  db: Kysely<Database>,
  storeId: string,
  skus: readonly string[],
): Promise<Map<string, string>> {
  if (skus.length === 0) return new Map();
  const rows = await db
    .selectFrom('variants as v')
    .innerJoin('products as p', (join) =>
      join.onRef('p.store_id', '=', 'v.store_id').onRef('p.id', '=', 'v.product_id'),
    )
    .select(['v.sku', 'p.handle'])
    .where('v.store_id', '=', storeId)
    .where('v.sku', 'in', [...skus])
    .execute();
  return new Map(rows.map((row) => [row.sku!, row.handle]));
}

/** The variants of these SKUs, by SKU. */
export async function variantIdsBySku(
  db: Kysely<Database>,
  storeId: string,
  skus: readonly string[],
): Promise<Map<string, { id: string; onHand: number; reserved: number }>> {
  if (skus.length === 0) return new Map();
  const rows = await db
    .selectFrom('variants')
    .select(['id', 'sku', 'on_hand', 'reserved'])
    .where('store_id', '=', storeId)
    .where('sku', 'in', [...skus])
    .execute();
  return new Map(rows.map((row) => [row.sku!, { id: row.id, onHand: row.on_hand, reserved: row.reserved }]));
}
