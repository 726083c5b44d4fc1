/**
 * Two anonymous 500s of issue 42 and the rule that fixes both (decision
 * `canonical-text-parameters`): a number past what the schema allows is 400, never a database error;
 * a UUID in the path is read in lower case, whatever case it came in, before it reaches a handler,
 * the database or the media storage.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

interface Problem {
  title: string;
  errors?: { pointer: string; in?: string }[];
}

let t: TestApp;
let base: string;
let shop: TestStore;
let productId: string;
before(async () => {
  t = await startTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  shop = await createTestStore(t);
  const created = await t.admin(shop).post('/products', {
    title: 'Canonical',
    status: 'active',
    variants: [{ label: 'One', priceAmount: 1500, onHand: 5 }],
  });
  assert.equal(created.statusCode, 201, created.body);
  productId = created.json<{ id: string }>().id;
});
after(() => t.close());

describe('numbers past their maximum are 400 (GET /storefront/v1/products?minPrice=99999999999999999999 was a 500)', () => {
  for (const path of ['/products', '/products/facets']) {
    for (const name of ['minPrice', 'maxPrice']) {
      test(`${path}?${name}=: past 2^53 − 1 is 400 with a pointer; 2^53 − 1 itself is a search`, async () => {
        for (const huge of ['99999999999999999999', '9007199254740992']) {
          const response = await t.storefront(shop).get(`${path}?${name}=${huge}`);
          assert.equal(response.statusCode, 400, response.body);
          const problem = response.json<Problem>();
          assert.equal(problem.title, 'validation_failed');
          assert.deepEqual(
            problem.errors?.map((error) => [error.pointer, error.in]),
            [[`/${name}`, 'query']],
          );
        }
        const largest = await t.storefront(shop).get(`${path}?${name}=9007199254740991`);
        assert.equal(largest.statusCode, 200, largest.body);
        const found =
          path === '/products'
            ? largest.json<{ items: unknown[] }>().items.length
            : largest.json<{ total: number }>().total;
        assert.equal(found, name === 'maxPrice' ? 1 : 0);
      });
    }
  }

  test('a page size past 2^53 − 1 is 400; any size up to it is clamped to 100 (decision `signed-cursors`)', async () => {
    const huge = await t.storefront(shop).get('/products?limit=99999999999999999999');
    assert.equal(huge.statusCode, 400, huge.body);
    const clamped = await t.storefront(shop).get('/products?limit=9007199254740991');
    assert.equal(clamped.statusCode, 200, clamped.body);
  });
});

describe('UUIDs in the path are read in lower case (GET /media/<UPPER-CASE store id>/… was a 500)', () => {
  test('an image is served under its store id in either case; an unknown one in upper case is 404', async () => {
    const form = new FormData();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c53' } })
      .png()
      .toBuffer();
    form.append('file', new Blob([png]), 'dot.png');
    const uploaded = await fetch(`${base}/admin/v1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.staffToken}` },
      body: form,
    });
    assert.equal(uploaded.status, 201);
    const { url } = (await uploaded.json()) as { url: string };
    const lower = await fetch(`${base}${url}`);
    assert.equal(lower.status, 200);
    const upperUrl = url.replace(shop.store.id, shop.store.id.toUpperCase());
    assert.notEqual(upperUrl, url);
    const upper = await fetch(`${base}${upperUrl}`);
    assert.equal(upper.status, 200);
    assert.deepEqual(Buffer.from(await upper.arrayBuffer()), Buffer.from(await lower.arrayBuffer()));
    const resized = await fetch(`${base}${upperUrl}?w=160`);
    assert.equal(resized.status, 200);
    await resized.arrayBuffer();

    const unknown = await fetch(`${base}/media/${crypto.randomUUID().toUpperCase()}/${'a'.repeat(64)}.png`);
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as Problem).title, 'not_found');
  });

  test('a product by its id in upper case is the product, on the Storefront and the Admin API', async () => {
    for (const caller of [t.storefront(shop), t.admin(shop)]) {
      const response = await caller.get(`/products/${productId.toUpperCase()}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json<{ id: string }>().id, productId);
    }
  });
});
