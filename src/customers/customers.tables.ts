import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Address } from '@storefront/address';
import type { CreatedAt, NullableTime, Time, UpdatedAt } from '../db/tables.ts';

/** A buyer of a store, by email: a guest until a sign-in code proves the email (`verified_at`). */
export interface CustomerTable {
  store_id: string;
  id: Generated<string>;
  /** Lower case; unique in the store. */
  email: string;
  name: ColumnType<string | null, string | null | undefined, string | null>;
  phone: ColumnType<string | null, string | null | undefined, string | null>;
  accepts_marketing: ColumnType<boolean, boolean | undefined, boolean>;
  verified_at: NullableTime;
  default_address_id: ColumnType<string | null, string | null | undefined, string | null>;
  last_order_at: NullableTime;
  /** Generated: the folded name and email the admin search reads (0033). */
  search_text: ColumnType<string, never, never>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type CustomerRow = Selectable<CustomerTable>;

export interface CustomerAddressTable {
  store_id: string;
  id: Generated<string>;
  customer_id: string;
  address: ColumnType<Address, string, string>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type CustomerAddressRow = Selectable<CustomerAddressTable>;

export interface CustomerSessionTable {
  store_id: string;
  id: Generated<string>;
  customer_id: string;
  expires_at: Time;
  last_used_at: ColumnType<Date, Date | string | undefined, Date | string>;
  revoked_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}
export type CustomerSessionRow = Selectable<CustomerSessionTable>;

/** One-time sign-in codes, bound to an HMAC of the email and of the asking client (never either). */
export interface CustomerSignInCodeTable {
  store_id: string;
  id: Generated<string>;
  email_hash: string;
  client_hash: string;
  code_hash: string;
  expires_at: Time;
  attempts: Generated<number>;
  used_at: ColumnType<Date | null, never, Date | string | null>;
  voided_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}

export type PrivacyAction = 'export' | 'erase';

/** Who exported or erased whom, and when (kept after the customer is erased: it holds only ids). */
export interface PrivacyLogTable {
  store_id: string;
  id: Generated<string>;
  action: PrivacyAction;
  customer_id: string;
  actor: 'staff' | 'customer';
  staff_id: string | null;
  staff_email: string | null;
  created_at: CreatedAt;
}
export type PrivacyLogRow = Selectable<PrivacyLogTable>;

/** A store's group of customers (decision `customer-groups`): a name unique in the store, whatever its case. */
export interface CustomerGroupTable {
  store_id: string;
  id: Generated<string>;
  name: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type CustomerGroupRow = Selectable<CustomerGroupTable>;

/** A customer in a group (both cascade: a customer or a group that goes takes the membership). */
export interface CustomerGroupMemberTable {
  store_id: string;
  customer_id: string;
  group_id: string;
}

/** Customers, their addresses, sessions, sign-in codes and groups, and the privacy log. */
export interface CustomerTables {
  customers: CustomerTable;
  customer_addresses: CustomerAddressTable;
  customer_sessions: CustomerSessionTable;
  customer_sign_in_codes: CustomerSignInCodeTable;
  privacy_log: PrivacyLogTable;
  customer_groups: CustomerGroupTable;
  customer_group_members: CustomerGroupMemberTable;
}

declare module '../db/tables.ts' {
  interface Database extends CustomerTables {}
}
