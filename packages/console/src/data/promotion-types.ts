/**
 * A promotion's wire types. No React here: the rule in words (screens/promotions/summary.ts) and
 * its Node test use them; data/promotions.ts re-exports them with the calls.
 */
import type { SuccessBody } from '@storefront/client';

export type Promotion = SuccessBody<'adminGetPromotion'>;
export type PromotionAction = Promotion['action'];
export type PromotionActionKind = PromotionAction['kind'];
export type PromotionConditions = Promotion['conditions'];
export type PromotionCombinesWith = Promotion['combinesWith'];
