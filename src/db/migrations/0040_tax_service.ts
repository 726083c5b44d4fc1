import { sql, type Kysely } from 'kysely';

/**
 * The tax service (decision `tax-service`): at most one per store, the outside service previews and
 * checkouts ask for their tax. Its signing secret is sealed by the keyring (as webhook endpoints'
 * are), bound to the store. A change notifies like the other pricing settings (migration 0034), so
 * the API processes drop the store's cached setting (src/db/settings-cache.ts).
 */
const EVENTS = [
  ['INSERT', 'NEW', 'inserted'],
  ['UPDATE', 'NEW', 'updated'],
  ['DELETE', 'OLD', 'deleted'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tax_services (
      store_id uuid PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
      url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
      active boolean NOT NULL,
      secret_ciphertext text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);
  for (const [event, rows, done] of EVENTS) {
    await sql`
      CREATE TRIGGER ${sql.id(`tax_services_read_${done}`)} AFTER ${sql.raw(event)} ON tax_services
      REFERENCING ${sql.raw(rows)} TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS tax_services`.execute(db);
}
