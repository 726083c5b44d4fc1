/** Apps on the Admin API: their query keys, the list, install. */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type App = SuccessBody<'adminListApps'>['items'][number];

export const appKeys = {
  all: ['apps'] as const,
  list: (cursor: string | undefined) => [...appKeys.all, { cursor }] as const,
};

export function useApps(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: appKeys.list(cursor),
    queryFn: () => admin.request('adminListApps', { query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
  });
}

/** Installs an app with its scopes; `onSuccess` runs once the list is read again. */
export function useInstallApp(
  callbacks: ChangeCallbacks<SuccessBody<'adminInstallApp'>, RequestBody<'adminInstallApp'>> = {},
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'adminInstallApp'>) => admin.request('adminInstallApp', { body }),
    onSuccess: async (app, body) => {
      await invalidate(queryClient, appKeys.all);
      await callbacks.onSuccess?.(app, body);
    },
  });
}
