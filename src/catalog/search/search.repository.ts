import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/tables.ts';
import { CARD_COLUMNS_BUT_PRICES } from '../catalog.tables.ts';
import {
  cardPrice,
  joinedCardMarket,
  variantPrice as shownPrice,
  type ReadPricing,
} from '../market-cards.repository.ts';
import type { Correction, DictionaryWord } from './typos.ts';

/**
 * The SQL of storefront search (decision `storefront-search`): which active products a search finds, in which order, and
 * the facets of that set. Matching uses the generated `products.search` tsvector of migration 0030;
 * typos, the store's dictionary `search_words` of migration 0038.
 */

/** What a search asks, already normalised by the service (folded words, resolved option names). */
export interface SearchFilter {
  /** Folded words of `q` (lower case, accents removed), at most 8. */
  words: string[];
  /**
   * Per word (same order), the dictionary words it may be a typo of: empty for a word the store's
   * dictionary knows (decision `typos-from-the-store-dictionary`). Not part of a cursor's search.
   */
  corrections: Correction[][];
  collection?: string | undefined;
  tag?: string | undefined;
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
  available?: boolean | undefined;
  /** Option name → the values accepted (any of them). */
  options: [string, string[]][];
  /**
   * Decisions `markets` and `price-function`: how prices are filtered, sorted and counted (the
   * market's, with the buyer's price lists); null: the default market's own prices.
   */
  pricing: ReadPricing | null;
}

/**
 * A variant `v`'s price as the filter's buyer sees it. In a market without price lists,
 * `storefront_variant_price` written out over `v` joined to its explicit price `vp`
 * (`explicitPriceJoin`): PostgreSQL inlines no SQL function with a subquery, so per variant (a price
 * filter over a whole catalog) the function would cost about ten times this expression, and the join
 * reads the explicit prices once, by hash (bench/RESULTS.md: 12.2 s → 2.8 s over 100k products).
 */
function variantPrice(pricing: ReadPricing | null): RawBuilder<number> {
  if (pricing === null) return sql<number>`v.price_amount`;
  const m = pricing.conversion;
  if (pricing.lists === null && m !== null)
    return sql<number>`coalesce(vp.amount,
      storefront_market_price(v.price_amount, ${m.rate}::numeric, ${m.digits}::int, ${m.baseDigits}::int, ${m.rounding}::text))`;
  return shownPrice(pricing);
}

/** The join of a variant `v` to its explicit price `vp` that `variantPrice` reads, when it reads one. */
function explicitPriceJoin(pricing: ReadPricing | null): RawBuilder<unknown> {
  if (pricing === null || pricing.lists !== null || pricing.conversion === null) return sql``;
  return sql`LEFT JOIN variant_prices vp
    ON vp.store_id = v.store_id AND vp.variant_id = v.id AND vp.currency = ${pricing.currency}::text`;
}

export type SearchSort = 'relevance' | 'newest' | 'oldest' | 'price_asc' | 'price_desc' | 'title_asc';

/** A word in tsquery syntax, quoted, matching by prefix (`'word':*`). */
function prefixTerm(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}':*`;
}

/** Word `i` of a filter: its prefix, or the prefix of one of its corrections. */
function wordTerm(filter: Pick<SearchFilter, 'words' | 'corrections'>, i: number): string {
  const terms = [filter.words[i]!, ...(filter.corrections[i] ?? []).map((c) => c.word)].map(prefixTerm);
  return terms.length === 1 ? terms[0]! : `(${terms.join(' | ')})`;
}

/** Every word matches (by prefix, or a correction by prefix): one tsquery, which GIN answers. */
function wordsMatch(filter: SearchFilter): RawBuilder<SqlBool> {
  const query = filter.words.map((_, i) => wordTerm(filter, i)).join(' & ');
  return sql<SqlBool>`p.search @@ to_tsquery('simple', ${query})`;
}

/**
 * All the conditions of a filter on `products as p`, ANDed; `joined`: the market's card row is
 * joined as `mc` (a price sort, `searchCardsQuery`).
 */
