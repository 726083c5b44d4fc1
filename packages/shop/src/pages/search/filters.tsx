/** The search's filters: stock, option values, collections and price, each with its counts. */
import { useState } from 'preact/hooks';
import { goToSearch, type SearchState } from '../../search.ts';
import { PriceFilter } from './price-filter.tsx';
import type { FacetSet } from './use-facets.ts';

/** `narrow`: the filters start folded on a phone, open beside the results on a wider screen. */
const narrow = () => window.matchMedia('(max-width: 47.99rem)').matches;

export function Filters({
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
              onClick={() => goToSearch({ ...state, tag: null, pages: 1 })}
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
              onChange={(event) => goToSearch({ ...state, available: event.currentTarget.checked, pages: 1 })}
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
                onChange={() => goToSearch({ ...state, collection: null, pages: 1 })}
              />
              <span>All collections</span>
            </label>
            {collections.map((collection) => (
              <label key={collection.slug} class="filter-choice">
                <input
                  type="radio"
                  name="filter-collection"
                  checked={state.collection === collection.slug}
                  onChange={() => goToSearch({ ...state, collection: collection.slug, pages: 1 })}
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
    goToSearch({ ...state, options, pages: 1 });
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
