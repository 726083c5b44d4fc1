import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Address } from '@storefront/address';
import type { CreatedAt, UpdatedAt, NullableTime } from '../db/tables.ts';

export interface CartItem {
  variantId: string;
  quantity: number;
}

export interface CartTable {
  store_id: string;
  id: Generated<string>;
  /** Bumped on every write; the cart's ETag (If-Match on PUT). */
  version: ColumnType<number, number | undefined, number>;
  completed_at: NullableTime;
  /** Where the parcel goes (decision `cart-shipping-and-totals`), checked and normalised; jsonb, written as a JSON string. */
  shipping_address: ColumnType<Address | null, string | null | undefined, string | null>;
  /** The chosen shipping method (decision `cart-shipping-and-totals`), or null. */
  shipping_method_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The discount codes entered (decision `cart-promotions`), upper case, in the order entered, at most 5. */
  discount_codes: ColumnType<string[], string[] | undefined, string[]>;
  /** Decision `gift-card-tender`: the gift cards entered, by id (never the code), in the order entered, at most 5. */
  gift_card_ids: ColumnType<string[], string[] | undefined, string[]>;
  /** Decision `markets`: the country the shopper chose (ISO 3166-1), the market's until an address is given; or null. */
  country: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface CartLineTable {
  store_id: string;
  cart_id: string;
  variant_id: string;
  position: number;
  quantity: number;
}

/** A cart row with its lines, in the order they were added. */
export type CartRow = Selectable<CartTable> & { items: CartItem[] };

/** Server-side carts and their lines. */
export interface CartTables {
  carts: CartTable;
  cart_lines: CartLineTable;
}

declare module '../db/tables.ts' {
  interface Database extends CartTables {}
}
