/**
 * Customers on the Admin API (decision `customer-accounts`): their query keys, the reads (the list with its search and
 * account filter, page after page; one customer with their addresses and newest orders; the privacy
 * log) and the two privacy actions (export a customer's data, erase a customer; the admin role,
 * both recorded in the privacy log).
 *
 * An export changes nothing but the privacy log, which is read again. An erasure forgets the
 * customer, reads the customers lists and the privacy log again, and marks every order stale: their
 * orders keep their numbers, lines and amounts, but the names, emails, phones and addresses on them
 * are scrubbed, so an order opened next shows what is left.
 */
import type { QueryParams, SuccessBody } from '@storefront/client';
import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';
import { orderKeys } from './orders.ts';

/** A customer as the list shows them: the profile with their orders' count, total and last date. */
export type AdminCustomer = SuccessBody<'adminListCustomers'>['items'][number];
/** One customer: the list's fields with their saved addresses and newest 50 orders. */
export type CustomerDetail = SuccessBody<'adminGetCustomer'>;
export type CustomerAddress = CustomerDetail['addresses'][number];
/** Everything the store holds about a customer, as the export gives it (JSON). */
export type CustomerExport = SuccessBody<'adminExportCustomer'>;
export type PrivacyLogEntry = SuccessBody<'adminListPrivacyLog'>['items'][number];

/** The most orders a customer's record lists (their newest). */
export const CUSTOMER_ORDERS_SHOWN = 50;

/**
 * How many orders a customer has, paid or not (what an erasure scrubs): the record lists them up
 * to 50 (`ordersCount` counts paid ones only), so a full list means at least that many.
 */
export function ordersOf(customer: CustomerDetail): { count: number; atLeast: boolean } {
  const listed = customer.orders.length;
  if (listed < CUSTOMER_ORDERS_SHOWN) return { count: listed, atLeast: false };
  return { count: Math.max(listed, customer.ordersCount), atLeast: true };
}

/** The list's query without its cursor: the search (`q`) and the account filter. */
export type CustomerListQuery = Omit<QueryParams<'adminListCustomers'>, 'cursor' | 'limit'>;

/** Customers read per page of the list ("Load more" reads the next). */
export const CUSTOMER_PAGE_SIZE = 25;

export const customerKeys = {
  all: ['customers'] as const,
  lists: () => [...customerKeys.all, 'list'] as const,
  list: (query: CustomerListQuery) => [...customerKeys.lists(), query] as const,
  details: () => [...customerKeys.all, 'detail'] as const,
  detail: (id: string) => [...customerKeys.details(), id] as const,
  privacyLog: () => [...customerKeys.all, 'privacy-log'] as const,
};

/**
 * The list, newest first, page after page: `data.pages` holds the pages read so far,
 * `fetchNextPage()` reads the next one ("Load more") while `hasNextPage`. Another search shows the
 * last one's pages until its first page arrives.
 */
export function useCustomers(query: CustomerListQuery) {
  const admin = useAdmin();
  return useInfiniteQuery({
    queryKey: customerKeys.list(query),
    queryFn: ({ pageParam, signal }) =>
      admin.request('adminListCustomers', {
        query: { ...query, limit: CUSTOMER_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    placeholderData: keepPreviousData,
  });
}

/** One customer with their addresses and newest orders. */
export function useCustomer(id: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: customerKeys.detail(id),
    queryFn: ({ signal }) => admin.request('adminGetCustomer', { path: { id }, signal }),
  });
}

/** The privacy log (exports and erasures, by staff or by the customer), newest first, page after page. */
export function usePrivacyLog() {
  const admin = useAdmin();
  return useInfiniteQuery({
    queryKey: customerKeys.privacyLog(),
    queryFn: ({ pageParam, signal }) =>
      admin.request('adminListPrivacyLog', {
        query: { limit: CUSTOMER_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
}

/**
 * Reads a customer's data for a download (the admin role; recorded in the privacy log, which is
 * read again). `onSuccess` gets the export: the screen saves it.
 */
export function useExportCustomer(id: string, callbacks: ChangeCallbacks<CustomerExport, void> = {}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => admin.request('adminExportCustomer', { path: { id } }),
    onSuccess: async (data) => {
      await callbacks.onSuccess?.(data, undefined);
      await invalidate(queryClient, customerKeys.privacyLog());
    },
  });
}

/**
 * Erases a customer (the admin role, 204): their account, addresses and sessions are deleted and
 * the personal data on their orders scrubbed. The customers lists are dropped (the next one shown is
 * read afresh, without the customer), the privacy log and every order are read again, then
 * `onSuccess` runs (the screen goes back to the list) and the customer's own record is forgotten
 * (not read again while their page is still on screen: it is gone).
 */
export function useEraseCustomer(id: string, callbacks: ChangeCallbacks<void, void> = {}) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      await admin.request('adminEraseCustomer', { path: { id } });
    },
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: customerKeys.lists() });
      await invalidate(queryClient, customerKeys.privacyLog(), orderKeys.all);
      await callbacks.onSuccess?.(undefined, undefined);
      queryClient.removeQueries({ queryKey: customerKeys.detail(id) });
    },
  });
}
