import {
  sql,
  type Insertable,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  type Updateable,
} from 'kysely';
import type { Database } from '../db/tables.ts';
import { eventInsert, type NewEvent } from '../events/events.ts';
import type {
  ProductImageRow,
  ProductOption,
  ProductRow,
  ProductStatus,
  ProductTable,
  VariantRow,
  VariantTable,
} from './catalog.tables.ts';

/** All SQL on products and variants (stock included: inventory.ts and sellable.ts call it too). */

// Products

/** Bounds on a product's sellable stock (`sellableStock`): more than `above`, at most `atMost`. */
export interface StockBounds {
  above?: number;
  atMost?: number;
}

export function productsQuery(
  db: Kysely<Database>,
  storeId: string,
  filter: {
    status?: ProductStatus | undefined;
    q?: string | undefined;
    /** Only the members of this collection (manual or smart: smart membership is kept in collection_products). */
    collectionId?: string | undefined;
    stock?: StockBounds | undefined;
  } = {},
): SelectQueryBuilder<Database, 'products', ProductRow> {
  let query = db.selectFrom('products').selectAll().where('store_id', '=', storeId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.q) query = query.where(matchesSearch(storeId, filter.q));
  if (filter.collectionId !== undefined) query = query.where(inCollection(storeId, filter.collectionId));
  if (filter.stock?.above !== undefined)
    query = query.where(sql<SqlBool>`${sellableStock(storeId)} > ${filter.stock.above}`);
  if (filter.stock?.atMost !== undefined)
    query = query.where(sql<SqlBool>`${sellableStock(storeId)} <= ${filter.stock.atMost}`);
  return query;
}

function inCollection(storeId: string, collectionId: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`EXISTS (
    SELECT 1 FROM collection_products cp
    WHERE cp.store_id = ${storeId}::uuid AND cp.collection_id = ${collectionId}::uuid AND cp.product_id = products.id)`;
}

/**
 * A product's sellable stock: the sum of its variants' available units, max(0, on_hand − reserved)
 * each (an oversold variant counts 0, not less) over its live variants (archived ones are not sold),
 * 0 without variants.
 */
function sellableStock(storeId: string): RawBuilder<number> {
  return sql<number>`coalesce((
    SELECT sum(greatest(v.on_hand - v.reserved, 0)) FROM variants v
    WHERE v.store_id = ${storeId}::uuid AND v.product_id = products.id AND v.archived_at IS NULL), 0)`;
}

/** The admin list's orders other than by creation time (`productsInOrder`). */
export type ProductOrder = 'title_asc' | 'price_asc' | 'price_desc';

/** Combining marks, dropped after NFKD so that "Éclair" sorts as "eclair". */
const COMBINING_MARKS = '[\u0300-\u036f]';

/**
 * `query`'s products with their sort key for `order` as columns of the subquery `sorted`, for
 * keyset pagination on `(sorted.sort_rank, sorted.sort_value, sorted.id)`, every column ascending
 * (`title_asc`, `price_asc`) or descending (`price_desc`):
 *
 * - by title: `sort_value` is the title lower-cased with accents folded, compared byte by byte
 *   (COLLATE "C": the same order on every database, whatever its locale); `sort_rank` is 0;
 * - by price: `sort_value` is the card price (the lowest variant price) and `sort_rank` puts the
 *   products without one (no variants) last in either direction.
 */
export function productsInOrder(
  db: Kysely<Database>,
  query: SelectQueryBuilder<Database, 'products', ProductRow>,
  order: ProductOrder,
) {
  let rank: RawBuilder<number>;
  let value: RawBuilder<string | number>;
  switch (order) {
    case 'title_asc':
      rank = sql<number>`0`;
      value = sql<string>`lower(regexp_replace(normalize(products.title, NFKD), ${COMBINING_MARKS}, '', 'g')) COLLATE "C"`;
      break;
    case 'price_asc':
      rank = sql<number>`CASE WHEN products.price_amount IS NULL THEN 1 ELSE 0 END`;
      value = sql<number>`coalesce(products.price_amount, 0)`;
      break;
    case 'price_desc':
      rank = sql<number>`CASE WHEN products.price_amount IS NULL THEN 0 ELSE 1 END`;
      value = sql<number>`coalesce(products.price_amount, 0)`;
      break;
  }
  const keyed = query.select([rank.as('sort_rank'), value.as('sort_value')]);
  return db.selectFrom(keyed.as('sorted')).selectAll('sorted');
}

/**
 * The admin search: the title contains `q`, or a variant of the product (in the same store) has a
 * SKU containing it; case-insensitive, and `q` is a plain string (strpos, so `%` and `_` are literal).
 */
