import { keysetPage } from '../../db/keyset.ts';
import type { ServiceDeps } from '../../db/service-deps.ts';
import type { ListPage } from '../../lib/cursors.ts';
import { validationFailed, type FieldError } from '../../lib/errors.ts';
import { storeCurrency } from '../../stores/stores.service.ts';
import type { ProductCard } from '../catalog.schemas.ts';
import type { ProductFacets } from './search.schemas.ts';
import { toCard, withPriorPrices } from '../products/product-cards.service.ts';
import type { ReadPricing } from '../prices/prices.ts';
import {
  SORT_KEYS,
  searchCardsQuery,
  searchFacets,
  typoCandidates,
  type SearchFilter,
  type SearchSort,
} from './search.repository.ts';
import { correctionLengths, correctionsOf, mayHaveTypos } from './typos.ts';

/**
 * Storefront search (decision `storefront-search`): `q`, filters, sorts with a cursor each, and facets, over the
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
  /** Decision `markets`: the country whose market prices the read. */
  country?: string | undefined;
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
  return Object.keys(params).some((name) => name !== 'limit' && name !== 'cursor' && name !== 'country');
}

function filterOf(params: SearchParams, pricing: ReadPricing | null): SearchFilter {
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
  const words = wordsOf(params.q);
  return {
    words,
    corrections: words.map(() => []),
    collection: params.collection,
    tag: params.tag?.trim() || undefined,
    minPrice: params.minPrice,
    maxPrice: params.maxPrice,
    available: params.available === true ? true : undefined,
    options,
    pricing,
  };
}

/**
 * The filter with each word the store's dictionary does not know given the dictionary words it may
 * be a typo of (decision `typos-from-the-store-dictionary`); known words are never corrected.
 */
async function withCorrections(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  filter: SearchFilter,
): Promise<SearchFilter> {
  const asked = [...new Set(filter.words.filter(mayHaveTypos))];
  if (asked.length === 0) return filter;
  const candidates = await typoCandidates(
    deps.db,
    storeId,
    asked.map((word) => ({ word, ...correctionLengths(Array.from(word).length) })),
  );
  if (candidates.size === 0) return filter;
  return {
    ...filter,
    corrections: filter.words.map((word) => correctionsOf(word, candidates.get(word) ?? [])),
  };
}

/** The sort asked for; `relevance` (the default with words) falls back to the spec's order without. */
function sortOf(params: SearchParams, filter: SearchFilter): SearchSort {
  const sort = params.sort ?? (filter.words.length > 0 ? 'relevance' : 'oldest');
  return sort === 'relevance' && filter.words.length === 0 ? 'oldest' : sort;
}

/**
 * Active products found by a search, as cards, one page; the cursor holds for this search only.
 * A word the store's dictionary does not know also matches the words it may be a typo of, ranked
 * below exact matches (decision `typos-from-the-store-dictionary`).
 */
export async function searchProductCards(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  params: SearchParams,
  pricing: ReadPricing | null = null,
): Promise<ListPage<ProductCard>> {
  const asked = filterOf(params, pricing);
  const sort = sortOf(params, asked);
  const [currency, page] = await Promise.all([
    pricing?.currency ?? storeCurrency(deps, storeId),
    withCorrections(deps, storeId, asked).then((filter) => cardsPage(deps, storeId, filter, sort, params)),
  ]);
  return {
    items: await withPriorPrices(
      deps,
      storeId,
      pricing,
      page.items.map((row) => toCard(row, currency)),
    ),
    nextCursor: page.nextCursor,
  };
}

/**
 * A cursor names its search: one from another query, filter or sort is refused (400). The
 * corrections are not part of it: they are found again for every page.
 */
function scopeOf(storeId: string, filter: SearchFilter, sort: SearchSort): string {
  const { corrections: _corrections, pricing, ...asked } = filter;
  // Its prices' market and groups, not the moment they were read at (a next page is read later).
  const pricedFor = pricing && [pricing.marketId, pricing.lists?.groupIds ?? null];
  return `${storeId}:products:search:${JSON.stringify([asked, sort, pricedFor])}`;
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
 * products (found as `searchProductCards` finds them, typos included).
 */
export async function productFacets(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  params: SearchParams,
  pricing: ReadPricing | null = null,
): Promise<ProductFacets> {
  const rows = await searchFacets(
    deps.db,
    storeId,
    await withCorrections(deps, storeId, filterOf(params, pricing)),
  );
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
    // Only when a country was asked: a request without one is answered as before markets.
    ...(params.country !== undefined
      ? { currency: pricing?.currency ?? (await storeCurrency(deps, storeId)) }
      : {}),
    collections: rows.collections,
    available: { count: rows.summary.available },
  };
}
