import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from '../db/tables.ts';

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
  /** The HTML part (null: text only); sealed and erased like the text. */
  html_body: ColumnType<string | null, string | null | undefined, string | null>;
  sealed: Generated<boolean>;
  status: ColumnType<MailStatus, MailStatus | undefined, MailStatus>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  locked_until: ColumnType<Date | null, never, Date | string | null>;
  last_error: ColumnType<string | null, never, string | null>;
  message_id: ColumnType<string | null, never, string | null>;
  sent_at: ColumnType<Date | null, never, Date | string | null>;
  /** What the mail is about (`order:<id>`), for that thing's history; null for the rest. */
  about: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

/** The mail outbox. */
export interface MailTables {
  mail_outbox: MailOutboxTable;
}

declare module '../db/tables.ts' {
  interface Database extends MailTables {}
}
