/**
 * The list screens' shared pieces on TanStack Query: `QueryView` shows a query's states (loading,
 * error with "Try again", empty, content) with the markup every screen uses, and `PagedTable` a
 * paged list's table in them; `useChangeAndRefresh` is a change made from a list (delete, revoke,
 * publish, retry) followed by the list's refresh (the data modules in src/data/ make theirs with
 * it, naming their own query keys); `FORM_RECORD` and `readingForForm` make an edit form start
 * from the server's copy of now.
 */
import {
  useMutation,
  useQueryClient,
  type QueryKey,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Empty, ErrorBanner, Loading } from './components.tsx';
import { DataTable, Pager, type CursorPager, type DataTableProps } from './table.tsx';

/** A page of a list (`{ items }`) with no items. */
function hasNoItems(data: unknown): boolean {
  const items = (data as { items?: unknown } | null)?.items;
  return Array.isArray(items) && items.length === 0;
}

const retryBanner = (error: unknown, retry: () => void) => <ErrorBanner error={error} onRetry={retry} />;

export interface QueryViewProps<T> {
  query: UseQueryResult<T>;
  /** The loading status's words ("Loading menus…"); "Loading…" by default. */
  loading?: string;
  /** The error state; by default the error banner with "Try again" (which fetches again). */
  error?: (error: unknown, retry: () => void) => ReactNode;
  /** What the empty state says (inside `Empty`); without it, `children` gets empty data too. */
  empty?: ReactNode;
  /** Whether the data is empty; by default, a list page without items. */
  isEmpty?: (data: T) => boolean;
  /**
   * When a refetch fails, keep showing the data under the error (for screens that show both);
   * by default the error replaces it.
   */
  keepData?: boolean;
  children: (data: T) => ReactNode;
}

/**
 * A query's states, in the order the screens show them: loading (a polite status), the error with
 * "Try again", the empty state, then `children` with the data.
 */
export function QueryView<T>({
  query,
  loading,
  error = retryBanner,
  empty,
  isEmpty = hasNoItems,
  keepData = false,
  children,
}: QueryViewProps<T>) {
  if (query.isPending) return <Loading label={loading} />;
  const failure = query.isError ? error(query.error, () => void query.refetch()) : null;
  if (query.data === undefined || (query.isError && !keepData)) return failure;
  const data = query.data;
  return (
    <>
      {failure}
      {empty !== undefined && isEmpty(data) ? <Empty>{empty}</Empty> : children(data)}
    </>
  );
}

export interface ChangeAndRefreshOptions<V, R> {
  /** The call, e.g. `(handle) => admin.request('adminDeleteMenu', { path: { handle } })`. */
  change: (variables: V) => Promise<R>;
  /** The lists' query keys (prefixes): refetched after a success, before anything else happens. */
  refresh: readonly QueryKey[];
  /** The changed record's own query key, dropped from the cache after a success (a deleted record). */
  forget?: (variables: V) => QueryKey;
  /** The success message the hook keeps in `notice` (replaced by the next success). */
  notice?: (variables: V, result: R) => string;
  /** Anything else to do once the list is fresh (a message the screen keeps itself, a navigation). */
  onDone?: (variables: V, result: R) => unknown;
}

/** What a screen gives a data module's list change: its success message and what it does next. */
export type ListChangeOptions<V, R = unknown> = Pick<ChangeAndRefreshOptions<V, R>, 'notice' | 'onDone'>;

export type ChangeAndRefresh<V, R> = UseMutationResult<R, Error, V> & {
  /** The last success's message, when `notice` was given. */
  notice: string | null;
};

/**
 * A change made from a list, then the list refreshed: the mutation (`mutate(variables)`, `error` for
 * an ErrorBanner, `isPending` until the list is fresh, so its buttons stay disabled meanwhile), and
 * the success message in `notice`.
 */
export function useChangeAndRefresh<V = void, R = unknown>({
  change,
  refresh,
  forget,
  notice,
  onDone,
}: ChangeAndRefreshOptions<V, R>): ChangeAndRefresh<V, R> {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: change,
    onSuccess: async (result, variables) => {
      if (forget) queryClient.removeQueries({ queryKey: forget(variables) });
      await Promise.all(refresh.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      if (notice) setMessage(notice(variables, result));
      await onDone?.(variables, result);
    },
  });
  return { ...mutation, notice: message };
}

/**
 * Query options for the record an edit form starts from: read again on every visit, even when a
 * copy from an earlier visit is cached and not yet stale.
 */
export const FORM_RECORD = { refetchOnMount: 'always' } as const;

/**
 * Whether a form's record (a query with `FORM_RECORD`) is still being read for this visit. A form
 * copies its record into its own state once and does not follow later reads, so it waits for this
 * read instead of starting from a copy cached on an earlier visit: a product's stock moves with
 * every sale, and another staff member may have saved meanwhile.
 */
export function readingForForm(query: UseQueryResult<unknown>): boolean {
  return query.isPending || (query.isFetching && !query.isFetchedAfterMount);
}

/** A page of a cursor-paged list, as the list endpoints answer. */
interface ListPage {
  items: readonly unknown[];
  nextCursor?: string | null;
}

/**
 * A cursor-paged list as a table: the query's states as `QueryView` shows them (empty only on the
 * first page, so a later page that comes back empty still offers "Previous page"), then the page's
 * rows (`children`, one an item) in a `DataTable`, the `Pager` and whatever comes `after` them.
 */
export function PagedTable<T extends ListPage>({
  query,
  pager,
  loading,
  error,
  empty,
  after,
  children,
  ...table
}: Omit<QueryViewProps<T>, 'children' | 'isEmpty' | 'keepData'> &
  Omit<DataTableProps, 'children'> & {
    pager: CursorPager;
    after?: ReactNode;
    children: (item: T['items'][number]) => ReactNode;
  }) {
  return (
    <QueryView
      query={query}
      loading={loading}
      {...(error ? { error } : {})}
      isEmpty={(data) => data.items.length === 0 && !pager.hasPrevious}
      empty={empty}
    >
      {(data) => (
        <>
          <DataTable {...table}>{data.items.map((item) => children(item))}</DataTable>
          <Pager pager={pager} nextCursor={data.nextCursor} />
          {after}
        </>
      )}
    </QueryView>
  );
}
