/** The catalog's events (one per visible change) and its cacheable reads. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { catalogHelpers } from './catalog.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());
const { product, events } = catalogHelpers(() => t);

describe('catalog events', () => {
  test('each visible change emits exactly one event; invisible changes emit none', async () => {
    const shop = await createTestStore(t);
    const draft = await product(shop, { status: 'draft' });
    assert.deepEqual(await events(shop), [], 'a draft is not visible');

    await t.admin(shop).patch(`/products/${draft.id}`, { status: 'active' });
    await t.admin(shop).patch(`/products/${draft.id}`, { title: 'Renamed' });
    await t.admin(shop).patch(`/products/${draft.id}`, { title: 'Renamed' });
    await t.admin(shop).patch(`/variants/${draft.variants[0]!.id}`, { priceAmount: 999 });
    await t.admin(shop).patch(`/variants/${draft.variants[0]!.id}`, { onHand: 9 });
    await t.admin(shop).patch(`/products/${draft.id}`, { status: 'archived' });
    await t.admin(shop).patch(`/products/${draft.id}`, { title: 'Archived rename' });
    const id = draft.id;
    const variantId = draft.variants[0]!.id;
    assert.deepEqual(await events(shop), [
      { type: 'product.created', data: { productId: id, storeId: shop.store.id } },
      { type: 'product.updated', data: { productId: id, storeId: shop.store.id } },
      { type: 'product.updated', data: { productId: id, storeId: shop.store.id } },
      { type: 'product.updated', data: { productId: id, storeId: shop.store.id } },
      { type: 'inventory.updated', data: { variantId, productId: id, available: 9, storeId: shop.store.id } },
      { type: 'product.deleted', data: { productId: id, reason: 'archived', storeId: shop.store.id } },
    ]);
  });

  test('created active, deleted: created then deleted; a failed change records nothing', async () => {
    const shop = await createTestStore(t);
    const created = await product(shop);
    const bad = await t.admin(shop).patch(`/products/${created.id}`, { image: 'ftp://x' });
    assert.equal(bad.statusCode, 400);
    const lastVariant = await t.admin(shop).post('/products', {
      title: 'x',
      status: 'active',
      variants: [],
    });
    assert.equal(lastVariant.statusCode, 400);
    assert.equal((await t.admin(shop).delete(`/products/${created.id}`)).statusCode, 204);
    assert.deepEqual(
      (await events(shop)).map((e) => e.type),
      ['product.created', 'product.deleted'],
    );
    const draft = await product(shop, { status: 'draft' });
    await t.admin(shop).delete(`/products/${draft.id}`);
    assert.equal((await events(shop)).length, 2, 'deleting a draft is invisible to the storefront');
  });
});

describe('caching', () => {
  test('catalog reads carry a strong ETag and honour If-None-Match', async () => {
    const shop = await createTestStore(t);
    const created = await product(shop);
    for (const url of ['/products', `/products/${created.id}`, '/collections']) {
      const first = await t.storefront(shop).get(url);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[^"]+"$/, url);
      assert.equal(first.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=300');
      assert.equal(first.headers.vary, 'X-Publishable-Key, Authorization, Origin');
      assert.equal((await t.storefront(shop).get(url, { 'if-none-match': etag })).statusCode, 304, url);
    }
    const before = String((await t.storefront(shop).get(`/products/${created.id}`)).headers.etag);
    await t.admin(shop).patch(`/products/${created.id}`, { title: 'Changed' });
    const changed = await t.storefront(shop).get(`/products/${created.id}`, { 'if-none-match': before });
    assert.equal(changed.statusCode, 200, 'a change produces a new ETag');
  });
});
