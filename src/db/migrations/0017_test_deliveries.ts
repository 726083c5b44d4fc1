import { sql, type Kysely } from 'kysely';

/**
 * Test deliveries are kept in the deliveries log (`kind = 'test'`), beside real ones. A test is not a
 * domain event: it has no row in `events` (so no fan-out, no replay, no relay claim ever sees it),
 * so its `event_id` is null (the foreign key to `events` is not checked for it) and the envelope id
 * and event type it was sent with are its own columns. It is recorded after it was sent, with its
 * one attempt's outcome, and is never pending: the relay only claims pending rows.
 *
 * Cheap on a large table: dropping NOT NULL and adding nullable columns change only the catalog,
 * and the constraint is validated without blocking writes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_deliveries ALTER COLUMN event_id DROP NOT NULL`.execute(db);
  await sql`
    ALTER TABLE webhook_deliveries
      ADD COLUMN test_event_id uuid,
      ADD COLUMN test_event_type text CHECK (length(test_event_type) BETWEEN 1 AND 100)`.execute(db);
  await sql`
    ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_test_check CHECK (
      CASE WHEN kind = 'test'
        THEN event_id IS NULL AND test_event_id IS NOT NULL AND test_event_type IS NOT NULL AND status <> 'pending'
        ELSE event_id IS NOT NULL AND test_event_id IS NULL AND test_event_type IS NULL
      END) NOT VALID`.execute(db);
  await sql`ALTER TABLE webhook_deliveries VALIDATE CONSTRAINT webhook_deliveries_test_check`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM webhook_deliveries WHERE kind = 'test'`.execute(db);
  await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_test_check`.execute(
    db,
  );
  await sql`
    ALTER TABLE webhook_deliveries DROP COLUMN IF EXISTS test_event_id, DROP COLUMN IF EXISTS test_event_type`.execute(
    db,
  );
  await sql`ALTER TABLE webhook_deliveries ALTER COLUMN event_id SET NOT NULL`.execute(db);
}
