/**
 * Search results at `/search?q=…` (D48): the cards a page at a time ("Load more"), filters from the
 * facets (option values, collections, stock, price), the sort, and a "no results" page with
 * suggestions. The address holds it all (src/search.ts): each change is a history entry, so back
 * and forward step through them and a link shows the same list. The filters stay in place while a
 * change loads (the control keeps the focus); a live region says how many were found.
 */
import { currencyExponent, formatMoney, type ProductCard } from '@storefront/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { shopApi } from '../api.ts';
import { useResource } from '../data.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import {
  effectiveSort,
  filterParams,
  hasFilters,
  productFacets,
  readSearch,
  searchPath,
  searchProducts,
  SORT_LABELS,
  withoutFilters,
  type ProductFacets,
  type SearchSort,
  type SearchState,
} from '../search.ts';
import { CollectionCards, ErrorMessage, PageTitle, ProductGrid } from '../ui.tsx';
import { useCollectionCards } from './home.tsx';

/** Goes to another state of the search in place: a history entry, the scroll position kept. */
function go(state: SearchState, options: { replace?: boolean } = {}): void {
  navigate(searchPath(state), { ...options, scroll: false });
}

// ---- Results: pages kept per search for the session, so back shows them at once ----

interface Pages {
  items: ProductCard[];
  nextCursor: string | null;
  pages: number;
}
const loaded = new Map<string, Pages>();

function useResults(state: SearchState, key: string) {
  const [shown, setShown] = useState<{ key: string; pages: Pages | undefined; error: unknown }>(() => ({
    key,
    pages: loaded.get(key),
    error: null,
  }));
  const [attempt, setAttempt] = useState(0);
  const [loadingMore, setLoadingMore] = useState(false);
  const wanted = state.pages;
  const stateRef = useRef(state);
  stateRef.current = state;
  const keyRef = useRef(key);
  keyRef.current = key;

  useEffect(() => {
    let live = true;
    const kept = loaded.get(key);
    setShown((previous) => ({
      key,
      // While a new search loads, the last list stays (dimmed) rather than the page jumping.
      pages: kept ?? previous.pages,
      error: null,
    }));
    if (kept && (kept.pages >= wanted || kept.nextCursor === null)) return;
    void (async () => {
      try {
        let pages: Pages | undefined = kept;
        while (!pages || (pages.pages < wanted && pages.nextCursor !== null)) {
          const page = await searchProducts(stateRef.current, pages?.nextCursor ?? undefined);
          pages = {
            items: [...(pages?.items ?? []), ...page.items],
            nextCursor: page.nextCursor,
            pages: (pages?.pages ?? 0) + 1,
          };
          if (!live) return;
          loaded.set(key, pages);
          setShown({ key, pages, error: null });
        }
      } catch (error) {
        if (live) setShown((previous) => ({ ...previous, key, error }));
      }
    })();
    return () => {
      live = false;
    };
  }, [key, wanted, attempt]);

  const current = shown.key === key && loaded.get(key) === shown.pages && shown.pages !== undefined;

  async function loadMore(): Promise<number | null> {
    const pages = loaded.get(key);
    if (!pages?.nextCursor) return null;
    setLoadingMore(true);
    try {
      const page = await searchProducts(state, pages.nextCursor);
      // Another search started meanwhile: this page is not its own.
      if (keyRef.current !== key) return null;
      const next = {
        items: [...pages.items, ...page.items],
        nextCursor: page.nextCursor,
        pages: pages.pages + 1,
      };
      loaded.set(key, next);
      setShown({ key, pages: next, error: null });
      // The address counts the pages, so back from a product comes back to all of them.
      go({ ...state, pages: next.pages }, { replace: true });
      return pages.items.length;
    } catch (error) {
      setShown((previous) => ({ ...previous, error }));
      return null;
    } finally {
      setLoadingMore(false);
    }
  }

  return {
    pages: shown.pages,
    current,
    error: shown.key === key ? shown.error : null,
    loadingMore,
    loadMore,
    retry: () => setAttempt((n) => n + 1),
  };
}

// ---- Facets: the list's own, and for a group with a choice, those without it ----

interface FacetSet {
  main: ProductFacets;
  /** Per option with chosen values: its values over the search without that option's choice. */
  byOption: Record<string, ProductFacets['options'][number]['values']>;
  /** The collections over the search without its collection (or the list's own without one). */
  collections: ProductFacets['collections'];
}

async function loadFacets(state: SearchState): Promise<FacetSet> {
  const names = Object.keys(state.options);
  const [main, collectionless, ...optionless] = await Promise.all([
    productFacets(filterParams(state)),
    state.collection ? productFacets(filterParams(state, { collection: true })) : null,
    ...names.map((name) => productFacets(filterParams(state, { option: name }))),
  ]);
  const byOption: FacetSet['byOption'] = {};
  names.forEach((name, i) => {
    byOption[name] = optionless[i]!.options.find((option) => option.name === name)?.values ?? [];
  });
  return { main, byOption, collections: (collectionless ?? main).collections };
}

