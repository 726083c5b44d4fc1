/**
 * An order's shipments on the Admin API (docs/fulfillment.md): the types and the calls the order
 * screen makes to fulfil items, mark a shipment delivered and cancel one. Every call, done or
 * refused, reads the order and the orders lists again: a refusal (409) usually means someone else
 * changed the order meanwhile, and the screen should show what is true now.
 */
import type { components, RequestBody } from '@storefront/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';

export type Fulfillment = components['schemas']['Fulfillment'];
export type FulfillmentBody = RequestBody<'adminCreateFulfillment'>;
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

/** Reads the order (its shipments and fulfilment status) and the orders lists again. */
function useRefreshOrder(orderId: string) {
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
