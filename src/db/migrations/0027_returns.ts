import { sql, type Kysely } from 'kysely';

/**
 * Returns (decision `returns`): units of a shipped order that came back, each line restocked or not, with
 * the refund it started. And the mail outbox learns what a mail is about (`order:<id>`), so an
 * order's timeline shows the mails its buyer was sent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE returns (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      order_id uuid NOT NULL,
      lines jsonb NOT NULL CHECK (jsonb_typeof(lines) = 'array'),
      reason text CHECK (char_length(reason) <= 500),
      refund_amount bigint NOT NULL CHECK (refund_amount >= 0),
      refund_id uuid,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX returns_order_idx ON returns (store_id, order_id, created_at, id)`.execute(db);
  await sql`ALTER TABLE mail_outbox ADD COLUMN about text CHECK (char_length(about) <= 100)`.execute(db);
  await sql`CREATE INDEX mail_outbox_about_idx ON mail_outbox (store_id, about) WHERE about IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS mail_outbox_about_idx`.execute(db);
  await sql`ALTER TABLE mail_outbox DROP COLUMN about`.execute(db);
  await sql`DROP TABLE IF EXISTS returns`.execute(db);
}
