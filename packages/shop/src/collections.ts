/** The store's first collections as cards: the home and the search's "no results" show them. */
import { shopApi } from './api.ts';
import { useResource } from './data.ts';
import { inCountry, marketKey } from './market.ts';
import type { CollectionSummary } from './ui.tsx';

/** Their price ranges are in the market of `country`. */
export function useCollectionCards(country: string | null) {
  return useResource(marketKey('collections:cards', country), () =>
    shopApi()
      .collections.list({ limit: 12, ...inCountry(country) })
      .then((page) => page.items as CollectionSummary[]),
  );
}
