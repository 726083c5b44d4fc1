import { sql, type Kysely } from 'kysely';

/**
 * The sandbox provider's webhooks become durable, as a real provider's are (decision
 * `sandbox-webhook-outbox`, docs/decisions/payments-and-refunds.md): each webhook is a row of
 * `sandbox_webhooks`, written in the transaction that records the payment's (or refund's) outcome,
 * and delivered by whichever process gets to it first. `next_attempt_at` is when it is due (a lease
 * while an attempt runs); NULL once delivered or given up. An intent notes the test card that
 * confirmed it, so a retried confirmation with the same card is answered as the first one was; a
 * delayed payment's success is found by a partial index of processing intents.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sandbox_webhooks (
      id text PRIMARY KEY,
      intent_ref text NOT NULL REFERENCES sandbox_intents (ref) ON DELETE CASCADE,
      body text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz(3),
      delivered_at timestamptz(3),
      last_error text,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE INDEX sandbox_webhooks_due_idx ON sandbox_webhooks (next_attempt_at)
    WHERE next_attempt_at IS NOT NULL`.execute(db);
  await sql`CREATE INDEX sandbox_webhooks_intent_idx ON sandbox_webhooks (intent_ref)`.execute(db);
  await sql`
    CREATE INDEX sandbox_webhooks_done_idx ON sandbox_webhooks (created_at)
    WHERE next_attempt_at IS NULL`.execute(db);
  await sql`
    ALTER TABLE sandbox_intents
      ADD COLUMN confirmed_method text`.execute(db);
  await sql`
    CREATE INDEX sandbox_intents_processing_idx ON sandbox_intents (updated_at)
    WHERE status = 'processing'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sandbox_intents_processing_idx`.execute(db);
  await sql`ALTER TABLE sandbox_intents DROP COLUMN IF EXISTS confirmed_method`.execute(db);
  await sql`DROP TABLE IF EXISTS sandbox_webhooks`.execute(db);
}
