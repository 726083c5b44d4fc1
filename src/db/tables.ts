import type { CatalogTables } from '../catalog/catalog.tables.ts';
import type { ContentTables } from '../content/content.tables.ts';
import type { EmailIdentityTables } from '../email/email.tables.ts';
import type { OrderTables } from '../orders/orders.tables.ts';
import type { WebhookTables } from '../webhooks/webhooks.tables.ts';
import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * Database table types. Column names are snake_case; mappers in each feature turn rows into
 * wire shapes, so snake_case never reaches an API response.
 *
 * Tenant tables have composite primary keys (store_id, id) and every index leads with store_id.
 * Global tables: stores, credentials (hash → store lookup for keys and sessions), platform_secrets.
 */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface StoreTable {
  id: Generated<string>;
  name: string;
  slug: string;
  currency: string;
  reply_to_email: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type StoreRow = Selectable<StoreTable>;

export type StaffRole = 'owner' | 'admin' | 'staff';

export interface StaffMemberTable {
  store_id: string;
  id: Generated<string>;
  email: string;
  role: StaffRole;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type StaffMemberRow = Selectable<StaffMemberTable>;

export interface StaffSessionTable {
  store_id: string;
  id: Generated<string>;
  staff_id: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  last_used_at: ColumnType<Date, Date | string | undefined, Date | string>;
  revoked_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}

export interface StorefrontKeyTable {
  store_id: string;
  id: Generated<string>;
  label: string;
  key_prefix: string;
  allowed_origins: Json<string[]>;
  /** Per-key rate-limit overrides, requests per window; null means the configured default. */
  rate_limit_read: number | null;
  rate_limit_write: number | null;
  revoked_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type StorefrontKeyRow = Selectable<StorefrontKeyTable>;

export type CredentialKind = 'publishable_key' | 'staff_session';

/** Global: SHA-256 of a secret (publishable key or session token) → the store and row it belongs to. */
export interface CredentialTable {
  hash: string;
  kind: CredentialKind;
  store_id: string;
  subject_id: string;
  created_at: CreatedAt;
}

export interface EventTable {
  store_id: string;
  id: Generated<string>;
  /** Commit-independent tiebreaker for ordering within a store. */
  seq: Generated<number>;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  /** Set when the relay has fanned the event out to delivery rows. */
  dispatched_at: ColumnType<Date | null, never, Date | string | null>;
  /** Lease: a relay that claimed the row owns it until then. */
  locked_until: ColumnType<Date | null, never, Date | string | null>;
  claim_count: Generated<number>;
}

export interface PlatformSecretTable {
  name: string;
  value: string;
  created_at: CreatedAt;
}

export interface SignInCodeTable {
  store_id: string;
  id: Generated<string>;
  staff_id: string;
  /** HMAC of the 6-digit code; the code itself is only ever in the email. */
  code_hash: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  attempts: Generated<number>;
  used_at: ColumnType<Date | null, never, Date | string | null>;
  voided_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}

export type MailTier = 'platform' | 'store';
export type MailStatus = 'pending' | 'sent' | 'failed';

export interface MailOutboxTable {
  store_id: string;
  id: Generated<string>;
  tier: MailTier;
  /** What the mail is (sign_in_code, order_confirmation, …), for inspection. */
  kind: string;
  to_address: string;
  /** Sealed by the keyring when `sealed` (sign-in codes); erased once sent. */
  subject: string;
  text_body: string;
  sealed: Generated<boolean>;
  status: ColumnType<MailStatus, MailStatus | undefined, MailStatus>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  locked_until: ColumnType<Date | null, never, Date | string | null>;
  last_error: ColumnType<string | null, never, string | null>;
  message_id: ColumnType<string | null, never, string | null>;
  sent_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}

export interface Database
  extends CatalogTables, ContentTables, OrderTables, WebhookTables, EmailIdentityTables {
  sign_in_codes: SignInCodeTable;
  mail_outbox: MailOutboxTable;
  stores: StoreTable;
  staff_members: StaffMemberTable;
  staff_sessions: StaffSessionTable;
  storefront_keys: StorefrontKeyTable;
  credentials: CredentialTable;
  events: EventTable;
  platform_secrets: PlatformSecretTable;
}
