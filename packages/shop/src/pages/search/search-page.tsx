/**
 * Search results at `/search?q=…` (decision `storefront-search`): the cards a page at a time ("Load more"), filters from the
 * facets (option values, collections, stock, price), the sort, and a "no results" page with
 * suggestions. The address holds it all (src/search.ts): each change is a history entry, so back
 * and forward step through them and a link shows the same list. The filters stay in place while a
 * change loads (the control keeps the focus); a live region says how many were found.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { marketKey, useMarket, useMarketCurrency } from '../../market.ts';
import { useLocation } from '../../router.tsx';
import {
  effectiveSort,
  filterParams,
  goToSearch,
  readSearch,
  SORT_LABELS,
  withoutFilters,
  type SearchSort,
  type SearchState,
} from '../../search.ts';
import { ErrorMessage, PageTitle, ProductGrid } from '../../ui.tsx';
import { Filters } from './filters.tsx';
import { NoResults } from './no-results.tsx';
import { useFacets } from './use-facets.ts';
import { useResults } from './use-results.ts';

function countText(total: number, q: string): string {
  if (q === '') return `${total} ${total === 1 ? 'product' : 'products'}`;
  return `${total} ${total === 1 ? 'result' : 'results'} for “${q}”`;
}

export function SearchPage() {
  const { query } = useLocation();
  const state = readSearch(query);
  const { country } = useMarket();
  const currency = useMarketCurrency();
  const sort = effectiveSort(state);
  const filters = marketKey(filterParams(state).toString(), country);
  const results = useResults(state, country, `${filters}|${sort}`);
  const facets = useFacets(state, country, filters);
  const [focusCard, setFocusCard] = useState<number | null>(null);
  const grid = useRef<HTMLDivElement>(null);

  const items = results.pages?.items ?? [];
  useEffect(() => {
    if (focusCard === null) return;
    grid.current?.querySelectorAll<HTMLElement>('.product-card')[focusCard]?.focus();
    setFocusCard(null);
  }, [focusCard, items.length]);

  const title = state.q ? `Results for “${state.q}”` : 'All products';
  const settled = results.current && facets.data !== undefined;
  const total = facets.data?.main.total;
  const status = results.error
    ? 'The search failed.'
    : !settled || total === undefined
      ? 'Searching…'
      : countText(total, state.q);
  const empty = results.current && items.length === 0;

  /** After the filters are cleared, the focus goes to the title (the control that had it is gone). */
  function clearFilters() {
    goToSearch(withoutFilters(state));
    document.querySelector<HTMLElement>('.search-page h1')?.focus();
  }

  return (
    <section class="search-page">
      <PageTitle title={state.q ? `Search: ${state.q}` : 'All products'}>{title}</PageTitle>
      <div class="search-layout">
        <Filters state={state} facets={facets.shown} currency={currency} onClear={clearFilters} />
        <div class="search-results" ref={grid} aria-busy={!settled}>
          <div class="search-toolbar">
            <p class="result-count" role="status">
              {status}
            </p>
            <SortSelect state={state} sort={sort} />
          </div>
          {results.error ? <ErrorMessage error={results.error} onRetry={results.retry} /> : null}
          {facets.error && !results.error ? (
            <ErrorMessage error={facets.error} onRetry={facets.reload} />
          ) : null}
          {empty ? (
            <NoResults state={state} currency={currency} onClear={clearFilters} />
          ) : (
            <div class={results.current ? 'search-grid' : 'search-grid search-grid-stale'}>
              <ProductGrid products={items} />
            </div>
          )}
          {results.current && results.pages?.nextCursor ? (
            <button
              type="button"
              class="button-secondary load-more"
              disabled={results.loadingMore}
              onClick={() => void results.loadMore().then((first) => first !== null && setFocusCard(first))}
            >
              {results.loadingMore ? 'Loading…' : 'Load more'}
            </button>
          ) : null}
        </div>
      </div>
    </section>
  );
}

function SortSelect({ state, sort }: { state: SearchState; sort: SearchSort }) {
  return (
    <div class="sort-field">
      <label for="search-sort">Sort by</label>
      <select
        id="search-sort"
        value={sort}
        onChange={(event) =>
          goToSearch({ ...state, sort: event.currentTarget.value as SearchSort, pages: 1 })
        }
      >
        {SORT_LABELS.filter(([value]) => value !== 'relevance' || state.q !== '').map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}
