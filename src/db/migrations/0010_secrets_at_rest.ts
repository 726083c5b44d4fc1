import { sql, type Kysely } from 'kysely';

/**
 * Secrets at rest (decision `sealed-secrets`):
 * - mail_outbox: `sealed` marks a mail whose subject and body are encrypted by the keyring (a
 *   sign-in code); they are erased once the mail is sent.
 * - webhook_endpoints: an endpoint whose signing secret cannot be decrypted is disabled with the
 *   reason `secret_unreadable`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE mail_outbox ADD COLUMN sealed boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE webhook_endpoints DROP CONSTRAINT IF EXISTS webhook_endpoints_disabled_reason_check`.execute(
    db,
  );
  await sql`
    ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_disabled_reason_check
      CHECK (disabled_reason IN ('manual', 'gone', 'secret_unreadable'))`.execute(db);
  // Sign-in codes queued or sent before this change rest in plaintext: erase their text.
  await sql`
    UPDATE mail_outbox SET subject = '(erased)', text_body = ''
    WHERE kind = 'sign_in_code' AND status <> 'pending'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_endpoints DROP CONSTRAINT IF EXISTS webhook_endpoints_disabled_reason_check`.execute(
    db,
  );
  await sql`
    ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_disabled_reason_check
      CHECK (disabled_reason IN ('manual', 'gone'))`.execute(db);
  await sql`ALTER TABLE mail_outbox DROP COLUMN IF EXISTS sealed`.execute(db);
}
