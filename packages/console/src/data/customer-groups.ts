/**
 * Customer groups on the Admin API (docs/customers.md, decision `customer-groups`): named sets of
 * customers ("Wholesale", "VIP") that price lists are limited to. The store's groups are read as one
 * list (every page: a store has few, and the customer page and the price list form show them all),
 * each with its `memberCount`. A change of a customer's groups moves those counts, so it reads the
 * groups again, and the customer.
 */
import type { SuccessBody } from '@storefront/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';
import { customerKeys } from './customers.ts';
import { priceListKeys } from './price-lists.ts';

export type CustomerGroup = SuccessBody<'adminGetCustomerGroup'>;

export const customerGroupKeys = {
  all: ['customer-groups'] as const,
};

/** Every group of the store, oldest first, with how many customers each has. */
export function useCustomerGroups() {
  const admin = useAdmin();
  return useQuery({
    queryKey: customerGroupKeys.all,
    queryFn: async () => {
      const items: CustomerGroup[] = [];
      for await (const group of admin.list('adminListCustomerGroups', { query: { limit: 100 } }))
        items.push(group);
      return { items };
    },
    staleTime: 30_000,
  });
}

export type GroupSave = { id: null; name: string } | { id: string; name: string };

/**
 * Creates a group, or renames the one `id` names; a name the store has (whatever its case) is 409
 * `customer_group_exists`. Then the groups are read again.
 */
export function useSaveCustomerGroup(onSaved: (group: CustomerGroup) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (save: GroupSave) =>
      save.id === null
        ? admin.request('adminCreateCustomerGroup', { body: { name: save.name } })
        : admin.request('adminUpdateCustomerGroup', { path: { id: save.id }, body: { name: save.name } }),
    onSuccess: async (group) => {
      await invalidate(queryClient, customerGroupKeys.all);
      onSaved(group);
    },
  });
}

/**
 * Deletes a group: its customers leave it and price lists no longer name it, so the customers and
 * the price lists are read again too.
 */
export function useDeleteCustomerGroup(options: ListChangeOptions<CustomerGroup>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (group: CustomerGroup) => admin.request('adminDeleteCustomerGroup', { path: { id: group.id } }),
    refresh: [customerGroupKeys.all, customerKeys.all, priceListKeys.all],
    ...options,
  });
}

/**
 * Sets a customer's groups (`[]`: none; replaces them). The customer and the groups (their member
 * counts) are read again; `onSaved` runs then.
 */
export function useSetCustomerGroups(customerId: string, onSaved: () => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (groupIds: string[]) =>
      admin.request('adminSetCustomerGroups', { path: { id: customerId }, body: { groupIds } }),
    onSuccess: async () => {
      await invalidate(queryClient, customerKeys.all, customerGroupKeys.all);
      onSaved();
    },
  });
}
