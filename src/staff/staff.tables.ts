import type { ColumnType, Generated, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt } from '../db/tables.ts';
import type { StaffRole } from '../http/principals.ts';

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

export interface SignInCodeTable {
  store_id: string;
  id: Generated<string>;
  staff_id: string;
  /** HMAC of the 6-digit code; the code itself is only ever in the email. */
  code_hash: string;
  /** HMAC of the member and the address bucket of the client that asked for the code (0018). */
  client_hash: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  attempts: Generated<number>;
  used_at: ColumnType<Date | null, never, Date | string | null>;
  voided_at: ColumnType<Date | null, never, Date | string | null>;
  created_at: CreatedAt;
}

/** Staff members, their sessions and their one-time sign-in codes. */
export interface StaffTables {
  staff_members: StaffMemberTable;
  staff_sessions: StaffSessionTable;
  sign_in_codes: SignInCodeTable;
}

declare module '../db/tables.ts' {
  interface Database extends StaffTables {}
}
