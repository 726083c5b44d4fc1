import { sql, type Kysely } from 'kysely';

/**
 * What shipping needs of a variant (decision `shipping-zones-and-methods`): its weight in grams, for weight-based methods
 * (optional: a variant without one weighs nothing to them), and whether it is shipped at all (a
 * gift card or a download is not; existing variants are).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE variants
      ADD COLUMN weight_grams integer CHECK (weight_grams BETWEEN 0 AND 10000000),
      ADD COLUMN requires_shipping boolean NOT NULL DEFAULT true`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE variants DROP COLUMN weight_grams, DROP COLUMN requires_shipping`.execute(db);
}
