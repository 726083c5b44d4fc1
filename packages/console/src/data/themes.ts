/** Themes on the Admin API: their query keys, the list, create and publish (make live). */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type Theme = SuccessBody<'adminListThemes'>['items'][number];

export const themeKeys = {
  all: ['themes'] as const,
  list: (cursor: string | undefined) => [...themeKeys.all, { cursor }] as const,
};

export function useThemes(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: themeKeys.list(cursor),
    queryFn: () => admin.request('adminListThemes', { query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
  });
}

/** Creates a theme; `onSuccess` runs once the list is read again. */
export function useCreateTheme(callbacks: ChangeCallbacks<Theme, RequestBody<'adminCreateTheme'>> = {}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'adminCreateTheme'>) => admin.request('adminCreateTheme', { body }),
    onSuccess: async (theme, body) => {
      await invalidate(queryClient, themeKeys.all);
      await callbacks.onSuccess?.(theme, body);
    },
  });
}

/** Makes a theme the live one (the one live before is not any more). */
export function usePublishTheme(options: ListChangeOptions<Theme, Theme>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (theme: Theme) => admin.request('adminPublishTheme', { path: { id: theme.id } }),
    refresh: [themeKeys.all],
    ...options,
  });
}
