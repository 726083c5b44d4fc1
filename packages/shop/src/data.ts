/**
 * Reading from the API in components: `useResource(key, load)` gives the data, the error and a
 * `reload`, keeps the last answer per key for the session (going back shows it at once while it is
 * read again, as it does when the key changes to one already read), and drops answers that arrive
 * after the key changed.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';

const cache = new Map<string, unknown>();

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useResource<T>(key: string | null, load: () => Promise<T>): Resource<T> {
  const [state, setState] = useState<{ key: string | null; data: T | undefined; error: unknown }>(() => ({
    key,
    data: key === null ? undefined : (cache.get(key) as T | undefined),
    error: null,
  }));
  const [attempt, setAttempt] = useState(0);
  // `load` is a new closure each render; the key says what it reads.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stableLoad = useCallback(load, [key]);

  useEffect(() => {
    if (key === null) return;
    let live = true;
    setState((previous) =>
      previous.key === key
        ? { ...previous, error: null }
        : { key, data: cache.get(key) as T | undefined, error: null },
    );
    stableLoad().then(
      (data) => {
        cache.set(key, data);
        if (live) setState({ key, data, error: null });
      },
      (error: unknown) => {
        if (live) setState((previous) => ({ ...previous, key, error }));
      },
    );
    return () => {
      live = false;
    };
  }, [key, attempt, stableLoad]);

  // Until the effect has caught up with a new key, the answer kept for it (if any) shows at once.
  const current = state.key === key;
  const data = current ? state.data : key === null ? undefined : (cache.get(key) as T | undefined);
  return {
    data,
    error: current ? state.error : null,
    loading: current ? data === undefined && !state.error : key !== null && data === undefined,
    reload: () => setAttempt((n) => n + 1),
  };
}

/** Keeps an answer for a key before any page asks (a product read by its id is the same read by its handle). */
export function remember<T>(key: string, data: T): void {
  cache.set(key, data);
}