function useFacets(state: SearchState, key: string) {
  const facets = useResource(`facets:${key}`, () => loadFacets(state));
  const last = useRef<FacetSet | undefined>(undefined);
  if (facets.data) last.current = facets.data;
  return {
    data: facets.data,
    shown: facets.data ?? last.current,
    error: facets.error,
    reload: facets.reload,
  };
}

// ---- The page ----

function countText(total: number, q: string): string {
  if (q === '') return `${total} ${total === 1 ? 'product' : 'products'}`;
  return `${total} ${total === 1 ? 'result' : 'results'} for “${q}”`;
}

export function SearchPage() {
  const { query } = useLocation();
  const state = readSearch(query);
  const store = useResource('store', () => shopApi().store.get());
  const currency = store.data?.currency;
  const sort = effectiveSort(state);
  const filters = filterParams(state).toString();
  const results = useResults(state, `${filters}|${sort}`);
  const facets = useFacets(state, filters);
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
    go(withoutFilters(state));
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
        onChange={(event) => go({ ...state, sort: event.currentTarget.value as SearchSort, pages: 1 })}
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

// ---- Filters ----

/** `narrow`: the filters start folded on a phone, open beside the results on a wider screen. */
const narrow = () => window.matchMedia('(max-width: 47.99rem)').matches;

function Filters({
  state,
  facets,
  currency,
  onClear,
}: {
  state: SearchState;
  facets: FacetSet | undefined;
  currency: string | undefined;
  onClear: () => void;
}) {
  const [open, setOpen] = useState(() => !narrow());
  const chosen =
    Object.values(state.options).reduce((sum, values) => sum + values.length, 0) +
    (state.collection ? 1 : 0) +
    (state.tag ? 1 : 0) +
    (state.available ? 1 : 0) +
    (state.minPrice !== null || state.maxPrice !== null ? 1 : 0);

  // Option groups: the list's own names in its order, and any chosen one it no longer has.
  const names = [...(facets?.main.options.map((option) => option.name) ?? [])];
  for (const name of Object.keys(state.options)) if (!names.includes(name)) names.push(name);

  const collections = [...(facets?.collections ?? [])];
  if (state.collection && !collections.some((c) => c.slug === state.collection))
    collections.push({ slug: state.collection, title: state.collection, count: 0 });

  return (
    <details class="filters" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Filters{chosen > 0 ? <span class="filters-chosen"> ({chosen} chosen)</span> : null}</summary>
      <div class="filters-body">
        {chosen > 0 ? (
          <button type="button" class="button-link clear-filters" onClick={onClear}>
            Clear all filters
          </button>
        ) : null}
        {state.tag ? (
          <p class="filter-tag">
            Tag: {state.tag}{' '}
            <button
              type="button"
              class="button-link"
              aria-label={`Remove the tag ${state.tag}`}
              onClick={() => go({ ...state, tag: null, pages: 1 })}
            >
              Remove
            </button>
          </p>
        ) : null}
        <fieldset class="filter-group">
          <legend>Availability</legend>
          <label class="filter-choice">
            <input
              type="checkbox"
              checked={state.available}
              onChange={(event) => go({ ...state, available: event.currentTarget.checked, pages: 1 })}
            />
            <span>
              In stock only
              {facets ? <span class="muted"> ({facets.main.available.count})</span> : null}
            </span>
          </label>
        </fieldset>
        {names.map((name) => (
          <OptionFilter key={name} name={name} state={state} facets={facets} />
        ))}
        {collections.length > 0 ? (
          <fieldset class="filter-group">
            <legend>Collection</legend>
            <label class="filter-choice">
              <input
                type="radio"
                name="filter-collection"
                checked={state.collection === null}
                onChange={() => go({ ...state, collection: null, pages: 1 })}
              />
              <span>All collections</span>
            </label>
            {collections.map((collection) => (
              <label key={collection.slug} class="filter-choice">
                <input
                  type="radio"
                  name="filter-collection"
                  checked={state.collection === collection.slug}
                  onChange={() => go({ ...state, collection: collection.slug, pages: 1 })}
                />
                <span>
                  {collection.title} <span class="muted">({collection.count})</span>
                </span>
              </label>
            ))}
          </fieldset>
        ) : null}
        <PriceFilter state={state} facets={facets} currency={currency} />
      </div>
    </details>
  );
}

function OptionFilter({
  name,
  state,
  facets,
}: {
  name: string;
  state: SearchState;
  facets: FacetSet | undefined;
}) {
  const selected = state.options[name] ?? [];
  const values = [
    ...(facets?.byOption[name] ?? facets?.main.options.find((option) => option.name === name)?.values ?? []),
  ];
  for (const value of selected)
    if (!values.some((entry) => entry.value === value)) values.push({ value, count: 0 });

  function toggle(value: string, on: boolean) {
    const rest = selected.filter((v) => v !== value);
    const next = on ? [...rest, value] : rest;
    const options = { ...state.options };
    if (next.length > 0) options[name] = next;
    else delete options[name];
    go({ ...state, options, pages: 1 });
  }

  return (
    <fieldset class="filter-group">
      <legend>{name}</legend>
      {values.map(({ value, count }) => (
        <label key={value} class="filter-choice">
          <input
            type="checkbox"
            checked={selected.includes(value)}
            onChange={(event) => toggle(value, event.currentTarget.checked)}
          />
          <span>
            {value} <span class="muted">({count})</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** Minor units as the text of a price field ("12.5" for 1250 in USD); '' for none. */
function toField(amount: number | null, exponent: number): string {
  if (amount === null) return '';
  return String(amount / 10 ** exponent);
}

/** A price field's text as minor units; null when empty, NaN when it is not a price. */
function fromField(text: string, exponent: number): number | null {
  const trimmed = text.trim().replace(',', '.');
  if (trimmed === '') return null;
  if (!/^\d{1,9}(\.\d*)?$/.test(trimmed)) return Number.NaN;
  return Math.round(Number(trimmed) * 10 ** exponent);
}

function PriceFilter({
  state,
  facets,
  currency,
}: {
  state: SearchState;
  facets: FacetSet | undefined;
  currency: string | undefined;
}) {
  const exponent = currency ? currencyExponent(currency) : 2;
  const [min, setMin] = useState(() => toField(state.minPrice, exponent));
  const [max, setMax] = useState(() => toField(state.maxPrice, exponent));
  const [problem, setProblem] = useState<string | null>(null);
  // Back, forward or "Clear all filters" change the address: the fields follow it.
  useEffect(() => {
    setMin(toField(state.minPrice, exponent));
    setMax(toField(state.maxPrice, exponent));
    setProblem(null);
  }, [state.minPrice, state.maxPrice, exponent]);

  function apply(event: Event) {
    event.preventDefault();
    const minPrice = fromField(min, exponent);
    const maxPrice = fromField(max, exponent);
    if (Number.isNaN(minPrice) || Number.isNaN(maxPrice)) {
      setProblem('Enter prices as numbers, like 12 or 12.50.');
      return;
    }
    if (minPrice !== null && maxPrice !== null && minPrice > maxPrice) {
      setProblem('The lowest price must not be above the highest.');
      return;
    }
    setProblem(null);
    go({ ...state, minPrice, maxPrice, pages: 1 });
  }

  const range = facets?.main.price;
  const hint =
    range && range.min !== null && range.max !== null && currency
      ? `${formatMoney(range.min, currency)} – ${formatMoney(range.max, currency)} here`
      : null;
  return (
    <form class="filter-group price-filter" onSubmit={apply} noValidate>
      <fieldset aria-describedby={hint ? 'price-hint' : undefined}>
        <legend>Price{currency ? ` (${currency})` : ''}</legend>
        {hint ? (
          <p id="price-hint" class="field-hint">
            {hint}
          </p>
        ) : null}
        <div class="price-fields">
          <label>
            <span>
              Min<span class="visually-hidden"> price</span>
            </span>
            <input
              type="text"
              inputMode="decimal"
              name="minPrice"
              value={min}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? 'price-problem' : undefined}
              onInput={(event) => setMin(event.currentTarget.value)}
            />
          </label>
          <label>
            <span>
              Max<span class="visually-hidden"> price</span>
            </span>
            <input
              type="text"
              inputMode="decimal"
              name="maxPrice"
              value={max}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? 'price-problem' : undefined}
              onInput={(event) => setMax(event.currentTarget.value)}
            />
          </label>
        </div>
        {problem ? (
          <p id="price-problem" class="field-problem" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" class="button-secondary">
          Apply price
        </button>
      </fieldset>
    </form>
  );
}

// ---- Nothing found ----

function NoResults({
  state,
  currency,
  onClear,
}: {
  state: SearchState;
  currency: string | undefined;
  onClear: () => void;
}) {
  const collections = useCollectionCards();
  const filtered = hasFilters(state);
  return (
    <div class="no-results">
      <h2>No products found</h2>
      <p>
        {state.q ? <>Nothing matches “{state.q}”</> : <>Nothing matches</>}
        {filtered ? ' with these filters.' : '.'}
      </p>
      <ul class="suggestions">
        {state.q ? <li>Check the spelling, or try a shorter or more general word.</li> : null}
        {filtered ? (
          <li>
            Remove a filter, or{' '}
            <button type="button" class="button-link" onClick={onClear}>
              clear all filters
            </button>
            .
          </li>
        ) : null}
        <li>
          <Link to="/search">See the latest products</Link>.
        </li>
      </ul>
      {collections.data && collections.data.length > 0 ? (
        <>
          <h3>Browse a collection</h3>
          <CollectionCards collections={collections.data} currency={currency} />
        </>
      ) : null}
    </div>
  );
}
