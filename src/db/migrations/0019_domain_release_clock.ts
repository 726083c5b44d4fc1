import { sql, type Kysely } from 'kysely';

/**
 * The release clock of sending domains (decision `released-domain-deleted`, review item B9). A domain was released when it
 * had been `failed` for DOMAIN_RELEASE_AFTER, measured from `failed_at`; but verify-now clears
 * `failed_at` (a new window) and deleting and registering the domain again starts afresh, so a
 * store could hold a name it never proves for ever. The clock is now its own column:
 *
 * - `sending_domains.unproven_since`: when the domain became unproven (its registration, or the
 *   first check that found a verified domain's records missing). Only a successful verification
 *   clears it; verify-now never touches it. Set exactly while the domain is not verified.
 * - `sending_domain_clocks`: the clock of a name the store no longer holds (it deleted the domain
 *   or the domain was released), so that registering the same name again continues it.
 *
 * Existing rows: a pending domain's clock starts at its current window (the best that is known: no
 * domain is released sooner than its owner could expect), a failed one's at `failed_at` (released
 * when it would have been before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sending_domains ADD COLUMN unproven_since timestamptz(3)`.execute(db);
  await sql`
    UPDATE sending_domains
    SET unproven_since = CASE status WHEN 'pending' THEN window_started_at WHEN 'failed' THEN failed_at END`.execute(
    db,
  );
  await sql`
    ALTER TABLE sending_domains
    ADD CONSTRAINT sending_domains_unproven_since CHECK ((status = 'verified') = (unproven_since IS NULL))`.execute(
    db,
  );

  await sql`
    CREATE TABLE sending_domain_clocks (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      domain text NOT NULL,
      unproven_since timestamptz(3) NOT NULL,
      PRIMARY KEY (store_id, domain)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS sending_domain_clocks`.execute(db);
  await sql`ALTER TABLE sending_domains DROP COLUMN IF EXISTS unproven_since`.execute(db);
}
