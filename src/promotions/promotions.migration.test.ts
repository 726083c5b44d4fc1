/**
 * 0046 (decision `discount-codes-are-promotions`): the discount codes of a store made before it become code promotions with the
 * old endpoints' bodies and the checkout's figures unchanged. On PGlite, and on PostgreSQL when
 * DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type Db } from '../db/database.ts';
import { migrateTo, migrateToLatest } from '../db/migrate.ts';
import { pgliteOptions } from '../db/pglite.ts';
import { ShopDriver, type CheckoutBody } from '../orders/orders.test-support.ts';
import { discountAmount } from '../pricing/totals.ts';
import { ok } from '../test/answers.ts';
import { openBlankPostgres, startTestApp, type TestApp } from '../test/harness.ts';
import type { Promotion } from './promotions.schemas.ts';

let db: Db;
let drop: () => Promise<void> = () => Promise.resolve();
let t: TestApp;

before(async () => {
  const blank = await openBlankPostgres();
  if (blank) {
    db = await openDatabase({ databaseUrl: blank.url, dataDir: '', poolSize: 4 });
    drop = () => blank.drop();
  } else {
    db = await openDatabase({
      databaseUrl: null,
      dataDir: '',
      pglite: await PGlite.create({ ...pgliteOptions }),
    });
  }
  await migrateTo(db.kysely as Kysely<unknown>, '0045_price_function');
  t = await startTestApp({ db });
});
after(async () => {
  await t.close();
  await db.close();
  await drop();
});

interface Order {
  subtotal: { amount: number };
  discount: { amount: number };
  tax: { amount: number };
  shipping: { amount: number };
  total: { amount: number };
}

const figures = (order: Order) => [
  order.subtotal.amount,
  order.discount.amount,
  order.tax.amount,
  order.shipping.amount,
  order.total.amount,
];

describe('0046: discount codes become code promotions', () => {
  test('the old list answers the same bodies, and checkouts with a percent and a fixed code charge the same', async () => {
    const shop = await ShopDriver.open(t);
    const admin = t.admin(shop.shop);
    // The codes as the old endpoint stored them (upper case; created before 0046).
    await sql`
      INSERT INTO discounts (store_id, id, code, kind, value, starts_at, ends_at, usage_limit, used_count, created_at, updated_at)
      VALUES (${shop.storeId}, '00000000-0000-4000-8000-000000000001', 'SAVE10', 'percent', 10, NULL, NULL, 5, 2,
              '2026-01-01T10:00:00.000Z', '2026-01-01T10:00:00.000Z'),
             (${shop.storeId}, '00000000-0000-4000-8000-000000000002', 'FIVE', 'fixed', 500,
              '2026-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', NULL, 7,
              '2026-01-02T10:00:00.000Z', '2026-01-02T10:00:00.000Z'),
             (${shop.storeId}, '00000000-0000-4000-8000-000000000003', 'GONE', 'percent', 100,
              NULL, '2026-01-05T00:00:00.000Z', NULL, 0,
              '2026-01-03T10:00:00.000Z', '2026-01-03T10:00:00.000Z')`.execute(db.kysely);

    await migrateToLatest(db.kysely);
    // The catalog after the migration (today's code writes today's product columns).
    const variantId = await shop.variant(50, 1999);
    await ok(admin.put('/tax-rates/de', { taxRateBps: 1900, shippingAmount: 495 }));

    // The old endpoint's bodies, as they were: every field of each code.
    const list = await ok<{ items: unknown[]; nextCursor: null }>(admin.get('/discounts'));
    assert.deepEqual(list, {
      items: [
        {
          id: '00000000-0000-4000-8000-000000000001',
          code: 'SAVE10',
          kind: 'percent',
          value: 10,
          startsAt: null,
          endsAt: null,
          usageLimit: 5,
          usedCount: 2,
          createdAt: '2026-01-01T10:00:00.000Z',
        },
        {
          id: '00000000-0000-4000-8000-000000000002',
          code: 'FIVE',
          kind: 'fixed',
          value: 500,
          startsAt: '2026-01-01T00:00:00.000Z',
          endsAt: '2030-01-01T00:00:00.000Z',
          usageLimit: null,
          usedCount: 7,
          createdAt: '2026-01-02T10:00:00.000Z',
        },
        {
          id: '00000000-0000-4000-8000-000000000003',
          code: 'GONE',
          kind: 'percent',
          value: 100,
          startsAt: null,
          endsAt: '2026-01-05T00:00:00.000Z',
          usageLimit: null,
          usedCount: 0,
          createdAt: '2026-01-03T10:00:00.000Z',
        },
      ],
      nextCursor: null,
    });
    const save10 = await ok<Promotion>(admin.get('/promotions/00000000-0000-4000-8000-000000000001'));
    assert.deepEqual(
      [save10.name, save10.code, save10.automatic, save10.conditions, save10.action, save10.combinesWith],
      [
        'SAVE10',
        'SAVE10',
        false,
        {},
        { kind: 'percent', target: 'order', value: 10 },
        { order: false, items: false, shipping: false },
      ],
    );

    // The figures checkout.test.ts holds for these codes since before 0046.
    t.clock.freezeAt(Date.parse('2026-03-01T00:00:00.000Z'));
    const percent = await shop.checkout({
      cartId: await shop.cart([{ variantId, quantity: 3 }]),
      email: 'a@example.com',
      country: 'DE',
      discountCode: 'Save10',
    });
    assert.equal(percent.statusCode, 201, percent.body);
    assert.equal(discountAmount(5997, { kind: 'percent', value: 10 }), 599);
    assert.deepEqual(figures(percent.json<{ order: Order }>().order), [5997, 599, 1026, 495, 6919]);
    const fixed = await shop.checkout({
      cartId: await shop.cart([{ variantId, quantity: 1 }]),
      email: 'a@example.com',
      country: 'DE',
      discountCode: 'five',
    });
    assert.equal(fixed.statusCode, 201, fixed.body);
    // 1999 − 500 = 1499; tax 19 % = 284.81 → 285; + 495 shipping.
    assert.deepEqual(figures(fixed.json<{ order: Order }>().order), [1999, 500, 285, 495, 2279]);
    const expired = await shop.checkout({
      cartId: await shop.cart([{ variantId, quantity: 1 }]),
      email: 'a@example.com',
      country: 'DE',
      discountCode: 'gone',
    });
    assert.equal(expired.json<{ title: string }>().title, 'discount_invalid', 'an ended code stays ended');

    // Uses are counted on the promotions, from the counts the codes had.
    const used = await ok<{ items: { code: string; usedCount: number }[] }>(admin.get('/discounts'));
    assert.deepEqual(
      used.items.map((d) => [d.code, d.usedCount]),
      [
        ['SAVE10', 3],
        ['FIVE', 8],
        ['GONE', 0],
      ],
    );
    const placed = percent.json<CheckoutBody>();
    assert.equal(placed.order.status, 'pending');
  });
});
