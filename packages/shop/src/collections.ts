/** The store's first collections as cards: the home and the search's "no results" show them. */
import { shopApi } from './api.ts';
import { useResource } from './data.ts';
import type { CollectionSummary } from './ui.tsx';

export function useCollectionCards() {
  return useResource('collections:cards', () =>
    shopApi()
      .collections.list({ limit: 12 })
      .then((page) => page.items as CollectionSummary[]),
  );
}
