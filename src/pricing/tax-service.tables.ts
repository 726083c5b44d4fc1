import type { Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt } from '../db/tables.ts';

/** A store's tax service (decision `tax-service`): at most one per store. */
export interface TaxServiceTable {
  store_id: string;
  /** https URL the quotes are posted to (checked like a webhook URL). */
  url: string;
  /** An inactive service is kept but not asked: the built-in rates apply. */
  active: boolean;
  /** The signing secret sealed by the keyring, bound to the store (tax-service.settings.ts); never returned. */
  secret_ciphertext: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}
export type TaxServiceRow = Selectable<TaxServiceTable>;

/** Table types of the tax service. */
export interface TaxServiceTables {
  tax_services: TaxServiceTable;
}

declare module '../db/tables.ts' {
  interface Database extends TaxServiceTables {}
}
