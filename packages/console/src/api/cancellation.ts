/**
 * Cancelling an order on the Admin API (docs/fulfillment.md#cancellation): a pending order releases
 * its reservation and its payment is cancelled; a paid one that has not shipped is restocked and
 * refunded unless told not to. The answer is the cancelled order, shown at once; then the order,
 * the orders lists and Home's figures are read again (a refusal, 409, means the order changed
 * meanwhile: a parcel shipped, or it expired).
 */
import type { RequestBody } from '@storefront/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useRefreshOrder } from './fulfillments.ts';

export type CancelBody = RequestBody<'adminCancelOrder'>;

/** Cancels the order (200 AdminOrder, status `cancelled`); needs the admin role (403 otherwise). */
export function useCancelOrder(orderId: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  const refresh = useRefreshOrder(orderId);
  return useMutation({
    mutationFn: (body: CancelBody) => admin.request('adminCancelOrder', { path: { id: orderId }, body }),
    onSuccess: (order) => {
      queryClient.setQueryData(['order', orderId], order);
    },
    onSettled: () => Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: ['overview'] })]),
  });
}
