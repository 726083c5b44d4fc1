/**
 * Storefront search (decision `storefront-search`) for the search page: the page's address is its state. The shop's
 * query string holds the API's own parameters (`q`, `collection`, `tag`, `minPrice`, `maxPrice` in
 * minor units, `available=true`, `option.<Name>` repeated, `sort`) plus `pages` (how many pages
 * "Load more" has shown), so back, forward, reload and a shared link show the same list.
 */
import type { ProductCard } from '@storefront/client';
import { shopApi } from './api.ts';
import { inCountry } from './market.ts';
import { navigate } from './router.tsx';

export type SearchSort = 'relevance' | 'newest' | 'oldest' | 'price_asc' | 'price_desc' | 'title_asc';

export const SORT_LABELS: readonly [SearchSort, string][] = [
  ['relevance', 'Relevance'],
  ['newest', 'Newest'],
  ['price_asc', 'Price: low to high'],
  ['price_desc', 'Price: high to low'],
  ['title_asc', 'Name: A to Z'],
];

export interface SearchState {
  q: string;
  collection: string | null;
  tag: string | null;
  /** Minor units. */
  minPrice: number | null;
  maxPrice: number | null;
  available: boolean;
  /** Chosen values per option name (any of them). */
  options: Record<string, string[]>;
  /** The sort asked for in the address, or null for the default. */
  sort: SearchSort | null;
  /** How many pages are shown (1 unless "Load more" was used). */
  pages: number;
}

/** What GET /products/facets answers. */
export interface ProductFacets {
  total: number;
  options: { name: string; values: { value: string; count: number }[] }[];
  price: { min: number | null; max: number | null };
  collections: { slug: string; title: string; count: number }[];
  available: { count: number };
  /** The currency of `price`, when a country was given. */
  currency?: string;
}

const OPTION = 'option.';
const SORTS = new Set<string>(SORT_LABELS.map(([sort]) => sort).concat('oldest'));
const MAX_PAGES = 10;
export const PAGE_SIZE = 12;

function amount(text: string | null): number | null {
  return text !== null && /^\d{1,12}$/.test(text) ? Number(text) : null;
}

/** The search an address asks for; values the API would refuse are left out. */
export function readSearch(query: URLSearchParams): SearchState {
  const options: Record<string, string[]> = {};
  for (const [key, value] of query) {
    if (!key.startsWith(OPTION) || key.length === OPTION.length || value === '') continue;
    const values = (options[key.slice(OPTION.length)] ??= []);
    if (!values.includes(value)) values.push(value);
  }
  const sort = query.get('sort');
  const pages = Number(query.get('pages'));
  return {
    q: (query.get('q') ?? '').trim().slice(0, 200),
    collection: query.get('collection') || null,
    tag: query.get('tag') || null,
    minPrice: amount(query.get('minPrice')),
    maxPrice: amount(query.get('maxPrice')),
    available: query.get('available') === 'true',
    options,
    sort: sort !== null && SORTS.has(sort) ? (sort as SearchSort) : null,
    pages: Number.isInteger(pages) && pages > 1 ? Math.min(pages, MAX_PAGES) : 1,
  };
}

/** The sort the list is in: the one asked for, else relevance with words and newest without. */
export function effectiveSort(state: SearchState): SearchSort {
  if (state.sort === 'relevance' && state.q === '') return 'newest';
  return state.sort ?? (state.q === '' ? 'newest' : 'relevance');
}

/** The filter parameters (no sort, no pages), as the API takes them; `without` leaves one group out. */
export function filterParams(
  state: SearchState,
  without: { option?: string; collection?: boolean } = {},
): URLSearchParams {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.collection && !without.collection) params.set('collection', state.collection);
  if (state.tag) params.set('tag', state.tag);
  if (state.minPrice !== null) params.set('minPrice', String(state.minPrice));
  if (state.maxPrice !== null) params.set('maxPrice', String(state.maxPrice));
  if (state.available) params.set('available', 'true');
  for (const name of Object.keys(state.options).sort()) {
    if (name === without.option) continue;
    for (const value of state.options[name]!) params.append(`${OPTION}${name}`, value);
  }
  return params;
}

/** The address of a search (the page's own query string): defaults left out. */
export function searchPath(state: SearchState): string {
  const params = filterParams(state);
  if (state.sort !== null && state.sort !== (state.q === '' ? 'newest' : 'relevance'))
    params.set('sort', state.sort);
  if (state.pages > 1) params.set('pages', String(state.pages));
  const text = params.toString();
  return text === '' ? '/search' : `/search?${text}`;
}

/** Goes to another state of the search in place: a history entry, the scroll position kept. */
export function goToSearch(state: SearchState, options: { replace?: boolean } = {}): void {
  navigate(searchPath(state), { ...options, scroll: false });
}

/** Whether anything narrows the list besides the words. */
export function hasFilters(state: SearchState): boolean {
  return (
    state.collection !== null ||
    state.tag !== null ||
    state.minPrice !== null ||
    state.maxPrice !== null ||
    state.available ||
    Object.keys(state.options).length > 0
  );
}

export function withoutFilters(state: SearchState): SearchState {
  return {
    ...state,
    collection: null,
    tag: null,
    minPrice: null,
    maxPrice: null,
    available: false,
    options: {},
    pages: 1,
  };
}

type SearchQuery = Parameters<ReturnType<typeof shopApi>['products']['list']>[0];

/** Query pairs as the client takes them: a repeated name (`option.Size`) as a list of values. */
function grouped(pairs: Iterable<[string, string]>): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of pairs) {
    const held = query[key];
    query[key] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
  }
  return query;
}

/** One page of the search's cards, priced in the market of `country`. */
export function searchProducts(
  state: SearchState,
  country: string | null,
  cursor?: string,
): Promise<{ items: ProductCard[]; nextCursor: string | null }> {
  // Numbers and booleans travel as the text of the address, which the API reads as it reads any query.
  const query = {
    ...grouped(filterParams(state)),
    limit: PAGE_SIZE,
    sort: effectiveSort(state),
    ...inCountry(country),
    ...(cursor ? { cursor } : {}),
  } as SearchQuery;
  return shopApi().products.list(query);
}

/** GET /storefront/v1/products/facets with these filter parameters, in the market of `country`. */
export function productFacets(params: URLSearchParams, country: string | null): Promise<ProductFacets> {
  return shopApi().products.facets({ ...grouped(params), ...inCountry(country) });
}
