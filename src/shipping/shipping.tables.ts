import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, Json, UpdatedAt } from '../db/tables.ts';

/** One area of a zone: a country (`*`: the rest of the world), optionally narrowed. */
export interface ZoneArea {
  country: string;
  /** ISO 3166-2 codes of the country's regions; empty: the whole country. */
  regions: string[];
  /** Postal-code prefixes (upper case); empty: the whole country (or its regions). */
  postalCodePrefixes: string[];
}

export interface ShippingZoneTable {
  store_id: string;
  id: Generated<string>;
  name: string;
  /** jsonb: read parsed, written as a JSON string. */
  areas: Json<ZoneArea[]>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type ShippingZoneRow = Selectable<ShippingZoneTable>;

export type ShippingMethodKind = 'flat' | 'weight' | 'free_over' | 'pickup';

/** A weight tier: parcels up to `upToGrams` (inclusive) cost `amount`. */
export interface WeightTier {
  upToGrams: number;
  amount: number;
}

export interface ShippingMethodTable {
  store_id: string;
  id: Generated<string>;
  zone_id: string;
  name: string;
  kind: ShippingMethodKind;
  amount: number | null;
  free_over_amount: number | null;
  /** jsonb, for `weight` methods only. */
  weight_tiers: ColumnType<WeightTier[] | null, string | null, string | null>;
  min_delivery_days: number | null;
  max_delivery_days: number | null;
  active: boolean;
  /**
   * The country whose checkouts without a chosen method are charged this one (decision `the-method-of-a-checkout-that-names-none`): the flat
   * method migrated from, and written by, the legacy per-country `shippingAmount` of tax rates.
   */
  country_default: ColumnType<string | null, string | null | undefined, string | null>;
  /** Decision `tax-classes`: the class its shipping is taxed at; null: it follows the goods. */
  tax_class: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type ShippingMethodRow = Selectable<ShippingMethodTable>;

/** Table types of shipping zones and their methods (decision `shipping-zones-and-methods`). */
export interface ShippingTables {
  shipping_zones: ShippingZoneTable;
  shipping_methods: ShippingMethodTable;
}

declare module '../db/tables.ts' {
  interface Database extends ShippingTables {}
}
