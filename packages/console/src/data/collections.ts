/**
 * Collections on the Admin API: their query keys, the reads (a page of the list, every collection
 * for a filter, one collection, a manual collection's products, the smart rules' preview) and the
 * changes (create, save, delete). A change refreshes the collection lists and the product lists
 * (they filter by collection).
 */
import type { components, RequestBody } from '@storefront/client';
import {
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { FORM_RECORD } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';
import { catalogKeys } from './catalog.ts';
import { productKeys, type AdminProduct } from './products.ts';

export type AdminCollection = components['schemas']['AdminCollection'];
export type Rules = RequestBody<'adminPreviewCollection'>['rules'];
export type Condition = Rules['conditions'][number];

const PAGE_SIZE = 20;
/** The most collections a filter offers (the first ones, oldest first). */
const CHOICES_MAX = 500;

export const collectionKeys = {
  all: catalogKeys.collections(),
  lists: () => [...collectionKeys.all, 'list'] as const,
  list: (cursor: string | undefined) => [...collectionKeys.lists(), { cursor }] as const,
  /** Every collection (up to CHOICES_MAX), for a select. */
  choices: () => [...collectionKeys.lists(), 'choices'] as const,
  details: () => [...collectionKeys.all, 'detail'] as const,
  detail: (id: string) => [...collectionKeys.details(), id] as const,
  members: (id: string) => [...collectionKeys.detail(id), 'members'] as const,
  /** What rules would match, by the rules (as JSON). */
  preview: (rules: string) => [...collectionKeys.all, 'preview', rules] as const,
};

/** After a collection changed: the lists of collections, and the product lists (filtered by collection). */
function refreshLists(queryClient: QueryClient): Promise<void> {
  return invalidate(queryClient, collectionKeys.lists(), productKeys.lists());
}

export function useCollections(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: collectionKeys.list(cursor),
    queryFn: () =>
      admin.request('adminListCollections', {
        query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) },
      }),
    placeholderData: keepPreviousData,
  });
}

/** Every collection's id and title (the first CHOICES_MAX), for the products list's filter. */
export function useCollectionChoices() {
  const admin = useAdmin();
  return useQuery({
    queryKey: collectionKeys.choices(),
    queryFn: async () => {
      const choices: { id: string; title: string }[] = [];
      for await (const collection of admin.list('adminListCollections', { query: { limit: 100 } })) {
        choices.push({ id: collection.id, title: collection.title });
        if (choices.length >= CHOICES_MAX) break;
      }
      return choices;
    },
    staleTime: 60_000,
  });
}

/** One collection, for its form (read again on every visit). */
export function useCollection(id: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: collectionKeys.detail(id ?? ''),
    queryFn: () => admin.request('adminGetCollection', { path: { id: id! } }),
    enabled: id !== undefined,
    ...FORM_RECORD,
  });
}

/** A manual collection's products in its order, for its form (read again on every visit). */
export function useCollectionMembers(id: string | undefined, enabled: boolean) {
  const admin = useAdmin();
  return useQuery({
    queryKey: collectionKeys.members(id ?? ''),
    queryFn: async () => {
      const products: AdminProduct[] = [];
      for await (const product of admin.list('adminListCollectionProducts', {
        path: { id: id! },
        query: { limit: 100 },
      })) {
        products.push(product);
      }
      return products;
    },
    enabled: id !== undefined && enabled,
    ...FORM_RECORD,
  });
}

/**
 * The first 20 products these rules match now, and how many (`rules`: the rules as JSON, null while
 * incomplete). The last answer stays while the next is asked.
 */
export function useCollectionPreview(rules: string | null) {
  const admin = useAdmin();
  return useQuery({
    queryKey: collectionKeys.preview(rules ?? ''),
    queryFn: () =>
      admin.request('adminPreviewCollection', { body: { rules: JSON.parse(rules!) as Rules, limit: 20 } }),
    enabled: rules !== null,
    placeholderData: keepPreviousData,
  });
}

export function useCreateCollection() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'adminCreateCollection'>) =>
      admin.request('adminCreateCollection', { body }),
    onSuccess: () => refreshLists(queryClient),
  });
}

/**
 * Saves a collection's title, handle and products or rules. `members`, for a manual collection, is
 * its products as the form has them: the cache keeps them as the collection's members.
 */
export function useUpdateCollection() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      id,
      body,
    }: {
      id: string;
      body: RequestBody<'adminUpdateCollection'>;
      members?: AdminProduct[];
    }) => admin.request('adminUpdateCollection', { path: { id }, body }),
    onSuccess: async (updated, { members }) => {
      queryClient.setQueryData(collectionKeys.detail(updated.id), updated);
      if (members) queryClient.setQueryData(collectionKeys.members(updated.id), members);
      await refreshLists(queryClient);
    },
  });
}

/** Deletes a collection (its products stay). */
export function useDeleteCollection() {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (collection: AdminCollection) =>
      admin.request('adminDeleteCollection', { path: { id: collection.id } }),
    onSuccess: async (_none, collection) => {
      queryClient.removeQueries({ queryKey: collectionKeys.detail(collection.id) });
      await refreshLists(queryClient);
    },
  });
}
