/**
 * `GET /admin/v1/variants?sku=&id=`: the store's variants named by SKU (exactly) or id, with their
 * products' titles, archived ones too, and never another store's; bad input is a 400.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../../test/harness.ts';
import { ok } from '../../test/answers.ts';

let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

interface Found {
  items: {
    id: string;
    productId: string;
    productTitle: string;
    label: string;
    sku: string | null;
    archived: boolean;
  }[];
}

describe('variants found by SKU or id', () => {
  test('exact SKUs and ids, each once, archived ones too; another store’s never', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const admin = t.admin(shop);
    const shirt = await ok<{ id: string; variants: { id: string; sku: string | null }[] }>(
      admin.post('/products', {
        title: 'Shirt',
        status: 'active',
        variants: [
          { label: 'S', sku: 'SHIRT-S', priceAmount: 2000, onHand: 1 },
          { label: 'M', sku: 'SHIRT-M', priceAmount: 2000, onHand: 1 },
          { label: 'L', priceAmount: 2000, onHand: 1 },
        ],
      }),
      201,
    );
    await ok(
      t.admin(other).post('/products', {
        title: 'Theirs',
        status: 'active',
        variants: [{ label: 'One', sku: 'SHIRT-L', priceAmount: 100, onHand: 1 }],
      }),
      201,
    );
    const [s, m, l] = [shirt.variants[0]!, shirt.variants[1]!, shirt.variants[2]!];
    await ok(admin.patch(`/variants/${m.id}`, { archived: true }));

    const found = await ok<Found>(
      admin.get(
        `/variants?sku=SHIRT-S&sku=SHIRT-M&sku=shirt-s&sku=SHIRT-L&sku=SHIRT-S&id=${l.id}&id=${s.id}`,
      ),
    );
    assert.deepEqual(
      found.items.map((v) => [v.id, v.productId, v.productTitle, v.label, v.sku, v.archived]),
      [
        [s.id, shirt.id, 'Shirt', 'S', 'SHIRT-S', false],
        [m.id, shirt.id, 'Shirt', 'M', 'SHIRT-M', true],
        [l.id, shirt.id, 'Shirt', 'L', null, false],
      ],
    );
    // Nothing asked, nothing found; an unknown id or SKU is simply not there.
    assert.deepEqual(await ok<Found>(admin.get('/variants')), { items: [] });
    assert.deepEqual(await ok<Found>(admin.get(`/variants?id=${randomUUID()}&sku=NOPE`)), { items: [] });
  });

  test('an id that is no UUID, or more than 100 SKUs, is a 400 at its parameter', async () => {
    const shop = await createTestStore(t);
    const admin = t.admin(shop);
    const bad = await admin.get('/variants?id=not-a-uuid');
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.body, /id/);
    const many = Array.from({ length: 101 }, (_, i) => `sku=S${i}`).join('&');
    assert.equal((await admin.get(`/variants?${many}`)).statusCode, 400);
  });
});
