/** Builders for the promotions engine's tests: lines, promotions and inputs with plain defaults. */
import type {
  EngineInput,
  EngineLine,
  EnginePromotion,
  PromotionAction,
  PromotionClass,
} from './engine.types.ts';

export const ALL: Record<PromotionClass, boolean> = { order: true, items: true, shipping: true };
export const NONE: Record<PromotionClass, boolean> = { order: false, items: false, shipping: false };

export function line(
  key: string,
  productId: string,
  unitPrice: number,
  quantity = 1,
  more: Partial<EngineLine> = {},
): EngineLine {
  return { key, variantId: `v-${key}`, productId, collectionIds: [], unitPrice, quantity, ...more };
}

let created = 0;

/** An automatic promotion, combining with nothing, created after the ones before it. */
export function promotion(
  id: string,
  action: PromotionAction,
  more: Partial<EnginePromotion> = {},
): EnginePromotion {
  created += 1;
  return {
    id,
    name: id,
    code: null,
    automatic: true,
    conditions: {},
    action,
    combinesWith: NONE,
    createdAt: new Date(Date.UTC(2026, 0, 1) + created * 1000),
    ...more,
  };
}

export const percentOff = (bps: number, target: 'order' | 'items' = 'order'): PromotionAction => ({
  kind: 'percent',
  target,
  bps,
});
export const amountOff = (amount: number, target: 'order' | 'items' = 'order'): PromotionAction => ({
  kind: 'amount',
  target,
  amount,
});
export const freeShipping: PromotionAction = { kind: 'free_shipping' };

export function input(
  lines: EngineLine[],
  promotions: EnginePromotion[],
  more: Partial<EngineInput> = {},
): EngineInput {
  return {
    lines,
    shipping: null,
    buyer: { customerGroupIds: [], marketId: 'us', firstOrder: false },
    codes: promotions.flatMap((each) => (each.code !== null && !each.automatic ? [each.code] : [])),
    promotions,
    ...more,
  };
}

/** Every subset of `items` (2^n of them), the empty one first. */
export function subsets<T>(items: readonly T[]): T[][] {
  const all: T[][] = [];
  for (let mask = 0; mask < 1 << items.length; mask += 1)
    all.push(items.filter((_, bit) => mask & (1 << bit)));
  return all;
}
