/**
 * The promotions engine's input and output (decision `promotion-engine`). Every amount is an integer
 * in minor units of the cart's one currency; every percentage is in basis points (1000 = 10 %).
 */

/** A cart line as the engine sees it. */
export interface EngineLine {
  /** The line's id: shares name their line by it. */
  key: string;
  variantId: string;
  productId: string;
  collectionIds: readonly string[];
  unitPrice: number;
  quantity: number;
  /** False for lines no promotion may discount (gift cards); true when absent. */
  discountable?: boolean;
}

export interface EngineBuyer {
  customerGroupIds: readonly string[];
  marketId: string;
  /** The buyer has no order yet (for `firstOrderOnly`). */
  firstOrder: boolean;
}

/**
 * What must hold for a promotion to apply. An absent or empty list sets no condition. `productIds`
 * and `collectionIds` together select the matching lines (a line matches if its product is listed or
 * one of its collections is): at least one must be in the cart, and `minSubtotal` (their amount
 * before discounts) and `minQuantity` (their units) are counted over them, or over every
 * discountable line when neither is given.
 */
export interface PromotionConditions {
  minSubtotal?: number;
  minQuantity?: number;
  productIds?: readonly string[];
  collectionIds?: readonly string[];
  customerGroupIds?: readonly string[];
  marketIds?: readonly string[];
  firstOrderOnly?: boolean;
}

/** Units a buy-X-get-Y counts: of the listed products or collections, or any discountable unit. */
export interface UnitSelector {
  quantity: number;
  productIds?: readonly string[];
  collectionIds?: readonly string[];
}

/**
 * What a promotion takes off. `target: 'order'` acts on every discountable line; `'items'` on the
 * lines the conditions match. An amount on items comes off those lines together, once.
 */
export type PromotionAction =
  | { kind: 'percent'; target: 'order' | 'items'; bps: number }
  | { kind: 'amount'; target: 'order' | 'items'; amount: number }
  | { kind: 'free_shipping' }
  | {
      kind: 'buy_x_get_y';
      buy: UnitSelector;
      /** `bps` off each unit got: 10000 makes it free. */
      get: UnitSelector & { bps: number };
      /** At most this many applications (buy + get) in one order; unlimited when absent. */
      usesPerOrder?: number;
    };

/** Which combination group a promotion is in: what another's `combinesWith` names. */
export type PromotionClass = 'order' | 'items' | 'shipping';

export interface EnginePromotion {
  id: string;
  name: string;
  /** Its code (normalised as `codes` are), or null for a promotion without one. */
  code: string | null;
  /** Applied without a code when it qualifies; otherwise only when its code was entered. */
  automatic: boolean;
  conditions: PromotionConditions;
  action: PromotionAction;
  /** Which classes it may be applied together with; both promotions of a pair must allow the other's. */
  combinesWith: Record<PromotionClass, boolean>;
  /** For ties between automatic promotions: the earlier created first. */
  createdAt: Date;
}

export interface EngineInput {
  lines: readonly EngineLine[];
  /** The shipping that would be charged; 0 or null when nothing ships or no method is chosen. */
  shipping: number | null;
  buyer: EngineBuyer;
  /** The codes entered, normalised, in the order entered (at most `MAX_CODES`). */
  codes: readonly string[];
  /** The candidates: promotions in force and within their limits, automatic or of an entered code. */
  promotions: readonly EnginePromotion[];
}

export interface LineShare {
  key: string;
  amount: number;
}

export interface AppliedPromotion {
  promotionId: string;
  code: string | null;
  /** What it took off in all: its line shares plus `shipping`. */
  amount: number;
  /** Its part of each line it discounted (lines it did not touch are left out), in line order. */
  lineShares: LineShare[];
  /** The shipping it took off. */
  shipping: number;
}

export type NotAppliedReason =
  | 'market'
  | 'customer_group'
  | 'first_order_only'
  | 'no_matching_items'
  | 'minimum_not_met'
  | 'no_shipping'
  | 'nothing_to_discount'
  | 'not_considered'
  | 'not_combinable'
  | 'not_better';

export interface NotApplied {
  promotionId: string;
  code: string | null;
  reason: NotAppliedReason;
}

export interface EngineResult {
  /** In the order applied: items, then order, then shipping. */
  applied: AppliedPromotion[];
  /** Every other candidate, codes first in the order entered, then the automatic ones. */
  notApplied: NotApplied[];
  /** Taken off the lines: Σ of `lines[].discount`. */
  discount: number;
  shippingDiscount: number;
  /** Every line, in the input's order, with all that was taken off it. */
  lines: { key: string; discount: number }[];
  /**
   * The search's work: the candidates it considered, the partial combinations it stepped through,
   * and whether it stopped at its budget (`MAX_WORK`) before it had weighed every allowed set.
   */
  work: { candidates: number; steps: number; exhausted: boolean };
}
