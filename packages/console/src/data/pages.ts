/** Pages on the Admin API: their query keys, the list, one page, and create, save, delete. */
import type { SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { FORM_RECORD, useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type AdminPage = SuccessBody<'adminGetPage'>;
export interface PageContent {
  title: string;
  body: string;
}

export const pageKeys = {
  all: ['pages'] as const,
  lists: () => [...pageKeys.all, 'list'] as const,
  list: (cursor: string | undefined) => [...pageKeys.lists(), { cursor }] as const,
  detail: (slug: string) => [...pageKeys.all, 'detail', slug] as const,
};

export function usePages(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: pageKeys.list(cursor),
    queryFn: () => admin.request('adminListPages', { query: { limit: 50, cursor } }),
  });
}

/** One page, for its editor (read again on every visit). */
export function usePage(slug: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: pageKeys.detail(slug),
    queryFn: () => admin.request('adminGetPage', { path: { slug } }),
    ...FORM_RECORD,
  });
}

/** Looks a page up by its slug (rejects with the API's 404 when there is none): before creating one. */
export function useFindPage() {
  const admin = useAdmin();
  return (slug: string) => admin.request('adminGetPage', { path: { slug } });
}

/** Creates a page with a title and an empty body. */
export function useCreatePage() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ slug, title }: { slug: string; title: string }) =>
      admin.request('adminPutPage', { path: { slug }, body: { title, body: '' } }),
    onSuccess: () => invalidate(queryClient, pageKeys.lists()),
  });
}

/** Saves a page's title and body; the shop shows them at once. `onSuccess` runs before the list is read again. */
export function useSavePage(slug: string, callbacks: ChangeCallbacks<AdminPage, PageContent> = {}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (content: PageContent) => admin.request('adminPutPage', { path: { slug }, body: content }),
    onSuccess: async (data, content) => {
      await callbacks.onSuccess?.(data, content);
      queryClient.setQueryData(pageKeys.detail(slug), data);
      await invalidate(queryClient, pageKeys.lists());
    },
  });
}

/** Deletes a page (by slug). */
export function useDeletePage(options: ListChangeOptions<string>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (slug: string) => admin.request('adminDeletePage', { path: { slug } }),
    refresh: [pageKeys.lists()],
    forget: (slug) => pageKeys.detail(slug),
    ...options,
  });
}
