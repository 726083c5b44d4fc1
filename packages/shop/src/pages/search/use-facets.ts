/** The search's facets: the list's own, and for a group with a choice, those without it. */
import { useRef } from 'preact/hooks';
import { useResource } from '../../data.ts';
import { filterParams, productFacets, type ProductFacets, type SearchState } from '../../search.ts';

export interface FacetSet {
  main: ProductFacets;
  /** Per option with chosen values: its values over the search without that option's choice. */
  byOption: Record<string, ProductFacets['options'][number]['values']>;
  /** The collections over the search without its collection (or the list's own without one). */
  collections: ProductFacets['collections'];
}

async function loadFacets(state: SearchState, country: string | null): Promise<FacetSet> {
  const names = Object.keys(state.options);
  const [main, collectionless, ...optionless] = await Promise.all([
    productFacets(filterParams(state), country),
    state.collection ? productFacets(filterParams(state, { collection: true }), country) : null,
    ...names.map((name) => productFacets(filterParams(state, { option: name }), country)),
  ]);
  const byOption: FacetSet['byOption'] = {};
  names.forEach((name, i) => {
    byOption[name] = optionless[i]!.options.find((option) => option.name === name)?.values ?? [];
  });
  return { main, byOption, collections: (collectionless ?? main).collections };
}

/** `key` names the search and its market (`country`). */
export function useFacets(state: SearchState, country: string | null, key: string) {
  const facets = useResource(`facets:${key}`, () => loadFacets(state, country));
  const last = useRef<FacetSet | undefined>(undefined);
  if (facets.data) last.current = facets.data;
  return {
    data: facets.data,
    shown: facets.data ?? last.current,
    error: facets.error,
    reload: facets.reload,
  };
}
