/** Menus on the Admin API: their query keys, the list, one menu, and create, save, delete. */
import type { SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { FORM_RECORD, useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type AdminMenu = SuccessBody<'adminGetMenu'>;
export interface MenuItem {
  label: string;
  url: string;
}

export const menuKeys = {
  all: ['menus'] as const,
  lists: () => [...menuKeys.all, 'list'] as const,
  list: (cursor: string | undefined) => [...menuKeys.lists(), { cursor }] as const,
  detail: (handle: string) => [...menuKeys.all, 'detail', handle] as const,
};

export function useMenus(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: menuKeys.list(cursor),
    queryFn: () => admin.request('adminListMenus', { query: { limit: 50, cursor } }),
  });
}

/** One menu, for its editor (read again on every visit). */
export function useMenu(handle: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: menuKeys.detail(handle),
    queryFn: () => admin.request('adminGetMenu', { path: { handle } }),
    ...FORM_RECORD,
  });
}

/** Looks a menu up by its handle (rejects with the API's 404 when there is none): before creating one. */
export function useFindMenu() {
  const admin = useAdmin();
  return (handle: string) => admin.request('adminGetMenu', { path: { handle } });
}

/** Creates an empty menu. */
export function useCreateMenu() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (handle: string) => admin.request('adminPutMenu', { path: { handle }, body: { items: [] } }),
    onSuccess: () => invalidate(queryClient, menuKeys.lists()),
  });
}

/**
 * Replaces a menu's items (the editor's rows, with whatever else they carry, are the variables the
 * callbacks see); the shop shows them at once. `onSuccess` runs before the list is read again.
 */
export function useSaveMenu<T extends MenuItem>(
  handle: string,
  callbacks: ChangeCallbacks<AdminMenu, T[]> = {},
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (items: T[]) =>
      admin.request('adminPutMenu', {
        path: { handle },
        body: { items: items.map(({ label, url }) => ({ label, url })) },
      }),
    onSuccess: async (data, items) => {
      await callbacks.onSuccess?.(data, items);
      queryClient.setQueryData(menuKeys.detail(handle), data);
      await invalidate(queryClient, menuKeys.lists());
    },
    onError: (error, items) => callbacks.onError?.(error, items),
  });
}

/** Deletes a menu (by handle); the shop stops showing it. */
export function useDeleteMenu(options: ListChangeOptions<string>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (handle: string) => admin.request('adminDeleteMenu', { path: { handle } }),
    refresh: [menuKeys.lists()],
    forget: (handle) => menuKeys.detail(handle),
    ...options,
  });
}
