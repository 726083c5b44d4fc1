/**
 * Returns on the Admin API (docs/fulfillment.md, D43): units that came back from a shipped order,
 * restocked or not, with a refund. The preview answers what a return of some lines would refund by
 * default and the most that can still be refunded, writing nothing; the return itself reads the
 * order and the orders lists again, done or refused (a 409 means the order changed meanwhile).
 * (The order's `returns` and `mails` are read with `returnsOf` and `mailsOf`, in orders-parts.tsx.)
 */
import type { components, RequestBody } from '@storefront/client';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { useRefreshOrder } from './fulfillments.ts';

/** A return recorded on an order (the order's `returns`, oldest first). */
export type OrderReturn = components['schemas']['Return'];
/** A return to record: 1 to 100 lines of 1 to 999 units; `restock` and `notifyCustomer` default true. */
export type ReturnBody = RequestBody<'adminCreateReturn'>;
/** What a return of some lines would refund by default, and the most the order can still refund. */
export type ReturnPreview = components['schemas']['ReturnPreview'];
/** A mail the buyer was sent (or is about to be) about the order. */
export type OrderMail = components['schemas']['OrderMail'];

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
    queryKey: ['return-preview', orderId, version, lines],
    queryFn: ({ signal }) =>
      admin.request('adminPreviewReturn', { path: { id: orderId }, body: { lines: lines ?? [] }, signal }),
    enabled: lines !== null && lines.length > 0,
    // The last answer stays while the next is asked (the form says it is working the refund out).
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
}
