/**
 * Draft orders on the Admin API (docs/draft-orders.md, decision `draft-orders`): a page of the list
 * (newest first, by status), one draft priced now by the server, and what is done to one: create,
 * change (lines, customer, address, shipping, discount: each answer is the draft priced again and
 * becomes its cached copy, so the totals on screen are always the server's), invoice (a pending
 * order holding stock, a mail with the link to pay), complete (paid outside: a paid order) and
 * delete.
 *
 * Changes of one draft run one after another (a mutation scope per draft), so the copy kept is the
 * answer to the last change sent. Placing a draft reads the orders lists, Home's figures and the
 * products again (it reserves or sells stock); a draft made from a typed email may have made a
 * customer, so creating one reads the customers lists again.
 */
import type { QueryParams, RequestBody, SuccessBody } from '@storefront/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate } from './cache.ts';
import { customerKeys } from './customers.ts';
import { orderKeys } from './orders.ts';
import { overviewKeys } from './overview.ts';
import { productKeys } from './products.ts';

export type DraftOrder = SuccessBody<'adminGetDraftOrder'>;
export type DraftOrderLine = DraftOrder['lines'][number];
export type DraftOrderStatus = DraftOrder['status'];
export type DraftOrderSummary = SuccessBody<'adminListDraftOrders'>['items'][number];
export type NewDraftOrderBody = RequestBody<'adminCreateDraftOrder'>;
export type DraftOrderPatch = RequestBody<'adminUpdateDraftOrder'>;
export type DraftLineInput = NewDraftOrderBody['lines'][number];
export type DraftOrderPlaced = SuccessBody<'adminCompleteDraftOrder'>;
export type DraftListQuery = Omit<QueryParams<'adminListDraftOrders'>, 'limit'>;

export const DRAFT_PAGE_SIZE = 20;

export const draftOrderKeys = {
  all: ['draft-orders'] as const,
  lists: () => [...draftOrderKeys.all, 'list'] as const,
  list: (query: DraftListQuery) => [...draftOrderKeys.lists(), query] as const,
  details: () => [...draftOrderKeys.all, 'detail'] as const,
  detail: (id: string) => [...draftOrderKeys.details(), id] as const,
};

/** A page of the list, newest first, perhaps of one status; the page shown stays while the next is read. */
export function useDraftOrders(query: DraftListQuery) {
  const admin = useAdmin();
  return useQuery({
    queryKey: draftOrderKeys.list(query),
    queryFn: ({ signal }) =>
      admin.request('adminListDraftOrders', { query: { ...query, limit: DRAFT_PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
}

/**
 * One draft priced now (`GET` prices it again: the customer's prices, promotions, tax, shipping).
 * `enabled: false` reads nothing (a list row waits until it is shown).
 */
export function useDraftOrder(id: string, { enabled = true }: { enabled?: boolean } = {}) {
  const admin = useAdmin();
  return useQuery({
    queryKey: draftOrderKeys.detail(id),
    queryFn: ({ signal }) => admin.request('adminGetDraftOrder', { path: { id }, signal }),
    enabled: enabled && id !== '',
  });
}

/** Creates a draft (201, priced); the answer becomes its cached copy; the lists are read again. */
export function useCreateDraftOrder(onCreated: (draft: DraftOrder) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewDraftOrderBody) => admin.draftOrders.create(body),
    onSuccess: (draft) => {
      queryClient.setQueryData(draftOrderKeys.detail(draft.id), draft);
      void invalidate(queryClient, draftOrderKeys.lists(), customerKeys.lists());
      onCreated(draft);
    },
  });
}

/**
 * Changes an open draft (`lines` are replaced whole, `null` clears a field). The answer, priced
 * again, becomes its cached copy; the lists are read again. Changes of one draft run in order.
 */
export function useUpdateDraftOrder(id: string) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    scope: { id: `draft-order-${id}` },
    mutationFn: (body: DraftOrderPatch) => admin.draftOrders.update(id, body),
    onSuccess: (draft) => {
      queryClient.setQueryData(draftOrderKeys.detail(id), draft);
      void invalidate(queryClient, draftOrderKeys.lists(), customerKeys.lists());
    },
  });
}

/**
 * Invoices (`invoice`) or completes with a payment taken outside (`complete`) a draft, with the
 * `Idempotency-Key` given (kept by the screen, so a retry answers with the same order). The draft in
 * the answer becomes its cached copy; the draft, the orders, Home and the products are read again,
 * done or refused (a 409 usually means the draft changed meanwhile).
 */
export function usePlaceDraftOrder(id: string, how: 'invoice' | 'complete') {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    scope: { id: `draft-order-${id}` },
    mutationFn: (idempotencyKey: string) =>
      how === 'invoice'
        ? admin.draftOrders.invoice(id, { idempotencyKey })
        : admin.draftOrders.complete(id, { idempotencyKey }),
    onSuccess: (placed) => {
      queryClient.setQueryData(draftOrderKeys.detail(id), placed.draftOrder);
    },
    onSettled: (placed) =>
      invalidate(
        queryClient,
        ...(placed ? [] : [draftOrderKeys.detail(id)]),
        draftOrderKeys.lists(),
        orderKeys.all,
        overviewKeys.all,
        productKeys.all,
      ),
  });
}

/** Deletes an open draft; it is forgotten and the lists are read again before `onDeleted`. */
export function useDeleteDraftOrder(id: string, onDeleted: () => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    scope: { id: `draft-order-${id}` },
    mutationFn: () => admin.draftOrders.delete(id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: draftOrderKeys.detail(id) });
      await invalidate(queryClient, draftOrderKeys.lists());
      onDeleted();
    },
  });
}

/** The lines of a draft as a change sends them: each catalog line with a price staff set keeps it, custom lines stay as they are. */
export function linesInput(lines: readonly DraftOrderLine[]): DraftLineInput[] {
  return lines.map((line) =>
    line.custom || line.variantId === null
      ? {
          title: line.title,
          unitPrice: line.unitPrice.amount,
          quantity: line.quantity,
          taxClass: line.taxClass,
          requiresShipping: line.requiresShipping,
        }
      : {
          variantId: line.variantId,
          quantity: line.quantity,
          ...(line.priceSet ? { unitPrice: line.unitPrice.amount } : {}),
        },
  );
}
