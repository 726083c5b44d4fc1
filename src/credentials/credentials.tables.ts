import type { CreatedAt } from '../db/tables.ts';

export type CredentialKind = 'publishable_key' | 'staff_session' | 'customer_session';

/** Global: SHA-256 of a secret (publishable key or session token) → the store and row it belongs to. */
export interface CredentialTable {
  hash: string;
  kind: CredentialKind;
  store_id: string;
  subject_id: string;
  created_at: CreatedAt;
}

/** Credentials (global): the hash of a key or token → what it grants. */
export interface CredentialTables {
  credentials: CredentialTable;
}

declare module '../db/tables.ts' {
  interface Database extends CredentialTables {}
}
