/** Nothing found: what to try instead, and the collections to browse. */
import { useCollectionCards } from '../../collections.ts';
import { useMarket } from '../../market.ts';
import { Link } from '../../router.tsx';
import { hasFilters, type SearchState } from '../../search.ts';
import { CollectionCards } from '../../ui.tsx';

export function NoResults({
  state,
  currency,
  onClear,
}: {
  state: SearchState;
  currency: string | undefined;
  onClear: () => void;
}) {
  const collections = useCollectionCards(useMarket().country);
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
