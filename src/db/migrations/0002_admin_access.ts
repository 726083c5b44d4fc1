import { sql, type Kysely } from 'kysely';

/** Staff sign-in codes and the mail outbox (mail is queued in the transaction, sent by a worker). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sign_in_codes (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      staff_id uuid NOT NULL,
      code_hash text NOT NULL,
      expires_at timestamptz(3) NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      used_at timestamptz(3),
      voided_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, staff_id) REFERENCES staff_members (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX sign_in_codes_staff_idx ON sign_in_codes (store_id, staff_id, created_at)`.execute(
    db,
  );

  await sql`
    CREATE TABLE mail_outbox (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      tier text NOT NULL CHECK (tier IN ('platform', 'store')),
      kind text NOT NULL,
      to_address text NOT NULL,
      subject text NOT NULL,
      text_body text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
      locked_until timestamptz(3),
      last_error text,
      message_id text,
      sent_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  // Partial: only unsent mail is indexed, so the worker's scan stays small whatever the history.
  await sql`CREATE INDEX mail_outbox_due_idx ON mail_outbox (store_id, next_attempt_at) WHERE status = 'pending'`.execute(
    db,
  );
  await sql`CREATE INDEX mail_outbox_created_idx ON mail_outbox (store_id, created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS mail_outbox`.execute(db);
  await sql`DROP TABLE IF EXISTS sign_in_codes`.execute(db);
}