function matches(storeId: string, filter: SearchFilter, joined = false): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.join(conditions(storeId, filter, joined), sql` AND `)}`;
}

/**
 * Whether a filter's variant conditions are a maximum price alone: then "a variant at most that
 * price" is "the card price (the lowest live variant's) at most that price", a column of the
 * product (or of its market card), instead of a look at its variants. Not with price lists, whose
 * prices are computed per variant anyway.
 */
function onlyMaxPrice(filter: SearchFilter): boolean {
  return (
    filter.maxPrice !== undefined &&
    filter.minPrice === undefined &&
    !filter.available &&
    filter.options.length === 0 &&
    filter.pricing?.lists == null
  );
}

/** The conditions of a filter on `products as p` (active products of the store). */
function conditions(storeId: string, filter: SearchFilter, joined: boolean): RawBuilder<SqlBool>[] {
  const where: RawBuilder<SqlBool>[] = [
    sql<SqlBool>`p.store_id = ${storeId}`,
    sql<SqlBool>`p.status = 'active'`,
  ];
  if (filter.words.length > 0) where.push(wordsMatch(filter));
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
  if (onlyMaxPrice(filter)) {
    where.push(sql<SqlBool>`${cardPrice(filter.pricing, 'price_amount', { joined })} <= ${filter.maxPrice}`);
    return where;
  }
  const variant: RawBuilder<SqlBool>[] = [];
  const price = variantPrice(filter.pricing);
  if (filter.minPrice !== undefined) variant.push(sql<SqlBool>`${price} >= ${filter.minPrice}`);
  if (filter.maxPrice !== undefined) variant.push(sql<SqlBool>`${price} <= ${filter.maxPrice}`);
  if (filter.available) variant.push(sql<SqlBool>`v.on_hand - v.reserved > 0`);
  for (const [name, values] of filter.options)
    variant.push(sql<SqlBool>`(v.options ->> ${name}) = ANY(${values}::text[])`);
  if (variant.length > 0)
    where.push(sql<SqlBool>`EXISTS (
      SELECT 1 FROM variants v ${explicitPriceJoin(filter.pricing)}
      WHERE v.store_id = p.store_id AND v.product_id = p.id AND v.archived_at IS NULL
      AND ${sql.join(variant, sql` AND `)})`);
  return where;
}

/** Below every product with fewer typos, whatever its rank (rank and similarity are at most 1 each). */
const TYPO_PENALTY = 10;

/**
 * The typos of a product's match: for each corrected word, 0 when the word itself begins a word of
 * the product, else the fewest typos among the corrections it has.
 */
function typos(filter: Pick<SearchFilter, 'words' | 'corrections'>): RawBuilder<number> {
  const perWord = filter.words.flatMap((word, i) => {
    const corrections = filter.corrections[i] ?? [];
    if (corrections.length === 0) return [];
    const within = (most: number) =>
      corrections
        .filter((c) => c.typos <= most)
        .map((c) => prefixTerm(c.word))
        .join(' | ') || prefixTerm(word);
    return [
      sql<number>`CASE WHEN p.search @@ to_tsquery('simple', ${prefixTerm(word)}) THEN 0
        WHEN p.search @@ to_tsquery('simple', ${within(1)}) THEN 1 ELSE 2 END`,
    ];
  });
  return perWord.length === 0 ? sql<number>`0` : sql<number>`(${sql.join(perWord, sql` + `)})`;
}

/**
 * How well a product matches the words: fewer typos first (decision
 * `typos-from-the-store-dictionary`), then full-text rank plus the title's similarity (float8).
 */
function relevance(filter: Pick<SearchFilter, 'words' | 'corrections'>): RawBuilder<number> {
  const anyWord = filter.words.map((_, i) => wordTerm(filter, i)).join(' | ');
  return sql<number>`(ts_rank(p.search, to_tsquery('simple', ${anyWord}))::float8
    + word_similarity(${filter.words.join(' ')}, storefront_search_fold(p.title))::float8
    - ${TYPO_PENALTY}::float8 * ${typos(filter)})`;
}

/**
 * A found product's card price: for a price sort in a market without price lists, its joined row
 * `mc` (`searchCardsQuery`), else looked up per product found (a few, for a search by words).
 */
function searchCardPrice(
  filter: SearchFilter,
  column: 'price_amount' | 'compare_at_amount',
  joined: boolean,
) {
  return cardPrice(filter.pricing, column, { joined });
}

/** Whether a sort orders by the card price (and so joins the market's card rows). */
const byPrice = (sort: SearchSort) => sort === 'price_asc' || sort === 'price_desc';

/**
 * The card price a price sort orders by, no price as 0 (decision `price-sort-walks-an-index`):
 * where it is a column (the product's own, or its joined market card row), the expression of the
 * indexes of migration 0053, so that a page walks the index in order and stops after its rows.
 * `walk: false` writes it so that no index matches: with a minimum price, sorted cheapest first,
 * the first cards of the walk are the very ones the filter turns away (a card's price is its
 * cheapest variant's, the filter asks for a dearer one), which the planner cannot foresee: it
 * would read most of the catalog one product at a time (`?minPrice=1900&sort=price_asc` at 100,000
 * products on PGlite: 0.77 s, against 0.28 s to sort what the filter keeps).
 */
function priceKey(filter: SearchFilter, walk: boolean): RawBuilder<number> {
  const key = sql<number>`coalesce(${searchCardPrice(filter, 'price_amount', true)}, 0)`;
  return walk ? key : sql<number>`(${key} + 0)`;
}

/**
 * Whether a price sort's card price is a column (the product's, or its market card row's) rather
 * than computed per product with price lists.
 */
const sortsOnColumn = (filter: SearchFilter) => filter.pricing === null || filter.pricing.lists === null;

/** The sort key of each sort: an expression named `sort_key`, ordered with `id` as the tie-break. */
export const SORT_KEYS: Record<
  SearchSort,
  { descending: boolean; key: (filter: SearchFilter) => RawBuilder<unknown> }
> = {
  relevance: { descending: true, key: relevance },
  newest: { descending: true, key: () => sql`p.created_at` },
  oldest: { descending: false, key: () => sql`p.created_at` },
  price_asc: { descending: false, key: (filter) => priceKey(filter, filter.minPrice === undefined) },
  price_desc: { descending: true, key: (filter) => priceKey(filter, true) },
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
  // Joined for a price sort: the products are read in the order of the market's card rows (their
  // index, migration 0053), or, for a few found by words, each card row by its key. Every product
  // has its row in every market but the default (written with the product, and for every product
  // with the market: decision `market-cards`), so the join is inner, which lets the planner walk
  // the card rows first; the page's id is the card row's, so that a next page's cursor seeks in
  // that index too. Another sort prices only the page's few products, each by its key.
  const market = byPrice(sort) ? joinedCardMarket(filter.pricing) : null;
  const inner = db
    .selectFrom('products as p')
    .$if(market !== null, (q) =>
      q.innerJoin('market_card_prices as mc', (join) =>
        join
          .onRef('mc.store_id', '=', 'p.store_id')
          .onRef('mc.product_id', '=', 'p.id')
          .on('mc.market_id', '=', market),
      ),
    )
    .select([
      ...(market === null
        ? CARD_COLUMNS_BUT_PRICES
        : [
            sql.ref<string>('mc.product_id').as('id'),
            ...CARD_COLUMNS_BUT_PRICES.filter((c) => c !== 'p.id'),
          ]),
      searchCardPrice(filter, 'price_amount', market !== null).as('price_amount'),
      searchCardPrice(filter, 'compare_at_amount', market !== null).as('compare_at_amount'),
      SORT_KEYS[sort].key(filter).as('sort_key'),
    ])
    .where(matches(storeId, filter, market !== null))
    .$if(byPrice(sort) && filter.maxPrice !== undefined && sortsOnColumn(filter), (q) =>
      // Implied by the filter (a variant at most the maximum makes the card, its cheapest live
      // variant's, at most the maximum), but on the index's expression: the walk starts or ends there.
      q.where(sql<SqlBool>`${priceKey(filter, true)} <= ${filter.maxPrice}`),
    );
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
      SELECT v.product_id, v.options, ${variantPrice(filter.pricing)} AS price_amount, v.on_hand - v.reserved > 0 AS in_stock
      FROM found f JOIN variants v ON v.store_id = ${storeId} AND v.product_id = f.id AND v.archived_at IS NULL
      ${explicitPriceJoin(filter.pricing)}
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

/** A query word to find candidates for, and the lengths a correction of it can have. */
export interface TypoQuery {
  word: string;
  shortest: number;
  longest: number;
}

/**
 * The dictionary's candidates for each query word it does not know (no word of the dictionary
 * begins with it): the words with its first letter and a length within its bounds.
 */
export async function typoCandidates(
  db: Kysely<Database>,
  storeId: string,
  queries: TypoQuery[],
): Promise<Map<string, DictionaryWord[]>> {
  const { rows } = await sql<{ query: string; word: string; products: number }>`
    WITH unknown AS MATERIALIZED (
      SELECT q.word, q.shortest, q.longest
      FROM unnest(${queries.map((q) => q.word)}::text[], ${queries.map((q) => q.shortest)}::int[],
                  ${queries.map((q) => q.longest)}::int[]) AS q(word, shortest, longest)
      WHERE NOT EXISTS (
        SELECT 1 FROM search_words k
        WHERE k.store_id = ${storeId} AND k.word >= q.word COLLATE "C" AND k.word < (q.word || chr(1114111)) COLLATE "C")
    )
    SELECT u.word AS query, d.word, d.products
    FROM unknown u
    JOIN search_words d ON d.store_id = ${storeId} AND left(d.word, 1) = left(u.word, 1)
      AND char_length(d.word) BETWEEN u.shortest AND u.longest`.execute(db);
  const candidates = new Map<string, DictionaryWord[]>();
  for (const row of rows) {
    const list = candidates.get(row.query) ?? [];
    list.push({ word: row.word, products: row.products });
    candidates.set(row.query, list);
  }
  return candidates;
}
