/**
 * Orders on the Admin API (docs/checkout.md, docs/fulfillment.md): their query keys, the reads (a
 * page of the list, one order, a return's suggested refund) and every change made from an order's
 * page: refund, cancel, fulfil, change or cancel a shipment, record a return.
 *
 * Every change, done or refused, reads the order, the orders lists and Home's figures again (a
 * refusal, 409, usually means someone else changed the order meanwhile, and the page should show
 * what is true now), and marks every product stale: a cancellation releases or restocks units and a
 * return restocks them, so a product opened next shows its stock after the change (marking costs
 * nothing while no product is on screen).
 */
import type { components, QueryParams, RequestBody, SuccessBody } from '@storefront/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate, type ChangeCallbacks } from './cache.ts';
import { overviewKeys } from './overview.ts';
import { productKeys } from './products.ts';

export type Fulfillment = components['schemas']['Fulfillment'];
export type FulfillmentBody = RequestBody<'adminCreateFulfillment'>;
/** A change of a shipment's carrier or tracking (the fields left out stay as they are). */
export type TrackingChange = Omit<RequestBody<'adminUpdateFulfillment'>, 'status'>;
export type OrderFulfillmentStatus = components['schemas']['AdminOrder']['fulfillmentStatus'];
export type CancelBody = RequestBody<'adminCancelOrder'>;
/** A return recorded on an order (the order's `returns`, oldest first). */
export type OrderReturn = components['schemas']['Return'];
/** A return to record: 1 to 100 lines of 1 to 999 units; `restock` and `notifyCustomer` default true. */
export type ReturnBody = RequestBody<'adminCreateReturn'>;
/** What a return of some lines would refund by default, and the most the order can still refund. */
export type ReturnPreview = components['schemas']['ReturnPreview'];
/** A mail the buyer was sent (or is about to be) about the order. */
export type OrderMail = components['schemas']['OrderMail'];
export type OrderListQuery = QueryParams<'adminListOrders'>;

/**
 * The carriers the server makes a tracking link for from the number alone: the names of CARRIERS in
 * src/orders/carriers.ts (the console cannot import server code; keep the two lists alike).
 */
export const KNOWN_CARRIERS = [
  'UPS',
  'USPS',
  'FedEx',
  'DHL',
  'Royal Mail',
  'Canada Post',
  'Australia Post',
  'PostNL',
  'La Poste',
  'Deutsche Post',
] as const;

export const orderKeys = {
  all: ['orders'] as const,
  lists: () => [...orderKeys.all, 'list'] as const,
  list: (query: OrderListQuery) => [...orderKeys.lists(), query] as const,
  details: () => [...orderKeys.all, 'detail'] as const,
  detail: (id: string) => [...orderKeys.details(), id] as const,
  returnPreview: (id: string, version: string, lines: ReturnBody['lines'] | null) =>
    [...orderKeys.all, 'return-preview', id, version, lines] as const,
};

/** A page of the list (newest first); the page shown stays while the next one is read. */
export function useOrders(query: OrderListQuery) {
  const admin = useAdmin();
  return useQuery({
    queryKey: orderKeys.list(query),
    queryFn: () => admin.orders.list(query),
    placeholderData: keepPreviousData,
  });
}

/** One order; while a refund waits for the payment provider, read again every two seconds. */
export function useOrder(id: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: orderKeys.detail(id),
    queryFn: () => admin.orders.get(id),
    refetchInterval: (query) =>
      query.state.data?.refunds.some((refund) => refund.status === 'pending') ? 2000 : false,
  });
}

/** After a change of the order: the order, the lists, Home's figures, and the products' stock. */
function useRefreshOrder(orderId: string) {
  const queryClient = useQueryClient();
  return () =>
    invalidate(queryClient, orderKeys.detail(orderId), orderKeys.lists(), overviewKeys.all, productKeys.all);
}

