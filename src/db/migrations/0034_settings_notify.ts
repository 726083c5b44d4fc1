import { sql, type Kysely } from 'kysely';

/**
 * Tax rates and shipping zones and methods notify like the catalog (decisions `read-cache-invalidation` and `settings-cache`):
 * a committed change bumps its store's catalog version and notifies `storefront_read`, so the API
 * processes drop the settings they priced carts and checkouts with (src/db/settings-cache.ts).
 */
const TABLES = ['tax_rates', 'shipping_zones', 'shipping_methods'] as const;
/** A trigger with transition tables covers one event: the event, its rows, the trigger's suffix. */
const EVENTS = [
  ['INSERT', 'NEW', 'inserted'],
  ['UPDATE', 'NEW', 'updated'],
  ['DELETE', 'OLD', 'deleted'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    for (const [event, rows, done] of EVENTS) {
      await sql`
        CREATE TRIGGER ${sql.id(`${table}_read_${done}`)} AFTER ${sql.raw(event)} ON ${sql.table(table)}
        REFERENCING ${sql.raw(rows)} TABLE AS changed_rows
        FOR EACH STATEMENT EXECUTE FUNCTION storefront_read_changed()`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    for (const [, , done] of EVENTS)
      await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_read_${done}`)} ON ${sql.table(table)}`.execute(db);
  }
}
