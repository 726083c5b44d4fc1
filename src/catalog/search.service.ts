import { keysetPage } from '../db/keyset.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { ListPage } from '../lib/cursors.ts';
import { validationFailed, type FieldError } from '../lib/errors.ts';
import { storeCurrency } from '../stores/stores.service.ts';
import type { ProductCard, ProductFacets } from './catalog.schemas.ts';
import {
  SORT_KEYS,
  searchCardsQuery,
  searchFacets,
  type SearchFilter,
  type SearchSort,
} from './search.repository.ts';

/**
 * Storefront search (DESIGN D48): `q`, filters, sorts with a cursor each, and facets, over the
 * store's active products. The SQL is in search.repository.ts; here the query is read and checked.
 */

/** The search parameters of `GET /products` and `GET /products/facets` as the schema passed them. */
export interface SearchParams {
  q?: string | undefined;
  collection?: string | undefined;
  tag?: string | undefined;
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
  available?: boolean | undefined;
  sort?: SearchSort | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  /** `option.<Name>`: one value, or several (any of them). */
  [option: `option.${string}`]: string | string[] | undefined;
}

const OPTION_PREFIX = 'option.';
const MAX_WORDS = 8;
const MAX_WORD_LENGTH = 50;

/** Lower case, accents removed: as `storefront_search_fold` does in the database. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** The words of a query: runs of letters and digits, folded; at most 8 of at most 50 characters. */
export function wordsOf(q: string | undefined): string[] {
  if (q === undefined) return [];
  return fold(q)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
    .slice(0, MAX_WORDS)
    .map((word) => word.slice(0, MAX_WORD_LENGTH));
}

/** Whether the request asks for more than the spec's plain list (then it is a search). */
export function isSearch(params: SearchParams): boolean {
  return Object.keys(params).some((name) => name !== 'limit' && name !== 'cursor');
}

function filterOf(params: SearchParams): SearchFilter {
  const errors: FieldError[] = [];
  const options: [string, string[]][] = [];
  for (const [key, raw] of Object.entries(params)) {
    if (!key.startsWith(OPTION_PREFIX) || raw === undefined) continue;
    const name = key.slice(OPTION_PREFIX.length);
    const values = [...new Set((Array.isArray(raw) ? raw : [raw]).map(String))];
    options.push([name, values]);
  }
  options.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (params.minPrice !== undefined && params.maxPrice !== undefined && params.minPrice > params.maxPrice)
    errors.push({ pointer: '/minPrice', detail: 'must not be above maxPrice', in: 'query' });
  if (errors.length > 0) throw validationFailed('The search parameters are not valid.', errors);
  return {
    words: wordsOf(params.q),
    collection: params.collection,
    tag: params.tag?.trim() || undefined,
    minPrice: params.minPrice,
    maxPrice: params.maxPrice,
    available: params.available === true ? true : undefined,
    options,
    fuzzy: false,
  };
}

/** The sort asked for; `relevance` (the default with words) falls back to the spec's order without. */
function sortOf(params: SearchParams, filter: SearchFilter): SearchSort {
  const sort = params.sort ?? (filter.words.length > 0 ? 'relevance' : 'oldest');
  return sort === 'relevance' && filter.words.length === 0 ? 'oldest' : sort;
}

/**
 * Active products found by a search, as cards, one page; the cursor holds for this search only.
 * Words match exactly (by prefix) first; when that finds nothing, with typos (decision
 * `search-in-the-database`); a cursor remembers which.
 */
export async function searchProductCards(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  params: SearchParams,
): Promise<ListPage<ProductCard>> {
  const exact = filterOf(params);
  const sort = sortOf(params, exact);
  const fuzzy = { ...exact, fuzzy: true };
  const [currency, page] = await Promise.all([
    storeCurrency(deps, storeId),
    (async () => {
      if (exact.words.length === 0) return cardsPage(deps, storeId, exact, sort, params);
      if (params.cursor !== undefined)
        return cardsPage(
          deps,
          storeId,
          isCursorOf(deps, storeId, exact, sort, params.cursor) ? exact : fuzzy,
          sort,
          params,
        );
      const found = await cardsPage(deps, storeId, exact, sort, params);
      return found.items.length > 0 ? found : cardsPage(deps, storeId, fuzzy, sort, params);
    })(),
  ]);
  return {
    items: page.items.map((row) => ({
      id: row.id,
      title: row.title,
      handle: row.handle,
      image: row.image,
      priceAmount: row.price_amount ?? 0,
      compareAtAmount: row.compare_at_amount,
      currency,
    })),
    nextCursor: page.nextCursor,
  };
}

/** A cursor names its search: one from another query, filter, sort or match is refused (400). */
function scopeOf(storeId: string, filter: SearchFilter, sort: SearchSort): string {
  return `${storeId}:products:search:${JSON.stringify([filter, sort])}`;
}

function isCursorOf(
  deps: Pick<ServiceDeps, 'cursors'>,
  storeId: string,
  filter: SearchFilter,
  sort: SearchSort,
  cursor: string,
): boolean {
  try {
    deps.cursors.decode(scopeOf(storeId, filter, sort), cursor);
    return true;
  } catch {
    return false;
  }
}

function cardsPage(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  filter: SearchFilter,
  sort: SearchSort,
  page: { limit?: number | undefined; cursor?: string | undefined },
) {
  const dated = sort === 'newest' || sort === 'oldest';
  return keysetPage({
    cursors: deps.cursors,
    scope: scopeOf(storeId, filter, sort),
    query: searchCardsQuery(deps.db, storeId, filter, sort),
    columns: ['s.sort_key', 's.id'],
    position: (row) => [
      dated ? (row.sort_key as Date).toISOString() : (row.sort_key as string | number),
      row.id,
    ],
    revive: dated ? ([key, id]) => [new Date(String(key)), id] : undefined,
    descending: SORT_KEYS[sort].descending,
    page,
    toItem: (row) => row,
  });
}

/**
 * The facets of a search: option values, price range, collections and stock, counted over its
 * products (found as `searchProductCards` finds them: exactly, else with typos).
 */
export async function productFacets(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  params: SearchParams,
): Promise<ProductFacets> {
  const exact = filterOf(params);
  let rows = await searchFacets(deps.db, storeId, exact);
  if (rows.summary.total === 0 && exact.words.length > 0)
    rows = await searchFacets(deps.db, storeId, { ...exact, fuzzy: true });
  const options: ProductFacets['options'] = [];
  for (const row of rows.options) {
    const last = options.at(-1);
    const value = { value: row.value, count: row.count };
    if (last?.name === row.name) last.values.push(value);
    else options.push({ name: row.name, values: [value] });
  }
  return {
    total: rows.summary.total,
    options,
    price: { min: rows.summary.min_price, max: rows.summary.max_price },
    collections: rows.collections,
    available: { count: rows.summary.available },
  };
}
