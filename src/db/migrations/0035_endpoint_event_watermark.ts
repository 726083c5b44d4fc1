import { sql, type Kysely } from 'kysely';

/**
 * An endpoint receives only the events recorded after it was created (decision
 * `events-after-endpoint`, docs/decisions/webhooks.md): at its creation it notes the last event
 * sequence number handed out (`events_after_seq`) and the database's clock, rounded up to the
 * millisecond (`events_after_at`); the fan-out skips an event whose `seq` and `created_at` are both
 * at or before them. Endpoints made before this migration keep NULLs: no bound, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_endpoints
      ADD COLUMN events_after_seq bigint,
      ADD COLUMN events_after_at timestamptz(3),
      ADD CONSTRAINT webhook_endpoints_events_after_check
        CHECK ((events_after_seq IS NULL) = (events_after_at IS NULL))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_endpoints
      DROP CONSTRAINT IF EXISTS webhook_endpoints_events_after_check,
      DROP COLUMN IF EXISTS events_after_seq,
      DROP COLUMN IF EXISTS events_after_at`.execute(db);
}
