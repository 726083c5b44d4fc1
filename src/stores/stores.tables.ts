import type { Generated, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt } from '../db/tables.ts';

export interface StoreTable {
  id: Generated<string>;
  name: string;
  slug: string;
  currency: string;
  reply_to_email: string | null;
  /** Decision `checkout-with-shipping`: a checkout with a line that requires shipping must give an address and a method. */
  require_shipping_address: Generated<boolean>;
  /** Decision `prices-include-tax`: prices are entered and charged gross, the tax a part of them. */
  prices_include_tax: Generated<boolean>;
  /** Decision `markets`: the default market's name (its row is made from it with the store). */
  default_market_name: Generated<string>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type StoreRow = Selectable<StoreTable>;

/** The stores (global: the tenants themselves). */
export interface StoreTables {
  stores: StoreTable;
}

declare module '../db/tables.ts' {
  interface Database extends StoreTables {}
}
