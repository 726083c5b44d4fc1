import type { CreatedAt } from '../db/tables.ts';

export interface PlatformSecretTable {
  name: string;
  value: string;
  created_at: CreatedAt;
}

/** Platform secrets (global): the root generated when SECRET_KEY is unset. */
export interface SecretTables {
  platform_secrets: PlatformSecretTable;
}

declare module '../db/tables.ts' {
  interface Database extends SecretTables {}
}
