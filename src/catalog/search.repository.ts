import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/tables.ts';
import { CARD_COLUMNS } from './products.repository.ts';

/**
 * The SQL of storefront search (D48): which active products a search finds, in which order, and
 * the facets of that set. Matching uses the generated `products.search` tsvector and the folded
 * title's trigrams of migration 0030.
 */

/** What a search asks, already normalised by the service (folded words, resolved option names). */
export interface SearchFilter {
  /** Folded words of `q` (lower case, accents removed), at most 8. */
  words: string[];
  collection?: string | undefined;
  tag?: string | undefined;
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
  available?: boolean | undefined;
  /** Option name → the values accepted (any of them). */
  options: [string, string[]][];
  /**
   * False: every word begins a word of the document (one tsquery, which GIN answers fast however
   * common the words). True, the fallback when that finds nothing: each word by prefix or, from 4
   * letters, by trigram similarity to a word of the title (typos).
   */
  fuzzy: boolean;
}

export type SearchSort = 'relevance' | 'newest' | 'oldest' | 'price_asc' | 'price_desc' | 'title_asc';

/** Words shorter than this match by prefix only; longer ones also by trigram similarity (typos). */
const FUZZY_MIN_LENGTH = 4;

/** One word: a prefix of a word of the document, or, from 4 letters, close to a word of the title. */
function wordMatches(word: string): RawBuilder<SqlBool> {
  const prefix = sql<SqlBool>`p.search @@ to_tsquery('simple', ${`${word}:*`})`;
  if (word.length < FUZZY_MIN_LENGTH) return prefix;
  return sql<SqlBool>`(${prefix} OR ${word} <% storefront_search_fold(p.title))`;
}

