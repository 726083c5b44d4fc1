import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql, type Kysely } from 'kysely';
import { openBlankPostgres, skipUnlessPostgres } from '../test/harness.ts';
import { openDatabase, type Db } from './database.ts';
import { pgliteOptions } from './pglite.ts';
import { migrateTo, migrateToLatest, migrationNames } from './migrate.ts';

/** Tables that are global by design (no store scope): the store itself, the hash lookup, secrets. */
const GLOBAL_TABLES = new Set([
  'sandbox_intents',
  'sandbox_refunds',
  'sandbox_webhooks',
  'stores',
  'credentials',
  'platform_secrets',
  'sending_domain_claims',
  'kysely_migration',
  'kysely_migration_lock',
]);

async function checkSchema(db: Kysely<unknown>): Promise<void> {
  const applied = await migrateToLatest(db);
  assert.deepEqual(applied, migrationNames(), 'every migration applies on an empty database');
  assert.deepEqual(await migrateToLatest(db), [], 'a second run applies nothing');

  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`.execute(
    db,
  );
  const names = tables.rows.map((r) => r.table_name);
  for (const table of [
    'stores',
    'staff_members',
    'staff_sessions',
    'storefront_keys',
    'events',
    'credentials',
  ]) {
    assert.ok(names.includes(table), `table ${table} exists`);
  }

  const columns = await sql<{ table_name: string; column_name: string; data_type: string }>`
    SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public'`.execute(
    db,
  );
  for (const table of names.filter((name) => !GLOBAL_TABLES.has(name))) {
    assert.ok(
      columns.rows.some((c) => c.table_name === table && c.column_name === 'store_id'),
      `tenant table ${table} has store_id`,
    );
  }
  for (const column of columns.rows) {
    if (/_at$/.test(column.column_name)) {
      assert.equal(
        column.data_type,
        'timestamp with time zone',
        `${column.table_name}.${column.column_name} is timestamptz`,
      );
    }
    if (/amount$/i.test(column.column_name)) {
      assert.equal(column.data_type, 'bigint', `${column.table_name}.${column.column_name} is bigint`);
    }
  }

  // Every index (primary keys and unique constraints included) of a tenant table leads with store_id.
  const indexes = await sql<{ table_name: string; index_name: string; first_column: string }>`
    SELECT t.relname AS table_name, i.relname AS index_name, a.attname AS first_column
    FROM pg_index x
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
    WHERE n.nspname = 'public'`.execute(db);
  for (const index of indexes.rows) {
    if (GLOBAL_TABLES.has(index.table_name)) continue;
    assert.equal(
      index.first_column,
      'store_id',
      `index ${index.index_name} on ${index.table_name} leads with store_id`,
    );
  }
}

describe('migrations', () => {
  test('apply on an empty embedded database (PGlite)', async () => {
    const pglite = await PGlite.create({ ...pgliteOptions });
    const db = await openDatabase({ databaseUrl: null, dataDir: '', pglite });
    try {
      await checkSchema(db.kysely as Kysely<unknown>);
    } finally {
      await db.close();
    }
  });

  // docs/operations.md, "Upgrades": going back to older code after a migration needs the backup.
  test('an older version refuses a database migrated by a newer one', async () => {
    const pglite = await PGlite.create({ ...pgliteOptions });
    const db = await openDatabase({ databaseUrl: null, dataDir: '', pglite });
    try {
      await migrateToLatest(db.kysely);
      await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_newer_version', now())`.execute(
        db.kysely,
      );
      await assert.rejects(() => migrateToLatest(db.kysely), /9999_from_a_newer_version/);
    } finally {
      await db.close();
    }
  });

  // Without DATABASE_URL there is no server to test against: reported as skipped on the embedded
  // run; .ci/run runs the suite on PostgreSQL too, where it runs.
  test('apply on an empty PostgreSQL database', { skip: skipUnlessPostgres }, async () => {
    const blank = await openBlankPostgres();
    if (!blank) throw new Error('DATABASE_URL is set, so a blank PostgreSQL database must open');
    let db: Db | null = null;
    try {
      db = await openDatabase({ databaseUrl: blank.url, dataDir: '', poolSize: 2 });
      await checkSchema(db.kysely as Kysely<unknown>);
    } finally {
      await db?.close();
      await blank.drop();
    }
  });
});

describe('0024: the per-country flat shipping of tax rates becomes each country’s default method', () => {
  test('charges stay what they were; a zone that covers the country already takes the method', async () => {
    const pglite = await PGlite.create({ ...pgliteOptions });
    const db = await openDatabase({ databaseUrl: null, dataDir: '', pglite });
    const k = db.kysely as Kysely<unknown>;
    try {
      await migrateTo(k, '0023_cart_method_and_code');
      const store = '6f1c2f7e-0000-4000-8000-000000000001';
      await sql`INSERT INTO stores (id, name, slug, currency) VALUES (${store}, 'Old shop', 'old-shop', 'EUR')`.execute(
        k,
      );
      await sql`
        INSERT INTO shipping_zones (store_id, name, areas)
        VALUES (${store}, 'Home', ${JSON.stringify([{ country: 'FR', regions: [], postalCodePrefixes: [] }])}::jsonb)`.execute(
        k,
      );
      await sql`
        INSERT INTO tax_rates (store_id, country, tax_rate_bps, shipping_amount)
        VALUES (${store}, 'DE', 1900, 495), (${store}, 'FR', 2000, 0)`.execute(k);
      await migrateToLatest(k);

      const methods = await sql<{
        zone: string;
        country_default: string;
        kind: string;
        amount: string | number;
      }>`
        SELECT z.name AS zone, m.country_default, m.kind, m.amount
        FROM shipping_methods m JOIN shipping_zones z ON z.store_id = m.store_id AND z.id = m.zone_id
        ORDER BY m.country_default`.execute(k);
      assert.deepEqual(
        methods.rows.map((row) => [row.zone, row.country_default, row.kind, Number(row.amount)]),
        [
          ['Germany', 'DE', 'flat', 495],
          ['Home', 'FR', 'flat', 0],
        ],
      );
      const rates = await sql<{ country: string; tax_rate_bps: number }>`
        SELECT country, tax_rate_bps FROM tax_rates ORDER BY country`.execute(k);
      assert.deepEqual(
        rates.rows.map((row) => [row.country, row.tax_rate_bps]),
        [
          ['DE', 1900],
          ['FR', 2000],
        ],
      );
      const stores = await sql<{
        require_shipping_address: boolean;
      }>`SELECT require_shipping_address FROM stores`.execute(k);
      assert.equal(
        stores.rows[0]!.require_shipping_address,
        false,
        'an existing store does not require addresses',
      );
    } finally {
      await db.close();
    }
  });
});
