/**
 * Gift cards on the Admin API (docs/gift-cards.md, decisions `gift-card-codes` and
 * `gift-card-ledger`): a page of the list (newest first, 20 a page, `last4` finds the cards whose
 * code ends so), one card with its balance history (its ledger), issuing one (the answer holds its
 * code, the only time it is shown) and changing one (note, expiry, disabled, a balance adjustment
 * with its reason). A change keeps the answer as the card's cached copy and reads the lists again.
 */
import type { RequestBody, SuccessBody } from '@storefront/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { invalidate } from './cache.ts';

export type GiftCard = SuccessBody<'adminListGiftCards'>['items'][number];
export type GiftCardDetail = SuccessBody<'adminGetGiftCard'>;
export type GiftCardLedgerEntry = GiftCardDetail['ledger'][number];
export type IssuedGiftCard = SuccessBody<'adminIssueGiftCard'>;
export type NewGiftCardBody = RequestBody<'adminIssueGiftCard'>;
export type GiftCardPatch = RequestBody<'adminUpdateGiftCard'>;

export const GIFT_CARD_PAGE_SIZE = 20;

export const giftCardKeys = {
  all: ['gift-cards'] as const,
  lists: () => [...giftCardKeys.all, 'list'] as const,
  list: (cursor: string | undefined, last4: string) => [...giftCardKeys.lists(), { cursor, last4 }] as const,
  detail: (id: string) => [...giftCardKeys.all, 'detail', id] as const,
};

/** A page of the list, newest first, perhaps only the cards whose code ends with `last4`. */
export function useGiftCards(cursor: string | undefined, last4: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: giftCardKeys.list(cursor, last4),
    queryFn: ({ signal }) =>
      admin.request('adminListGiftCards', {
        query: {
          limit: GIFT_CARD_PAGE_SIZE,
          ...(cursor ? { cursor } : {}),
          ...(last4 ? { last4 } : {}),
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

/** One card with its ledger, oldest first (read again on every visit: checkouts move its balance). */
export function useGiftCard(id: string) {
  const admin = useAdmin();
  return useQuery({
    queryKey: giftCardKeys.detail(id),
    queryFn: ({ signal }) => admin.request('adminGetGiftCard', { path: { id }, signal }),
    refetchOnMount: 'always',
  });
}

/** Issues a card; `onIssued` gets the answer with the code. The lists are read again. */
export function useIssueGiftCard(onIssued: (card: IssuedGiftCard) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewGiftCardBody) => admin.request('adminIssueGiftCard', { body }),
    onSuccess: async (card) => {
      await invalidate(queryClient, giftCardKeys.lists());
      onIssued(card);
    },
  });
}

/**
 * Changes a card (the fields given; `adjustment` adds to its balance, kept in its ledger with the
 * reason; below zero is 409 `gift_card_balance_too_low`). The answer, with the ledger, becomes the
 * card's cached copy; the lists are read again.
 */
export function useUpdateGiftCard(
  id: string,
  onSaved: (card: GiftCardDetail, change: GiftCardPatch) => void,
) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: GiftCardPatch) => admin.request('adminUpdateGiftCard', { path: { id }, body }),
    onSuccess: async (card, change) => {
      queryClient.setQueryData(giftCardKeys.detail(id), card);
      await invalidate(queryClient, giftCardKeys.lists());
      onSaved(card, change);
    },
  });
}
