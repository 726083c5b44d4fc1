/** Discount codes on the Admin API: their query keys, the list, create and delete. */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';

export type Discount = SuccessBody<'adminListDiscounts'>['items'][number];

export const discountKeys = {
  all: ['discounts'] as const,
  list: (cursor: string | undefined) => [...discountKeys.all, { cursor }] as const,
};

export function useDiscounts(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: discountKeys.list(cursor),
    queryFn: () => admin.request('adminListDiscounts', { query: { cursor, limit: 20 } }),
    placeholderData: keepPreviousData,
  });
}

/** Creates a code; `onSuccess` runs at once, the list is read again meanwhile. */
export function useCreateDiscount(
  callbacks: ChangeCallbacks<SuccessBody<'adminCreateDiscount'>, RequestBody<'adminCreateDiscount'>> = {},
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'adminCreateDiscount'>) => admin.request('adminCreateDiscount', { body }),
    onSuccess: (discount, body) => {
      void invalidate(queryClient, discountKeys.all);
      return callbacks.onSuccess?.(discount, body);
    },
  });
}

export function useDeleteDiscount(options: ListChangeOptions<Discount>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (discount: Discount) => admin.request('adminDeleteDiscount', { path: { id: discount.id } }),
    refresh: [discountKeys.all],
    ...options,
  });
}
