/**
 * An order's shipments on the Admin API (docs/fulfillment.md): the types and the calls the order
 * screen makes to fulfil items, change a shipment's tracking, mark it delivered and cancel one.
 * Every call, done or refused, reads the order and the orders lists again: a refusal (409) usually
 * means someone else changed the order meanwhile, and the screen should show what is true now.
 */
import type { components, RequestBody } from '@storefront/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';

export type Fulfillment = components['schemas']['Fulfillment'];
export type FulfillmentBody = RequestBody<'adminCreateFulfillment'>;
/** A change of a shipment's carrier or tracking (the fields left out stay as they are). */
export type TrackingChange = Omit<RequestBody<'adminUpdateFulfillment'>, 'status'>;
export type OrderFulfillmentStatus = components['schemas']['AdminOrder']['fulfillmentStatus'];

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

/**
 * Reads the order (its shipments, fulfilment status, refunds, returns) and the orders lists again;
 * also the cancellation's and the returns' calls (api/cancellation.ts, api/returns.ts).
 */
export function useRefreshOrder(orderId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['order', orderId] }),
      queryClient.invalidateQueries({ queryKey: ['orders'] }),
    ]);
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
