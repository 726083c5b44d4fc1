/**
 * What every data module shares: refreshing several query keys at once, and the callbacks a screen
 * gives a change (a message, a navigation) beside the cache work the module does itself.
 */
import type { QueryClient, QueryKey } from '@tanstack/react-query';

/** Marks every query under these keys stale and reads again the ones on screen; resolves when they are. */
export async function invalidate(queryClient: QueryClient, ...keys: readonly QueryKey[]): Promise<void> {
  await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}

/** A screen's part of a change: what it does once the change succeeded (or failed). */
export interface ChangeCallbacks<R, V> {
  onSuccess?: (result: R, variables: V) => unknown;
  onError?: (error: Error, variables: V) => unknown;
}
