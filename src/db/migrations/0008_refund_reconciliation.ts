import { sql, type Kysely } from 'kysely';

/**
 * Refund reconciliation: a partial index that finds a store's refunds still pending (the loop that
 * asks the provider about refunds whose webhook never came), and the sandbox provider's own record
 * of the refunds it made, so that it can answer that question and replay an idempotency key.
 * Like `sandbox_intents` it stands in for an external provider and is global (keyed by ref).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX refunds_pending_idx ON refunds (store_id, created_at) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`
    CREATE TABLE sandbox_refunds (
      ref text PRIMARY KEY,
      intent_ref text NOT NULL REFERENCES sandbox_intents (ref) ON DELETE CASCADE,
      amount bigint NOT NULL CHECK (amount > 0),
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      idempotency_key text UNIQUE,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS sandbox_refunds`.execute(db);
  await sql`DROP INDEX IF EXISTS refunds_pending_idx`.execute(db);
}