/**
 * Refunds part or all of what is left (202: the refund is pending until the provider confirms it).
 * `onSuccess` runs at once; the order is read again meanwhile, done or refused.
 */
export function useRefundOrder(
  orderId: string,
  callbacks: ChangeCallbacks<SuccessBody<'adminCreateRefund'>, RequestBody<'adminCreateRefund'>> = {},
) {
  const admin = useAdmin();
  const refresh = useRefreshOrder(orderId);
  return useMutation({
    mutationFn: (body: RequestBody<'adminCreateRefund'>) => admin.orders.refund(orderId, body),
    onSuccess: (started, body) => callbacks.onSuccess?.(started, body),
    onSettled: () => void refresh(),
  });
}

/**
 * Cancels the order (200 AdminOrder, status `cancelled`; the admin role): a pending order releases
 * its reservation and its payment is cancelled; a paid one that has not shipped is restocked and
 * refunded unless told not to. The answer is shown at once, then everything is read again.
 */
export function useCancelOrder(orderId: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const refresh = useRefreshOrder(orderId);
  return useMutation({
    mutationFn: (body: CancelBody) => admin.request('adminCancelOrder', { path: { id: orderId }, body }),
    onSuccess: (order) => {
      queryClient.setQueryData(orderKeys.detail(orderId), order);
    },
    onSettled: refresh,
  });
}

/** Records a shipment of some of the order's units (201 Fulfillment). */
export function useFulfil(orderId: string) {
  const admin = useAdmin();
  const refresh = useRefreshOrder(orderId);
  return useMutation({
    mutationFn: (body: FulfillmentBody) =>
      admin.request('adminCreateFulfillment', { path: { id: orderId }, body }),
    onSettled: refresh,
  });
}

/** Marks one shipment delivered, or cancels it (its units count as not shipped again). */
export function useShipmentChange(orderId: string, fulfillmentId: string) {
  const admin = useAdmin();
  const refresh = useRefreshOrder(orderId);
  return useMutation({
    mutationFn: (change: 'delivered' | 'cancel') => {
      const path = { id: orderId, fulfillmentId };
      return change === 'delivered'
        ? admin.request('adminUpdateFulfillment', { path, body: { status: 'delivered' } })
        : admin.request('adminCancelFulfillment', { path });
    },
    onSettled: refresh,
  });
}

/**
 * Changes a shipment's carrier, tracking number or tracking URL (200 Fulfillment). The server keeps
 * what is left out, and makes a listed carrier's link again from a new number unless a URL is given.
 */
export function useTrackingChange(orderId: string, fulfillmentId: string) {
  const admin = useAdmin();
  const refresh = useRefreshOrder(orderId);
  return useMutation({
    mutationFn: (body: TrackingChange) =>
      admin.request('adminUpdateFulfillment', { path: { id: orderId, fulfillmentId }, body }),
    onSettled: refresh,
  });
}

/** Records a return (201 Return): restocks what is marked so, refunds, mails the buyer unless told not to. */
export function useCreateReturn(orderId: string) {
  const admin = useAdmin();
  const refresh = useRefreshOrder(orderId);
  return useMutation({
    mutationFn: (body: ReturnBody) => admin.request('adminCreateReturn', { path: { id: orderId }, body }),
    onSettled: refresh,
  });
}

/**
 * The refund a return of these lines would make by default (nothing is written); null lines ask
 * nothing. `version` changes with what the order has refunded and returned, so the answer follows.
 */
export function useReturnPreview(orderId: string, lines: ReturnBody['lines'] | null, version: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: orderKeys.returnPreview(orderId, version, lines),
    queryFn: ({ signal }) =>
      admin.request('adminPreviewReturn', { path: { id: orderId }, body: { lines: lines ?? [] }, signal }),
    enabled: lines !== null && lines.length > 0,
    // The last answer stays while the next is asked (the form says it is working the refund out).
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}
