import { sql, type Kysely } from 'kysely';

/** Retention (decision `retention`): indexes that let the purge loop read only what it deletes. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX provider_events_received_idx ON provider_events (store_id, received_at)`.execute(db);
  await sql`CREATE INDEX sandbox_intents_updated_idx ON sandbox_intents (updated_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sandbox_intents_updated_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS provider_events_received_idx`.execute(db);
}