/** All the conditions of a filter on `products as p`, ANDed. */
function matches(storeId: string, filter: SearchFilter): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.join(conditions(storeId, filter), sql` AND `)}`;
}

/** The conditions of a filter on `products as p` (active products of the store). */
function conditions(storeId: string, filter: SearchFilter): RawBuilder<SqlBool>[] {
  const where: RawBuilder<SqlBool>[] = [
    sql<SqlBool>`p.store_id = ${storeId}`,
    sql<SqlBool>`p.status = 'active'`,
  ];
  if (filter.fuzzy) for (const word of filter.words) where.push(wordMatches(word));
  else if (filter.words.length > 0)
    where.push(
      sql<SqlBool>`p.search @@ to_tsquery('simple', ${filter.words.map((word) => `${word}:*`).join(' & ')})`,
    );
  if (filter.collection !== undefined)
    where.push(sql<SqlBool>`p.id IN (
      SELECT cp.product_id FROM collection_products cp
      JOIN collections c ON c.store_id = cp.store_id AND c.id = cp.collection_id
      WHERE cp.store_id = ${storeId} AND c.slug = ${filter.collection})`);
  if (filter.tag !== undefined)
    where.push(
      sql<SqlBool>`EXISTS (SELECT 1 FROM unnest(p.tags) AS t(tag) WHERE lower(t.tag) = lower(${filter.tag}::text))`,
    );
  // Price, stock and option values are a variant's: one variant must meet all of them ("M, in
  // stock, under 50" finds a product only when its M is in stock and under 50).
  const variant: RawBuilder<SqlBool>[] = [];
  if (filter.minPrice !== undefined) variant.push(sql<SqlBool>`v.price_amount >= ${filter.minPrice}`);
  if (filter.maxPrice !== undefined) variant.push(sql<SqlBool>`v.price_amount <= ${filter.maxPrice}`);
  if (filter.available) variant.push(sql<SqlBool>`v.on_hand - v.reserved > 0`);
  for (const [name, values] of filter.options)
    variant.push(sql<SqlBool>`(v.options ->> ${name}) = ANY(${values}::text[])`);
  if (variant.length > 0)
    where.push(sql<SqlBool>`EXISTS (
      SELECT 1 FROM variants v WHERE v.store_id = p.store_id AND v.product_id = p.id AND v.archived_at IS NULL
      AND ${sql.join(variant, sql` AND `)})`);
  return where;
}

/** How well a product matches the words: full-text rank plus the title's similarity (float8). */
function relevance(words: string[]): RawBuilder<number> {
  const anyWord = words.map((word) => `${word}:*`).join(' | ');
  return sql<number>`(ts_rank(p.search, to_tsquery('simple', ${anyWord}))::float8
    + word_similarity(${words.join(' ')}, storefront_search_fold(p.title))::float8)`;
}

/** The sort key of each sort: an expression named `sort_key`, ordered with `id` as the tie-break. */
export const SORT_KEYS: Record<
  SearchSort,
  { descending: boolean; key: (words: string[]) => RawBuilder<unknown> }
> = {
  relevance: { descending: true, key: relevance },
  newest: { descending: true, key: () => sql`p.created_at` },
  oldest: { descending: false, key: () => sql`p.created_at` },
  price_asc: { descending: false, key: () => sql`coalesce(p.price_amount, 0)` },
  price_desc: { descending: true, key: () => sql`coalesce(p.price_amount, 0)` },
  // Byte order of the folded title: the same on every database, whatever its locale.
  title_asc: { descending: false, key: () => sql`(storefront_search_fold(p.title) COLLATE "C")` },
};

/**
 * The cards a search finds, as a subquery `s` with `sort_key` and the card columns, so the keyset
 * page (`s.sort_key`, `s.id`) can order and seek on it.
 */
export function searchCardsQuery(
  db: Kysely<Database>,
  storeId: string,
  filter: SearchFilter,
  sort: SearchSort,
) {
  const inner = db
    .selectFrom('products as p')
    .select([...CARD_COLUMNS, SORT_KEYS[sort].key(filter.words).as('sort_key')])
    .where(matches(storeId, filter));
  return db.selectFrom(inner.as('s')).selectAll();
}

export interface FacetRows {
  options: { name: string; value: string; count: number }[];
  collections: { slug: string; title: string; count: number }[];
  summary: { min_price: number | null; max_price: number | null; available: number; total: number };
}

/** Values counted per option, at most. */
const MAX_VALUES = 100;

/**
 * The facets of the products a search finds, in one statement: every count is over that same set
 * (an option value counts the found products with a variant of that value).
 */
export async function searchFacets(
  db: Kysely<Database>,
  storeId: string,
  filter: SearchFilter,
): Promise<FacetRows> {
  const { rows } = await sql<{
    options: FacetRows['options'] | null;
    collections: FacetRows['collections'] | null;
    min_price: number | null;
    max_price: number | null;
    available: number;
    total: number;
  }>`
    WITH found AS MATERIALIZED (
      SELECT p.id FROM products p WHERE ${matches(storeId, filter)}
    ), found_variants AS MATERIALIZED (
      SELECT v.product_id, v.options, v.price_amount, v.on_hand - v.reserved > 0 AS in_stock
      FROM found f JOIN variants v ON v.store_id = ${storeId} AND v.product_id = f.id AND v.archived_at IS NULL
    )
    SELECT
      (SELECT json_agg(json_build_object('name', name, 'value', value, 'count', count) ORDER BY name, count DESC, value)
       FROM (
         SELECT o.key AS name, o.value, count(DISTINCT fv.product_id)::int AS count,
                row_number() OVER (PARTITION BY o.key ORDER BY count(DISTINCT fv.product_id) DESC, o.value) AS n
         FROM found_variants fv CROSS JOIN LATERAL jsonb_each_text(fv.options) AS o
         GROUP BY o.key, o.value
       ) counted WHERE n <= ${MAX_VALUES}) AS options,
      (SELECT json_agg(json_build_object('slug', slug, 'title', title, 'count', count) ORDER BY count DESC, title, slug)
       FROM (
         SELECT c.slug, c.title, count(*)::int AS count
         FROM found f
         JOIN collection_products cp ON cp.store_id = ${storeId} AND cp.product_id = f.id
         JOIN collections c ON c.store_id = cp.store_id AND c.id = cp.collection_id
         GROUP BY c.id, c.slug, c.title
         ORDER BY count DESC, c.title, c.slug
         LIMIT ${MAX_VALUES}
       ) counted) AS collections,
      (SELECT min(price_amount) FROM found_variants) AS min_price,
      (SELECT max(price_amount) FROM found_variants) AS max_price,
      (SELECT count(DISTINCT product_id)::int FROM found_variants WHERE in_stock) AS available,
      (SELECT count(*)::int FROM found) AS total`.execute(db);
  const row = rows[0]!;
  return {
    options: row.options ?? [],
    collections: row.collections ?? [],
    summary: {
      min_price: row.min_price,
      max_price: row.max_price,
      available: row.available,
      total: row.total,
    },
  };
}
