import {
  sql,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  type Updateable,
} from 'kysely';
import type { Database } from '../../db/tables.ts';
import { cardPrice, cardPrices, type ReadPricing } from '../market-cards.repository.ts';
import {
  CARD_COLUMNS_BUT_PRICES,
  type CollectionKind,
  type CollectionRow,
  type CollectionTable,
  type SmartRules,
} from '../catalog.tables.ts';

/** All SQL on collections and their membership (collection_products). */

type Condition = SmartRules['conditions'][number];

export function collectionsQuery(
  db: Kysely<Database>,
  storeId: string,
): SelectQueryBuilder<Database, 'collections', CollectionRow> {
  return db.selectFrom('collections').selectAll().where('store_id', '=', storeId);
}

export function findCollection(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
): Promise<CollectionRow | undefined> {
  return collectionsQuery(db, storeId).where('id', '=', collectionId).executeTakeFirst();
}

/** The collection row, locked for the rest of the transaction; undefined when unknown. */
export function lockCollection(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
): Promise<CollectionRow | undefined> {
  return collectionsQuery(db, storeId).where('id', '=', collectionId).forUpdate().executeTakeFirst();
}

export function findCollectionBySlug(
  db: Kysely<Database>,
  storeId: string,
  slug: string,
): Promise<Pick<CollectionRow, 'id' | 'title' | 'slug'> | undefined> {
  return db
    .selectFrom('collections')
    .select(['id', 'title', 'slug'])
    .where('store_id', '=', storeId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

/**
 * Collections as the storefront's cards, each with its active products' count, the range of their
 * card prices (`products.price_amount`) and whether one is on sale (a card `compare_at_amount`, set
 * only when above the price): one aggregate per collection in a lateral join of the same query,
 * over `collection_products_order_idx`, never a query per collection. For keyset pagination on
 * (c.created_at, c.id).
 */
export function collectionCardsQuery(
  db: Kysely<Database>,
  storeId: string,
  pricing: ReadPricing | null = null,
) {
  const price = cardPrice(pricing, 'price_amount');
  const compareAt = cardPrice(pricing, 'compare_at_amount');
  return db
    .selectFrom('collections as c')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('collection_products as cp')
          .innerJoin('products as p', (join) =>
            join.onRef('p.store_id', '=', 'cp.store_id').onRef('p.id', '=', 'cp.product_id'),
          )
          .select((agg) => [
            agg.fn.countAll<number>().as('product_count'),
            sql<number | null>`min(${price})`.as('min_price'),
            sql<number | null>`max(${price})`.as('max_price'),
            sql<boolean>`coalesce(bool_or(${compareAt} IS NOT NULL), false)`.as('on_sale'),
          ])
          .whereRef('cp.store_id', '=', 'c.store_id')
          .whereRef('cp.collection_id', '=', 'c.id')
          .where('p.status', '=', 'active')
          .as('stats'),
      // An aggregate without GROUP BY answers one row, also for a collection without products.
      (join) => join.onTrue(),
    )
    .select([
      'c.id',
      'c.title',
      'c.slug',
      'c.created_at',
      'stats.product_count',
      'stats.min_price',
      'stats.max_price',
      'stats.on_sale',
    ])
    .where('c.store_id', '=', storeId);
}

export async function countSmartCollections(db: Kysely<Database>, storeId: string): Promise<number> {
  const row = await db
    .selectFrom('collections')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId)
    .where('kind', '=', 'smart')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Inserts a collection unless its slug is taken in the store (then undefined). */
export function insertCollection(
  db: Kysely<Database>,
  collection: {
    storeId: string;
    title: string;
    slug: string;
    kind: CollectionKind;
    rules: SmartRules | null;
    now: Date;
  },
): Promise<CollectionRow | undefined> {
  return db
    .insertInto('collections')
    .values({
      store_id: collection.storeId,
      title: collection.title,
      slug: collection.slug,
      kind: collection.kind,
      rules: collection.rules === null ? null : JSON.stringify(collection.rules),
      created_at: collection.now,
      updated_at: collection.now,
    })
    .onConflict((oc) => oc.columns(['store_id', 'slug']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function updateCollectionRow(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
  changes: Omit<Updateable<CollectionTable>, 'rules'> & { rules?: SmartRules },
): Promise<void> {
  const { rules, ...rest } = changes;
  await db
    .updateTable('collections')
    .set({ ...rest, ...(rules !== undefined ? { rules: JSON.stringify(rules) } : {}) })
    .where('store_id', '=', storeId)
    .where('id', '=', collectionId)
    .execute();
}

/** Deletes a collection (its membership cascades); its slug, or undefined when unknown. */
export async function deleteCollectionRow(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
): Promise<string | undefined> {
  const row = await db
    .deleteFrom('collections')
    .where('store_id', '=', storeId)
    .where('id', '=', collectionId)
    .returning('slug')
    .executeTakeFirst();
  return row?.slug;
}

// Membership

/** The products of a collection in its order. */
export async function memberIds(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('collection_products')
    .select('product_id')
    .where('store_id', '=', storeId)
    .where('collection_id', '=', collectionId)
    .orderBy('position')
    .orderBy('product_id')
    .execute();
  return rows.map((row) => row.product_id);
}

/** Replaces a manual collection's products with `productIds`, in that order. */
export async function replaceMembers(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
  productIds: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('collection_products')
    .where('store_id', '=', storeId)
    .where('collection_id', '=', collectionId)
    .execute();
  if (productIds.length > 0) {
    await db
      .insertInto('collection_products')
      .values(
        productIds.map((productId, position) => ({
          store_id: storeId,
          collection_id: collectionId,
          product_id: productId,
          position,
        })),
      )
      .execute();
  }
}

/** A collection's active products as cards, for keyset pagination on (cp.position, cp.product_id). */
export function activeMemberCardsQuery(
  db: Kysely<Database>,
  storeId: string,
  collectionId: string,
  pricing: ReadPricing | null = null,
) {
  return db
    .selectFrom('collection_products as cp')
    .innerJoin('products as p', (join) =>
      join.onRef('p.store_id', '=', 'cp.store_id').onRef('p.id', '=', 'cp.product_id'),
    )
    .select([...CARD_COLUMNS_BUT_PRICES, ...cardPrices(pricing), 'cp.position'])
    .where('cp.store_id', '=', storeId)
    .where('cp.collection_id', '=', collectionId)
    .where('p.status', '=', 'active');
}

/** A collection's products of any status (the admin's view), for keyset pagination on (cp.position, cp.product_id). */
export function memberProductsQuery(db: Kysely<Database>, storeId: string, collectionId: string) {
  return db
    .selectFrom('collection_products as cp')
    .innerJoin('products as p', (join) =>
      join.onRef('p.store_id', '=', 'cp.store_id').onRef('p.id', '=', 'cp.product_id'),
    )
    .selectAll('p')
    .select('cp.position')
    .where('cp.store_id', '=', storeId)
    .where('cp.collection_id', '=', collectionId);
}

// Smart collections: the rules as SQL, and their materialised membership

function conditionSql(condition: Condition): RawBuilder<SqlBool> {
  const value = condition.value;
  switch (condition.field) {
    case 'tag':
      return condition.op === 'eq'
        ? sql<SqlBool>`EXISTS (SELECT 1 FROM unnest(p.tags) AS t(tag) WHERE lower(t.tag) = lower(${String(value)}::text))`
        : sql<SqlBool>`EXISTS (SELECT 1 FROM unnest(p.tags) AS t(tag) WHERE strpos(lower(t.tag), lower(${String(value)}::text)) > 0)`;
    case 'title':
      return condition.op === 'eq'
        ? sql<SqlBool>`lower(p.title) = lower(${String(value)}::text)`
        : sql<SqlBool>`strpos(lower(p.title), lower(${String(value)}::text)) > 0`;
    case 'priceAmount': {
      const amount = sql`${Number(value)}::bigint`;
      if (condition.op === 'gt') return sql<SqlBool>`p.price_amount > ${amount}`;
      if (condition.op === 'lt') return sql<SqlBool>`p.price_amount < ${amount}`;
      return sql<SqlBool>`p.price_amount = ${amount}`;
    }
  }
}

/** The rules as one SQL predicate over `products p`. */
export function rulesSql(rules: SmartRules): RawBuilder<SqlBool> {
  const parts = rules.conditions.map(conditionSql);
  return sql<SqlBool>`(${sql.join(parts, rules.match === 'all' ? sql` AND ` : sql` OR `)})`;
}

/**
 * Recomputes smart-collection membership, for the given products (after a product or its variants
 * changed) or for every product (after the rules changed). Runs in the caller's transaction.
 */
export async function refreshSmartMembership(
  db: Kysely<Database>,
  storeId: string,
  scope: { productIds: string[] } | { collectionId: string },
): Promise<void> {
  let collections = db
    .selectFrom('collections')
    .select(['id', 'rules'])
    .where('store_id', '=', storeId)
    .where('kind', '=', 'smart');
  if ('collectionId' in scope) collections = collections.where('id', '=', scope.collectionId);
  const smart = await collections.execute();
  if (smart.length === 0) return;
  const productIds = 'productIds' in scope ? scope.productIds : null;
  if (productIds !== null && productIds.length === 0) return;

  for (const collection of smart) {
    let removal = db
      .deleteFrom('collection_products')
      .where('store_id', '=', storeId)
      .where('collection_id', '=', collection.id);
    if (productIds) removal = removal.where('product_id', 'in', productIds);
    await removal.execute();
    const productFilter = productIds
      ? sql<SqlBool>`p.id IN (${sql.join(productIds.map((id) => sql`${id}::uuid`))})`
      : sql<SqlBool>`TRUE`;
    await sql`
      INSERT INTO collection_products (store_id, collection_id, product_id, position)
      SELECT p.store_id, ${collection.id}::uuid, p.id, (extract(epoch FROM p.created_at) * 1000)::bigint
      FROM products p
      WHERE p.store_id = ${storeId}::uuid AND ${productFilter} AND ${rulesSql(collection.rules!)}
      ON CONFLICT DO NOTHING`.execute(db);
  }
}

/** The store's products (any status) that the rules match, for a preview: by creation time, as a smart collection orders them. */
export function productsMatchingQuery(db: Kysely<Database>, storeId: string, rules: SmartRules) {
  return db
    .selectFrom('products as p')
    .selectAll('p')
    .where('p.store_id', '=', storeId)
    .where(rulesSql(rules));
}

/** How many of the store's products (any status) the rules match. */
export async function countProductsMatching(
  db: Kysely<Database>,
  storeId: string,
  rules: SmartRules,
): Promise<number> {
  const row = await db
    .selectFrom('products as p')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('p.store_id', '=', storeId)
    .where(rulesSql(rules))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The collections of some products (the catalog's memberships, read for collection conditions). */
export async function collectionsOfProducts(
  db: Kysely<Database>,
  storeId: string,
  productIds: readonly string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (productIds.length === 0) return found;
  const rows = await db
    .selectFrom('collection_products')
    .select(['product_id', 'collection_id'])
    .where('store_id', '=', storeId)
    .where('product_id', 'in', productIds)
    .execute();
  for (const row of rows)
    found.set(row.product_id, [...(found.get(row.product_id) ?? []), row.collection_id]);
  return found;
}
