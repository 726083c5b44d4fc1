import { sql, type Kysely } from 'kysely';

/**
 * Sign-in codes belong to the client that asked for them (issue #26): `client_hash` is an HMAC of
 * the staff member and the client's address bucket (an IPv4 address, an IPv6 /64), never the
 * address itself. A code is verified only from its client, and a new request voids only its own
 * client's earlier code, so one client can neither void nor use up another's code. Codes pending
 * when this runs get an empty hash, which no client matches: their members ask again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sign_in_codes ADD COLUMN client_hash text NOT NULL DEFAULT ''`.execute(db);
  await sql`ALTER TABLE sign_in_codes ALTER COLUMN client_hash DROP DEFAULT`.execute(db);
  await sql`
    CREATE INDEX sign_in_codes_client_idx ON sign_in_codes (store_id, staff_id, client_hash, created_at)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sign_in_codes_client_idx`.execute(db);
  await sql`ALTER TABLE sign_in_codes DROP COLUMN IF EXISTS client_hash`.execute(db);
}
