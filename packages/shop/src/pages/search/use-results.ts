/** The search's results: pages kept per search for the session, so back shows them at once. */
import type { ProductCard } from '@storefront/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { goToSearch, searchProducts, type SearchState } from '../../search.ts';

interface Pages {
  items: ProductCard[];
  nextCursor: string | null;
  pages: number;
}
const loaded = new Map<string, Pages>();

/** `key` names the search and its market (`country`): a page of another market is not this one's. */
export function useResults(state: SearchState, country: string | null, key: string) {
  const [shown, setShown] = useState<{ key: string; pages: Pages | undefined; error: unknown }>(() => ({
    key,
    pages: loaded.get(key),
    error: null,
  }));
  const [attempt, setAttempt] = useState(0);
  const [loadingMore, setLoadingMore] = useState(false);
  const wanted = state.pages;
  const stateRef = useRef({ state, country });
  stateRef.current = { state, country };
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
          const page = await searchProducts(
            stateRef.current.state,
            stateRef.current.country,
            pages?.nextCursor ?? undefined,
          );
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
      const page = await searchProducts(state, country, pages.nextCursor);
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
      goToSearch({ ...state, pages: next.pages }, { replace: true });
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
