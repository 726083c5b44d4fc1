import type { ColumnType, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt } from '../db/tables.ts';

/** A discount code's kind (discount codes are promotions: src/promotions/discount-codes.ts). */
export type DiscountKind = 'percent' | 'fixed';

export interface TaxRateTable {
  store_id: string;
  /** ISO 3166-1 alpha-2 (`DE`), or an ISO 3166-2 region (`US-CA`) whose rate beats its country's. */
  country: string;
  /** Tax in basis points (1/100 of a percent): 2000 = 20 %. */
  tax_rate_bps: number;
  /** Decision `tax-classes`: the rates of other classes here, by class code; a class without one takes tax_rate_bps. */
  class_rates: ColumnType<Record<string, number>, string | undefined, string>;
  /** Decision `shipping-tax`: whether shipping here is untaxed or taxed like the goods it carries. */
  shipping_tax: ColumnType<ShippingTaxKind, ShippingTaxKind | undefined, ShippingTaxKind>;
  updated_at: UpdatedAt;
}
export type TaxRateRow = Selectable<TaxRateTable>;

export type ShippingTaxKind = 'none' | 'follow_goods';

/** A tax class of a store besides `standard`, which every store has and is not stored (decision `tax-classes`). */
export interface TaxClassTable {
  store_id: string;
  code: string;
  name: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type TaxClassRow = Selectable<TaxClassTable>;

/** Table types of per-country tax and flat shipping. */
export interface PricingTables {
  tax_rates: TaxRateTable;
  tax_classes: TaxClassTable;
}

declare module '../db/tables.ts' {
  interface Database extends PricingTables {}
}
