/**
 * A product written while a market is created, on PostgreSQL (decision `market-cards`: every
 * product has a card row in every market). The product's transaction is held, by a trigger the test
 * installs, after it priced the product in the markets it could see and before it commits; the
 * market is created meanwhile. The market's transaction could not see the product, and the product's
 * had not seen the market: without the markets' lock, the product had no card row in the new market
 * (no price there, missing from its price-sorted searches). With it, the market waits for the product
 * and prices it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { createTestStore, skipUnlessPostgres, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { ok } from '../test/answers.ts';

let t: TestApp;
before(async () => {
  if (skipUnlessPostgres) return;
  t = await startTestApp();
  // A product's creation is held at its event (after its card prices, before its commit).
  await sql`
    CREATE FUNCTION storefront_test_hold() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(2); RETURN NEW; END $$`.execute(t.db.kysely);
  await sql`
    CREATE TRIGGER storefront_test_hold BEFORE INSERT ON events FOR EACH ROW
    WHEN (NEW.type = 'product.created') EXECUTE FUNCTION storefront_test_hold()`.execute(t.db.kysely);
});
after(async () => {
  if (skipUnlessPostgres) return;
  await sql`DROP FUNCTION storefront_test_hold() CASCADE`.execute(t.db.kysely);
  await t.close();
});

test(
  'a product created while a market is created has its card row in that market',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    const product = ok<{ id: string }>(
      admin.post('/products', {
        title: 'Held lamp',
        status: 'active',
        variants: [{ label: 'One', priceAmount: 1000, onHand: 5 }],
      }),
      201,
    );
    // The product's transaction is at its event: it priced the product in the markets it saw.
    await waitFor(
      async () => {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event = 'PgSleep'`.execute(t.db.kysely);
        return rows[0]!.n > 0;
      },
      10_000,
      'the product held before its commit',
    );
    const market = ok<{ id: string }>(
      admin.post('/markets', { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.5' }),
      201,
    );
    const [{ id: productId }, { id: marketId }] = await Promise.all([product, market]);

    const cards = await t.db.kysely
      .selectFrom('market_card_prices')
      .select(['market_id', 'price_amount'])
      .where('store_id', '=', shop.store.id)
      .where('product_id', '=', productId)
      .execute();
    assert.deepEqual(cards, [{ market_id: marketId, price_amount: 500 }]);
    // And the shop's price-sorted list in that market has it (it walks the market's card rows).
    const { items } = await ok<{ items: { id: string; priceAmount: number | null }[] }>(
      t.storefront(shop).get('/products?sort=price_asc&country=DE'),
    );
    assert.deepEqual(
      items.map((card) => [card.id, card.priceAmount]),
      [[productId, 500]],
    );
  },
);

test(
  'a variant repriced while a market is created: neither waits for the other in a circle (no deadlock)',
  { skip: skipUnlessPostgres },
  async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    const created = await ok<{ id: string; variants: { id: string }[] }>(
      admin.post('/products', {
        title: 'Repriced lamp',
        status: 'active',
        variants: [{ label: 'One', priceAmount: 1000, onHand: 5 }],
      }),
      201,
    );
    // The market's creation is held once it holds the markets lock (at its market row's insert).
    await sql`
      CREATE TRIGGER storefront_test_hold_market BEFORE INSERT ON markets FOR EACH ROW
      EXECUTE FUNCTION storefront_test_hold()`.execute(t.db.kysely);
    try {
      const market = ok<{ id: string }>(
        admin.post('/markets', { name: 'Europe', countries: ['FR'], currency: 'EUR', exchangeRate: '0.5' }),
        201,
      );
      await waitFor(
        async () => {
          const { rows } = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event = 'PgSleep'`.execute(t.db.kysely);
          return rows[0]!.n > 0;
        },
        10_000,
        'the market held inside its lock',
      );
      // The variant's change locks its product and variant rows, which the market's card rows and
      // price history reference: it must wait for the market before it takes them.
      const repriced = ok(admin.patch(`/variants/${created.variants[0]!.id}`, { priceAmount: 800 }));
      const [{ id: marketId }] = await Promise.all([market, repriced]);
      const cards = await t.db.kysely
        .selectFrom('market_card_prices')
        .select(['market_id', 'price_amount'])
        .where('store_id', '=', shop.store.id)
        .where('product_id', '=', created.id)
        .execute();
      assert.deepEqual(cards, [{ market_id: marketId, price_amount: 400 }]);
    } finally {
      await sql`DROP TRIGGER storefront_test_hold_market ON markets`.execute(t.db.kysely);
    }
  },
);
