import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Address } from '@storefront/address';
import type { CreatedAt, NullableTime, UpdatedAt } from '../db/tables.ts';

/** Decision `draft-orders`: a draft is open (staff edit it), invoiced (a pending order waits for its payment) or completed. */
export type DraftOrderStatus = 'open' | 'invoiced' | 'completed';

/** Shipping staff typed on a draft, in place of the store's methods (minor units of the draft's currency). */
export interface CustomShipping {
  title: string;
  amount: number;
}

/** Staff's discount on a draft: `percent` (up to 2 decimals) or an `amount` in minor units, and why. */
export interface DraftDiscount {
  kind: 'percent' | 'amount';
  value: number;
  reason: string;
}

type Jsonb<T> = ColumnType<T, string | null | undefined, string | null>;

export interface DraftOrderTable {
  store_id: string;
  id: Generated<string>;
  status: ColumnType<DraftOrderStatus, DraftOrderStatus | undefined, DraftOrderStatus>;
  /** Always a customer: the one given, else the customer of the email (made as a guest). */
  customer_id: string;
  email: string;
  shipping_address: Jsonb<Address | null>;
  billing_address: Jsonb<Address | null>;
  shipping_method_id: string | null;
  custom_shipping: Jsonb<CustomShipping | null>;
  discount: Jsonb<DraftDiscount | null>;
  note: string | null;
  reserve_until: NullableTime;
  /** The order the draft made (its invoice or completion); null while open. */
  order_id: string | null;
  /** Bumped by every change: an invoice or completion places the version it priced. */
  version: ColumnType<number, number | undefined, number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type DraftOrderRow = Selectable<DraftOrderTable>;

/** A catalog line (`variant_id`, `unit_price` when staff set it) or a custom line (`title`, `unit_price`, …). */
export interface DraftOrderLineTable {
  store_id: string;
  draft_id: string;
  position: number;
  id: Generated<string>;
  variant_id: string | null;
  title: string | null;
  quantity: number;
  unit_price: number | null;
  tax_class: string | null;
  requires_shipping: boolean | null;
}
export type DraftOrderLineRow = Selectable<DraftOrderLineTable>;

/** Table types of draft orders. */
export interface DraftOrderTables {
  draft_orders: DraftOrderTable;
  draft_order_lines: DraftOrderLineTable;
}

declare module '../db/tables.ts' {
  interface Database extends DraftOrderTables {}
}
