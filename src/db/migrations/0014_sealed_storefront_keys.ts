import { sql, type Kysely } from 'kysely';

/**
 * A publishable key the service itself must hand out again (the demo store's key, which the
 * reference shop at /shop and the /docs "Try it" use after every restart) is kept sealed with the
 * keyring (decision `keyring`), never in plaintext. Every other key stays shown once and kept only hashed: the
 * column is null for them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE storefront_keys ADD COLUMN sealed_key text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE storefront_keys DROP COLUMN IF EXISTS sealed_key`.execute(db);
}
