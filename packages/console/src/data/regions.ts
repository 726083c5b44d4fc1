/**
 * Regions on the Admin API: their query keys, the list, one region, and create, save the draft,
 * publish, delete. After a save or a publish the builder keeps the answer as the region's cached
 * copy, and the cached lists are dropped (read afresh when next shown).
 */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { FORM_RECORD, useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';

export type AdminRegion = SuccessBody<'adminGetRegion'>;

export const regionKeys = {
  all: ['regions'] as const,
  lists: () => [...regionKeys.all, 'list'] as const,
  list: (cursor: string | undefined) => [...regionKeys.lists(), { cursor }] as const,
  detail: (key: string) => [...regionKeys.all, 'detail', key] as const,
};

/** The region as the server has it now: its cached copy, and the lists dropped. */
function remember(queryClient: QueryClient, region: AdminRegion): void {
  queryClient.setQueryData(regionKeys.detail(region.key), region);
  queryClient.removeQueries({ queryKey: regionKeys.lists() });
}

export function useRegions(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: regionKeys.list(cursor),
    queryFn: () => admin.request('adminListRegions', { query: { limit: 50, cursor } }),
  });
}

/** One region, for the builder (read again on every visit). */
export function useRegion(key: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: regionKeys.detail(key),
    queryFn: () => admin.request('adminGetRegion', { path: { key } }),
    ...FORM_RECORD,
  });
}

/** Looks a region up by its key (rejects with the API's 404 when there is none): before creating one. */
export function useFindRegion() {
  const admin = useAdmin();
  return (key: string) => admin.request('adminGetRegion', { path: { key } });
}

/** Creates a region with an empty draft. */
export function useCreateRegion() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: string) =>
      admin.request('adminSaveRegionDraft', { path: { key }, body: { blocks: [] } }),
    onSuccess: (region) => {
      queryClient.setQueryData(regionKeys.detail(region.key), region);
      return invalidate(queryClient, regionKeys.lists());
    },
  });
}

/** Saves a region's draft (the shop keeps showing the published tree). */
export function useSaveRegionDraft(key: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (blocks: RequestBody<'adminSaveRegionDraft'>['blocks']) =>
      admin.request('adminSaveRegionDraft', { path: { key }, body: { blocks } }),
    onSuccess: (region) => remember(queryClient, region),
  });
}

/** Publishes the saved draft; resolves with when, and the region as it is now (draft, published tree). */
export function usePublishRegion(key: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const published = await admin.request('adminPublishRegion', { path: { key } });
      const region = await admin.request('adminGetRegion', { path: { key } });
      return { publishedAt: published.updatedAt, region };
    },
    onSuccess: ({ region }) => remember(queryClient, region),
  });
}

/** Deletes a region (by key). */
export function useDeleteRegion(options: ListChangeOptions<string>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (key: string) => admin.request('adminDeleteRegion', { path: { key } }),
    refresh: [regionKeys.lists()],
    forget: (key) => regionKeys.detail(key),
    ...options,
  });
}