function matchesSearch(storeId: string, q: string): RawBuilder<SqlBool> {
  const needle = sql`lower(${q}::text)`;
  return sql<SqlBool>`(strpos(lower(products.title), ${needle}) > 0 OR EXISTS (
    SELECT 1 FROM variants v
    WHERE v.store_id = ${storeId}::uuid AND v.product_id = products.id AND strpos(lower(v.sku), ${needle}) > 0))`;
}

export function findProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<ProductRow | undefined> {
  return productsQuery(db, storeId).where('id', '=', productId).executeTakeFirst();
}

/** The product row, locked for the rest of the transaction; undefined when unknown. */
export function lockProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<ProductRow | undefined> {
  return productsQuery(db, storeId).where('id', '=', productId).forUpdate().executeTakeFirst();
}

/** The ids among `productIds` that are products of the store. */
export async function existingProductIds(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<string[]> {
  const rows = await db
    .selectFrom('products')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', 'in', [...productIds])
    .execute();
  return rows.map((row) => row.id);
}

export function insertProduct(
  db: Kysely<Database>,
  product: {
    storeId: string;
    title: string;
    description: string;
    status: ProductStatus;
    image: string | null;
    tags: string[];
    priceAmount: number | null;
    compareAtAmount: number | null;
    options: ProductOption[];
    /** Left out: made from the title by the database (unique in the store). */
    handle: string | undefined;
    seoTitle: string | null;
    seoDescription: string | null;
    now: Date;
  },
): Promise<ProductRow> {
  return db
    .insertInto('products')
    .values({
      store_id: product.storeId,
      title: product.title,
      description: product.description,
      status: product.status,
      image: product.image,
      tags: product.tags,
      price_amount: product.priceAmount,
      compare_at_amount: product.compareAtAmount,
      options: JSON.stringify(product.options),
      ...(product.handle !== undefined ? { handle: product.handle } : {}),
      seo_title: product.seoTitle,
      seo_description: product.seoDescription,
      created_at: product.now,
      updated_at: product.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** How many products the store has, in any status. */
export async function countProducts(db: Kysely<Database>, storeId: string): Promise<number> {
  const row = await db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('store_id', '=', storeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Refreshes the planner's statistics of products and variants. After a bulk import and before
 * autovacuum's next ANALYZE (PGlite runs none), the planner takes a store's million products for
 * a few dozen and sorts all of them for a 100-item list page instead of reading the index.
 */
export async function analyzeProducts(db: Kysely<Database>): Promise<void> {
  await sql`ANALYZE products, variants`.execute(db);
}

/** A product of the bulk import, every column given (`updated_at` is the time of the insert). */
export interface BulkProductRow {
  store_id: string;
  id: string;
  title: string;
  description: string;
  status: ProductStatus;
  image: string | null;
  tags: string[];
  price_amount: number;
  created_at: Date;
  /** Its variants' SKUs in position order, space-separated (search, D48): the variants' insert then leaves the row alone. */
  search_skus: string;
}

/**
 * Inserts many products in one statement (the bulk import). The rows travel as one JSON parameter
 * read back by `json_to_recordset`: one round trip and one parameter whatever the batch size (a
 * multi-row VALUES needs a parameter per value, at most 65,535 per statement, and building and
 * binding them costs more than the JSON).
 */
export async function insertBulkProducts(
  db: Kysely<Database>,
  products: readonly BulkProductRow[],
): Promise<void> {
  if (products.length === 0) return;
  await sql`
    INSERT INTO products (store_id, id, title, description, status, image, tags, price_amount, created_at, search_skus)
    SELECT store_id, id, title, description, status, image, tags, price_amount, created_at, search_skus
    FROM json_to_recordset(${JSON.stringify(products)}::json) AS r(
      store_id uuid, id uuid, title text, description text, status text, image text, tags text[],
      price_amount bigint, created_at timestamptz, search_skus text)`.execute(db);
}

export async function updateProductRow(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  changes: Updateable<ProductTable>,
): Promise<void> {
  await db
    .updateTable('products')
    .set(changes)
    .where('store_id', '=', storeId)
    .where('id', '=', productId)
    .execute();
}

/**
 * Recomputes the card price (the lowest variant price, null without variants) and its compare-at
 * (the cheapest variant's, first by position, when higher than its price) and returns the price.
 */
export async function refreshCardPrice(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<number | null> {
  const row = await db
    .updateTable('products')
    .set({
      price_amount: sql<
        number | null
      >`(SELECT min(v.price_amount) FROM variants v WHERE v.store_id = ${storeId}::uuid AND v.product_id = ${productId}::uuid AND v.archived_at IS NULL)`,
      compare_at_amount: sql<number | null>`(
        SELECT CASE WHEN v.compare_at_amount > v.price_amount THEN v.compare_at_amount END
        FROM variants v WHERE v.store_id = ${storeId}::uuid AND v.product_id = ${productId}::uuid AND v.archived_at IS NULL
        ORDER BY v.price_amount, v.position LIMIT 1)`,
    })
    .where('store_id', '=', storeId)
    .where('id', '=', productId)
    .returning('price_amount')
    .executeTakeFirstOrThrow();
  return row.price_amount;
}

export async function deleteProductRow(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<void> {
  await db.deleteFrom('products').where('store_id', '=', storeId).where('id', '=', productId).execute();
}

// Storefront reads (active products only)

/** What a product card shows (D46: with its handle and compare-at price). */
export const CARD_COLUMNS = [
  'p.id',
  'p.title',
  'p.handle',
  'p.image',
  'p.price_amount',
  'p.compare_at_amount',
] as const;

export function activeCardsQuery(db: Kysely<Database>, storeId: string) {
  return db
    .selectFrom('products as p')
    .select([...CARD_COLUMNS, 'p.created_at'])
    .where('p.store_id', '=', storeId)
    .where('p.status', '=', 'active');
}

export function findActiveProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<ActiveProduct | undefined> {
  return db
    .selectFrom('products as p')
    .select([...CARD_COLUMNS, 'p.description', 'p.seo_title', 'p.seo_description', 'p.options'])
    .where('p.store_id', '=', storeId)
    .where('p.id', '=', productId)
    .where('p.status', '=', 'active')
    .executeTakeFirst();
}

export type ActiveProduct = Pick<
  ProductRow,
  | 'id'
  | 'title'
  | 'handle'
  | 'image'
  | 'price_amount'
  | 'compare_at_amount'
  | 'description'
  | 'seo_title'
  | 'seo_description'
  | 'options'
>;

/**
 * The active product a handle names: by its current handle, or by an earlier one (`moved`: the
 * caller redirects to `handle`). Undefined when no active product answers to it.
 */
export async function findActiveProductByHandle(
  db: Kysely<Database>,
  storeId: string,
  handle: string,
): Promise<{ id: string; handle: string; moved: boolean } | undefined> {
  const current = await db
    .selectFrom('products as p')
    .select(['p.id', 'p.handle'])
    .where('p.store_id', '=', storeId)
    .where('p.handle', '=', handle)
    .where('p.status', '=', 'active')
    .executeTakeFirst();
  if (current) return { ...current, moved: false };
  const earlier = await db
    .selectFrom('product_handle_redirects as r')
    .innerJoin('products as p', (join) =>
      join.onRef('p.store_id', '=', 'r.store_id').onRef('p.id', '=', 'r.product_id'),
    )
    .select(['p.id', 'p.handle'])
    .where('r.store_id', '=', storeId)
    .where('r.handle', '=', handle)
    .where('p.status', '=', 'active')
    .executeTakeFirst();
  return earlier ? { ...earlier, moved: true } : undefined;
}

/**
 * A product takes `handle` (D46): an earlier handle of any product equal to it stops redirecting
 * (its new owner answers to it), and the product's previous handle, when given, redirects to it.
 */
export async function takeHandle(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  handle: string,
  previous: string | null,
): Promise<void> {
  await db
    .deleteFrom('product_handle_redirects')
    .where('store_id', '=', storeId)
    .where('handle', '=', handle)
    .execute();
  if (previous === null || previous === handle) return;
  await db
    .insertInto('product_handle_redirects')
    .values({ store_id: storeId, handle: previous, product_id: productId })
    .onConflict((oc) => oc.columns(['store_id', 'handle']).doUpdateSet({ product_id: productId }))
    .execute();
}

// Variants

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

/** The variant row; with `forUpdate`, locked for the rest of the transaction. Undefined when unknown. */
export function findVariant(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  options: { forUpdate?: boolean } = {},
): Promise<VariantRow | undefined> {
  return db
    .selectFrom('variants')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', variantId)
    .$if(options.forUpdate === true, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** The variant row, locked for the rest of the transaction; undefined when unknown. */
export function lockVariant(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
): Promise<VariantRow | undefined> {
  return findVariant(db, storeId, variantId, { forUpdate: true });
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

export type NewVariant = Omit<Insertable<VariantTable>, 'id' | 'reserved'>;

export function insertVariant(db: Kysely<Database>, variant: NewVariant): Promise<VariantRow> {
  return db.insertInto('variants').values(variant).returningAll().executeTakeFirstOrThrow();
}

/** Inserts many variants in one statement. */
export async function insertVariants(db: Kysely<Database>, variants: readonly NewVariant[]): Promise<void> {
  await db
    .insertInto('variants')
    .values([...variants])
    .execute();
}

/** A variant of the bulk import, every column given. */
export interface BulkVariantRow {
  store_id: string;
  id: string;
  product_id: string;
  position: number;
  sku: string | null;
  label: string;
  price_amount: number;
  compare_at_amount: number | null;
  on_hand: number;
}

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

export async function deleteVariantRow(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
): Promise<void> {
  await db.deleteFrom('variants').where('store_id', '=', storeId).where('id', '=', variantId).execute();
}

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
    ])
    .where('v.store_id', '=', storeId)
    .where('v.id', 'in', [...variantIds])
    .where('p.status', '=', 'active')
    .where('v.archived_at', 'is', null)
    .execute();
}

// Stock (the SQL of inventory.ts)

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

/** Lowers on hand and reserved by `quantity` (stopping at zero); the levels after and before. */
export async function sellFromReserved(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
): Promise<(StockLevel & { old_on_hand: number; old_reserved: number }) | undefined> {
  const { rows } = await sql<StockLevel & { old_on_hand: number; old_reserved: number }>`
      WITH old AS (
        SELECT id, on_hand, reserved FROM variants
        WHERE store_id = ${storeId} AND id = ${variantId}
        FOR UPDATE
      )
      UPDATE variants v
      SET on_hand = greatest(v.on_hand - ${quantity}, 0),
          reserved = greatest(v.reserved - ${quantity}, 0),
          updated_at = ${now}
      FROM old
      WHERE v.store_id = ${storeId} AND v.id = old.id
      RETURNING v.product_id, v.on_hand, v.reserved, old.on_hand AS old_on_hand, old.reserved AS old_reserved`.execute(
    db,
  );
  return rows[0];
}

/** The levels of a variant after a change, and before it. */
export type StockShift = StockLevel & { old_on_hand: number; old_reserved: number };

/** Moves one level by `delta` (stopping at zero), locking the row; undefined when the variant is gone. */
async function shiftStock(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  level: 'on_hand' | 'reserved',
  delta: number,
  now: Date,
): Promise<StockShift | undefined> {
  const column = sql.ref(`v.${level}`);
  const { rows } = await sql<StockShift>`
      WITH old AS (
        SELECT id, on_hand, reserved FROM variants
        WHERE store_id = ${storeId} AND id = ${variantId}
        FOR UPDATE
      )
      UPDATE variants v
      SET ${sql.ref(level)} = greatest(${column} + ${delta}, 0), updated_at = ${now}
      FROM old
      WHERE v.store_id = ${storeId} AND v.id = old.id
      RETURNING v.product_id, v.on_hand, v.reserved, old.on_hand AS old_on_hand, old.reserved AS old_reserved`.execute(
    db,
  );
  return rows[0];
}

/** Lowers reserved by `quantity` (stopping at zero). */
export function releaseFromReserved(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
): Promise<StockShift | undefined> {
  return shiftStock(db, storeId, variantId, 'reserved', -quantity, now);
}

/** Raises on hand by `quantity` (units came back). */
export function addToOnHand(
  db: Kysely<Database>,
  storeId: string,
  variantId: string,
  quantity: number,
  now: Date,
): Promise<StockShift | undefined> {
  return shiftStock(db, storeId, variantId, 'on_hand', quantity, now);
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

// Images (D47)

/** The images of the given products, by product and position. */
export function imagesOfProducts(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<ProductImageRow[]> {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('product_images')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('product_id', 'in', [...productIds])
    .orderBy('product_id')
    .orderBy('position')
    .execute();
}

/**
 * Makes `images` the product's images, in their order: the images no longer listed are deleted
 * (a variant that showed one shows the product's again: its foreign key sets it to null), the
 * others kept with their new position and alt text.
 */
export async function replaceProductImages(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  images: readonly { mediaId: string; alt: string | null }[],
): Promise<void> {
  await db
    .deleteFrom('product_images')
    .where('store_id', '=', storeId)
    .where('product_id', '=', productId)
    .$if(images.length > 0, (qb) =>
      qb.where(
        'media_id',
        'not in',
        images.map((image) => image.mediaId),
      ),
    )
    .execute();
  if (images.length === 0) return;
  await db
    .insertInto('product_images')
    .values(
      images.map((image, position) => ({
        store_id: storeId,
        product_id: productId,
        media_id: image.mediaId,
        position,
        alt: image.alt,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['store_id', 'product_id', 'media_id']).doUpdateSet((eb) => ({
        position: eb.ref('excluded.position'),
        alt: eb.ref('excluded.alt'),
      })),
    )
    .execute();
}
