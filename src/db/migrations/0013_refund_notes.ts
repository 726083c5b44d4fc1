import { sql, type Kysely } from 'kysely';

/**
 * A staff refund keeps the reason its author typed (`POST /admin/v1/orders/:id/refunds {reason}`)
 * as `note`: free text for staff, beside `reason`, the machine code (`merchant`,
 * `expired_out_of_stock`) the money path branches on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE refunds ADD COLUMN note text CHECK (length(note) BETWEEN 1 AND 500)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE refunds DROP COLUMN IF EXISTS note`.execute(db);
}
