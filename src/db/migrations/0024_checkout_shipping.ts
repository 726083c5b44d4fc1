import { sql, type Kysely } from 'kysely';

/**
 * Checkout with shipping (decisions `shipping-zones-and-methods` and `checkout-with-shipping`).
 *
 * - Stores gain `require_shipping_address` (off for every existing store).
 * - Orders keep the shipping and billing addresses, the shipping method as chosen (its name and
 *   delivery estimate; the amount is `shipping_amount`) and the buyer's phone. Personal data, like
 *   the email beside them.
 * - The per-country flat shipping of `tax_rates` becomes a flat method, the country's default
 *   (`shipping_methods.country_default`): a checkout that names no method is charged it, so every
 *   store charges what it charged before. The country's zone is the one that already covers the
 *   whole country, else a new zone named after the country. The column is then dropped: the
 *   method is the one place the amount lives (the legacy tax-rate API reads and writes it there).
 * - A tax rate may name a region (`US-CA`): tax may use the address's region where a rate exists.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE stores ADD COLUMN require_shipping_address boolean NOT NULL DEFAULT false`.execute(
    db,
  );
  await sql`
    ALTER TABLE orders
      ADD COLUMN shipping_address jsonb CHECK (jsonb_typeof(shipping_address) = 'object'),
      ADD COLUMN billing_address jsonb CHECK (jsonb_typeof(billing_address) = 'object'),
      ADD COLUMN shipping_method jsonb CHECK (jsonb_typeof(shipping_method) = 'object'),
      ADD COLUMN phone text`.execute(db);

  await sql`ALTER TABLE shipping_methods ADD COLUMN country_default text CHECK (country_default ~ '^[A-Z]{2}$')`.execute(
    db,
  );
  await sql`
    CREATE UNIQUE INDEX shipping_methods_country_default_idx ON shipping_methods (store_id, country_default)
    WHERE country_default IS NOT NULL`.execute(db);

  const rates = await sql<{ store_id: string; country: string; shipping_amount: string | number }>`
    SELECT store_id, btrim(country) AS country, shipping_amount FROM tax_rates ORDER BY store_id, country`.execute(
    db,
  );
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  for (const rate of rates.rows) {
    const zone = await sql<{ id: string }>`
      SELECT id FROM shipping_zones
      WHERE store_id = ${rate.store_id}
        AND areas @> ${JSON.stringify([{ country: rate.country, regions: [], postalCodePrefixes: [] }])}::jsonb
      ORDER BY created_at, id LIMIT 1`.execute(db);
    let zoneId = zone.rows[0]?.id;
    if (zoneId === undefined) {
      const created = await sql<{ id: string }>`
        INSERT INTO shipping_zones (store_id, name, areas)
        VALUES (${rate.store_id}, ${names.of(rate.country) ?? rate.country},
                ${JSON.stringify([{ country: rate.country, regions: [], postalCodePrefixes: [] }])}::jsonb)
        RETURNING id`.execute(db);
      zoneId = created.rows[0]!.id;
    }
    await sql`
      INSERT INTO shipping_methods (store_id, zone_id, name, kind, amount, active, country_default)
      VALUES (${rate.store_id}, ${zoneId}, 'Standard shipping', 'flat', ${rate.shipping_amount}, true, ${rate.country})`.execute(
      db,
    );
  }
  await sql`ALTER TABLE tax_rates DROP COLUMN shipping_amount`.execute(db);

  await sql`ALTER TABLE tax_rates DROP CONSTRAINT IF EXISTS tax_rates_country_check`.execute(db);
  await sql`ALTER TABLE tax_rates ALTER COLUMN country TYPE text USING btrim(country)`.execute(db);
  await sql`ALTER TABLE tax_rates ADD CONSTRAINT tax_rates_country_check CHECK (country ~ '^[A-Z]{2}(-[A-Z0-9]{1,3})?$')`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tax_rates ADD COLUMN shipping_amount bigint NOT NULL DEFAULT 0`.execute(db);
  await sql`
    UPDATE tax_rates t SET shipping_amount = m.amount
    FROM shipping_methods m
    WHERE m.store_id = t.store_id AND m.country_default = t.country AND m.amount IS NOT NULL`.execute(db);
  await sql`DELETE FROM tax_rates WHERE country LIKE '%-%'`.execute(db);
  await sql`ALTER TABLE tax_rates DROP CONSTRAINT IF EXISTS tax_rates_country_check`.execute(db);
  await sql`ALTER TABLE tax_rates ALTER COLUMN country TYPE char(2)`.execute(db);
  await sql`ALTER TABLE tax_rates ADD CONSTRAINT tax_rates_country_check CHECK (country ~ '^[A-Z]{2}$')`.execute(
    db,
  );
  await sql`DROP INDEX IF EXISTS shipping_methods_country_default_idx`.execute(db);
  await sql`ALTER TABLE shipping_methods DROP COLUMN country_default`.execute(db);
  await sql`
    ALTER TABLE orders
      DROP COLUMN shipping_address, DROP COLUMN billing_address, DROP COLUMN shipping_method, DROP COLUMN phone`.execute(
    db,
  );
  await sql`ALTER TABLE stores DROP COLUMN require_shipping_address`.execute(db);
}
