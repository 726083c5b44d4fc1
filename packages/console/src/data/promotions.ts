/**
 * Promotions on the Admin API (docs/promotions.md, decision `promotions-resource`): what a store
 * takes off an order, with a code or automatically. A page of the list (oldest first, 20 a page,
 * each with its uses so far), one promotion for its form, save and delete. Discount codes are
 * promotions too: a change here reads the Pricing screen's discount codes again.
 */
import type { RequestBody } from '@storefront/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAdmin } from '../session.tsx';
import { FORM_RECORD, useChangeAndRefresh, type ListChangeOptions } from '../ui/queries.tsx';
import { invalidate } from './cache.ts';
import { discountKeys } from './discounts.ts';
import type { Promotion } from './promotion-types.ts';

export type {
  Promotion,
  PromotionAction,
  PromotionActionKind,
  PromotionCombinesWith,
  PromotionConditions,
} from './promotion-types.ts';

export type NewPromotionBody = RequestBody<'adminCreatePromotion'>;
export type PromotionPatch = RequestBody<'adminUpdatePromotion'>;

export const PROMOTION_PAGE_SIZE = 20;

export const promotionKeys = {
  all: ['promotions'] as const,
  lists: () => [...promotionKeys.all, 'list'] as const,
  list: (cursor: string | undefined) => [...promotionKeys.lists(), { cursor }] as const,
  detail: (id: string) => [...promotionKeys.all, 'detail', id] as const,
};

/** A page of the list, oldest first; the page shown stays while the next one is read. */
export function usePromotions(cursor: string | undefined) {
  const admin = useAdmin();
  return useQuery({
    queryKey: promotionKeys.list(cursor),
    queryFn: ({ signal }) =>
      admin.request('adminListPromotions', {
        query: { limit: PROMOTION_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

/** One promotion, for its form (read again on every visit). */
export function usePromotion(id: string | null) {
  const admin = useAdmin();
  return useQuery({
    queryKey: promotionKeys.detail(id ?? ''),
    queryFn: ({ signal }) => admin.request('adminGetPromotion', { path: { id: id! }, signal }),
    enabled: id !== null,
    ...FORM_RECORD,
  });
}

export type PromotionSave = { id: null; body: NewPromotionBody } | { id: string; body: PromotionPatch };

/**
 * Creates a promotion, or changes the one `id` names (the fields given; `conditions`, `action` and
 * `combinesWith` replaced whole). Then the promotions and the discount codes are read again.
 */
export function useSavePromotion(onSaved: (promotion: Promotion) => void) {
  const admin = useAdmin();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (save: PromotionSave) =>
      save.id === null
        ? admin.request('adminCreatePromotion', { body: save.body })
        : admin.request('adminUpdatePromotion', { path: { id: save.id }, body: save.body }),
    onSuccess: async (promotion) => {
      await invalidate(queryClient, promotionKeys.all, discountKeys.all);
      onSaved(promotion);
    },
  });
}

/** Deletes a promotion (orders placed with it keep their figures); the lists are read again. */
export function useDeletePromotion(options: ListChangeOptions<Promotion>) {
  const admin = useAdmin();
  return useChangeAndRefresh({
    change: (promotion: Promotion) => admin.request('adminDeletePromotion', { path: { id: promotion.id } }),
    refresh: [promotionKeys.all, discountKeys.all],
    forget: (promotion) => promotionKeys.detail(promotion.id),
    ...options,
  });
}
