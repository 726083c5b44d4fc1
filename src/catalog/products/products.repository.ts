import {
  sql,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  type Updateable,
} from 'kysely';
import type { Database } from '../../db/tables.ts';
import {
  CARD_COLUMNS_BUT_PRICES,
  type ProductOption,
  type ProductRow,
  type ProductStatus,
  type ProductTable,
} from '../catalog.tables.ts';
import { cardPrices, type ReadPricing } from '../market-cards.repository.ts';

/** All SQL on products and their handles (variants: variants/, stock: inventory/, images: media/). */

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

/** The ids among `productIds` of the store's gift card products (decision `gift-card-products`). */
export async function giftCardProductIds(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<string[]> {
  const rows = await db
    .selectFrom('products')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', 'in', [...productIds])
    .where('gift_card', '=', true)
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
    /** Null: `standard`. */
    taxClass: string | null;
    /** Decision `gift-card-products`. */
    giftCard: boolean;
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
      tax_class: product.taxClass,
      gift_card: product.giftCard,
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
  /** Its variants' SKUs in position order, space-separated (search, decision `storefront-search`): the variants' insert then leaves the row alone. */
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

/** The card price and its compare-at, recomputed from the live variants (`product-changes.ts`). */
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

export function activeCardsQuery(db: Kysely<Database>, storeId: string, pricing: ReadPricing | null = null) {
  return db
    .selectFrom('products as p')
    .select([...CARD_COLUMNS_BUT_PRICES, ...cardPrices(pricing), 'p.created_at'])
    .where('p.store_id', '=', storeId)
    .where('p.status', '=', 'active');
}

export function findActiveProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
  pricing: ReadPricing | null = null,
): Promise<ActiveProduct | undefined> {
  return db
    .selectFrom('products as p')
    .select([
      ...CARD_COLUMNS_BUT_PRICES,
      ...cardPrices(pricing),
      'p.description',
      'p.seo_title',
      'p.seo_description',
      'p.options',
    ])
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
  | 'gift_card'
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
 * A product takes `handle` (decision `product-handles`): an earlier handle of any product equal to it stops redirecting
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

/** The products of these handles, by handle. */
export async function productIdsByHandle(
  db: Kysely<Database>,
  storeId: string,
  handles: readonly string[],
): Promise<Map<string, string>> {
  if (handles.length === 0) return new Map();
  const rows = await db
    .selectFrom('products')
    .select(['id', 'handle'])
    .where('store_id', '=', storeId)
    .where('handle', 'in', [...handles])
    .execute();
  return new Map(rows.map((row) => [row.handle, row.id]));
}
