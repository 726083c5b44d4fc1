/**
 * The prior price (decision `prior-price`): during a compare-at sale, cards and details carry the
 * lowest price of the 30 days before the sale began, per market, from the price history the service
 * keeps; never typed by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';
import { ok } from '../../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Card {
  id: string;
  priceAmount: number;
  compareAtAmount: number | null;
  priorPrice?: number;
}
interface Detail extends Card {
  variants: { id: string; priceAmount: number; priorPrice?: number }[];
}

/** Moves the variant's history entries newer than a minute back by `days` (time passing). */
async function ago(variantId: string, days: number): Promise<void> {
  await sql`UPDATE price_history SET recorded_at = recorded_at - make_interval(days => ${days})
    WHERE variant_id = ${variantId}::uuid AND recorded_at > now() - interval '1 minute'`.execute(t.db.kysely);
}

const card = async (shop: TestStore, id: string, country = '') =>
  (
    await ok<{ items: Card[] }>(t.storefront(shop).get(`/products${country ? `?country=${country}` : ''}`))
  ).items.find((c) => c.id === id)!;

describe('prior price', () => {
  test('the lowest price of the 30 days before the sale began, in each market', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const admin = t.admin(shop);
    await ok(
      admin.post('/markets', { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.92' }),
      201,
    );
    const product = await ok<Detail>(
      admin.post('/products', {
        title: 'Lamp',
        status: 'active',
        variants: [{ label: 'Lamp', priceAmount: 3000, onHand: 5 }],
      }),
      201,
    );
    const variant = product.variants[0]!.id;
    await ago(variant, 60); // 30.00 since 60 days ago,
    await ok(admin.patch(`/variants/${variant}`, { priceAmount: 2800 }));
    await ago(variant, 20); // 28.00 since 20 days ago,
    assert.equal((await card(shop, product.id)).priorPrice, undefined, 'no sale, no prior price');

    await ok(admin.patch(`/variants/${variant}`, { priceAmount: 2000, compareAtAmount: 3000 }));
    // a sale from now: 30.00 and 28.00 were asked in the 30 days before it.
    const onSale = await card(shop, product.id);
    assert.deepEqual([onSale.priceAmount, onSale.compareAtAmount, onSale.priorPrice], [2000, 3000, 2800]);
    const detail = await ok<Detail>(t.storefront(shop).get(`/products/${product.id}`));
    assert.deepEqual([detail.priorPrice, detail.variants[0]!.priorPrice], [2800, 2800]);
    // In EUR at 0.92: 27.60, then 25.76; the sale 18.40.
    const inEurope = await card(shop, product.id, 'DE');
    assert.deepEqual([inEurope.priceAmount, inEurope.priorPrice], [1840, 2576]);
    const searched = await ok<{ items: Card[] }>(t.storefront(shop).get('/products?q=lamp&country=DE'));
    assert.equal(searched.items[0]!.priorPrice, 2576);

    // A cut during the sale does not restart it: the prior price still looks before its start.
    await ago(variant, 5);
    await ok(admin.patch(`/variants/${variant}`, { priceAmount: 1800 }));
    assert.equal((await card(shop, product.id)).priorPrice, 2800);

    // The sale over: no prior price.
    await ok(admin.patch(`/variants/${variant}`, { priceAmount: 3000, compareAtAmount: null }));
    assert.equal((await card(shop, product.id)).priorPrice, undefined);
  });

  test('a product on sale from its first day has no prior price to show', async () => {
    const shop = await createTestStore(t, { currency: 'USD' });
    const product = await ok<Detail>(
      t.admin(shop).post('/products', {
        title: 'New',
        status: 'active',
        variants: [{ label: 'New', priceAmount: 1000, compareAtAmount: 1500, onHand: 5 }],
      }),
      201,
    );
    const shown = await card(shop, product.id);
    assert.deepEqual([shown.compareAtAmount, 'priorPrice' in shown], [1500, false]);
  });
});
