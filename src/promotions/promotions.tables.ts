import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, NullableTime, UpdatedAt } from '../db/tables.ts';

/**
 * What must hold for a promotion to apply, as stored: the engine's shape (amounts in minor units of
 * the store's currency). A condition not set is absent, so `{}` sets none.
 */
export interface StoredConditions {
  minSubtotal?: number;
  minQuantity?: number;
  productIds?: string[];
  collectionIds?: string[];
  customerGroupIds?: string[];
  marketIds?: string[];
  firstOrderOnly?: boolean;
}

export interface StoredUnits {
  quantity: number;
  productIds?: string[];
  collectionIds?: string[];
}

/** What a promotion takes off, as stored: the engine's shape, percentages in basis points. */
export type StoredAction =
  | { kind: 'percent'; target: 'order' | 'items'; bps: number }
  | { kind: 'amount'; target: 'order' | 'items'; amount: number }
  | { kind: 'free_shipping' }
  | { kind: 'buy_x_get_y'; buy: StoredUnits; get: StoredUnits & { bps: number } };

export interface CombinesWith {
  order: boolean;
  items: boolean;
  shipping: boolean;
}

type Json<T> = ColumnType<T, string, string>;

export interface PromotionTable {
  store_id: string;
  id: Generated<string>;
  name: string;
  /** Upper case; null for an automatic promotion. */
  code: string | null;
  automatic: boolean;
  conditions: Json<StoredConditions>;
  action: Json<StoredAction>;
  combines_with: Json<CombinesWith>;
  starts_at: NullableTime;
  ends_at: NullableTime;
  usage_limit: number | null;
  per_customer_limit: number | null;
  used_count: Generated<number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type PromotionRow = Selectable<PromotionTable>;

/** What a write sets of a promotion (JSON columns as text). */
export interface PromotionFields {
  name: string;
  code: string | null;
  automatic: boolean;
  conditions: string;
  action: string;
  combines_with: string;
  starts_at: string | null;
  ends_at: string | null;
  usage_limit: number | null;
  per_customer_limit: number | null;
}

/** Table types of promotions (discount codes are code promotions). */
export interface PromotionsTables {
  promotions: PromotionTable;
}

declare module '../db/tables.ts' {
  interface Database extends PromotionsTables {}
}
