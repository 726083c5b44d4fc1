/**
 * Handles, SEO and the card's compare-at (decision `product-handles`): a handle made from the title (accents folded,
 * unique in the store, `-2` for a taken one), given or changed by staff (409 handle_unavailable
 * when taken), an earlier handle answering 301 to the current one, a handle taken over from
 * another product's past; SEO fields; the card's compare-at following the cheapest variant;
 * existing products given handles by the migration.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Product {
  id: string;
  handle: string;
  seo: { title: string | null; description: string | null };
}

async function create(shop: TestStore, body: Record<string, unknown>) {
  return t.admin(shop).post('/products', {
    status: 'active',
    variants: [{ label: 'One', priceAmount: 1000, onHand: 3 }],
    ...body,
  });
}

async function made(shop: TestStore, body: Record<string, unknown>): Promise<Product> {
  const response = await create(shop, body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<Product>();
}

const byHandle = (shop: TestStore, handle: string) =>
  t.storefront(shop).get(`/products/handle/${encodeURIComponent(handle)}`);

describe('product handles (decision `product-handles`)', () => {
  test('made from the title, unique in the store; given ones checked; another store may use the same', async () => {
    const shop = await createTestStore(t);
    assert.equal((await made(shop, { title: 'Crème Brûlée — Large Mug!' })).handle, 'creme-brulee-large-mug');
    assert.equal((await made(shop, { title: 'Hoodie' })).handle, 'hoodie');
    assert.equal((await made(shop, { title: 'hoodie' })).handle, 'hoodie-2');
    assert.equal((await made(shop, { title: 'HOODIE' })).handle, 'hoodie-3');
    assert.equal((await made(shop, { title: '☕☕' })).handle, 'product');
    assert.equal((await made(shop, { title: 'Tee', handle: 'classic-tee' })).handle, 'classic-tee');

    const taken = await create(shop, { title: 'Other', handle: 'classic-tee' });
    assert.equal(taken.statusCode, 409, taken.body);
    assert.equal(taken.json<{ title: string }>().title, 'handle_unavailable');
    assert.equal(taken.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/handle');
    for (const bad of ['Classic Tee', 'tee--two', '-tee', 'tee_1', '']) {
      const refused = await create(shop, { title: 'Bad', handle: bad });
      assert.equal(refused.statusCode, 400, `${bad}: ${refused.body}`);
      assert.equal(refused.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/handle');
    }

    const other = await createTestStore(t);
    assert.equal((await made(other, { title: 'Hoodie' })).handle, 'hoodie');
    assert.equal((await made(other, { title: 'Tee', handle: 'classic-tee' })).handle, 'classic-tee');
  });

  test('GET /products/handle/:handle: the detail; an earlier handle 301s to the current one; drafts and unknown are 404', async () => {
    const shop = await createTestStore(t);
    const product = await made(shop, {
      title: 'Wool Scarf',
      seo: { title: ' Warm scarf ', description: 'Soft.' },
    });
    assert.deepEqual(product.seo, { title: 'Warm scarf', description: 'Soft.' });
    const found = await byHandle(shop, 'wool-scarf');
    assert.equal(found.statusCode, 200, found.body);
    const byId = await t.storefront(shop).get(`/products/${product.id}`);
    assert.deepEqual(found.json(), byId.json());
    assert.deepEqual(found.json<Product>().seo, { title: 'Warm scarf', description: 'Soft.' });
    // The catalog's ETag, and a 304 to it.
    const etag = found.headers.etag as string;
    assert.equal(etag, byId.headers.etag);
    const unchanged = await t.storefront(shop).get('/products/handle/wool-scarf', { 'if-none-match': etag });
    assert.equal(unchanged.statusCode, 304);

    const renamed = await t.admin(shop).patch(`/products/${product.id}`, { handle: 'merino-scarf' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json<Product>().handle, 'merino-scarf');
    const moved = await byHandle(shop, 'wool-scarf');
    assert.equal(moved.statusCode, 301, moved.body);
    assert.equal(moved.headers.location, '/storefront/v1/products/handle/merino-scarf');
    assert.deepEqual(moved.json(), { handle: 'merino-scarf' });
    assert.equal(moved.headers['cache-control'], 'no-store', 'a browser must not keep the redirect');
    // Renamed again: both earlier handles lead to the current one.
    await t.admin(shop).patch(`/products/${product.id}`, { handle: 'scarf' });
    assert.equal(
      (await byHandle(shop, 'wool-scarf')).headers.location,
      '/storefront/v1/products/handle/scarf',
    );
    assert.equal(
      (await byHandle(shop, 'merino-scarf')).headers.location,
      '/storefront/v1/products/handle/scarf',
    );
    assert.equal((await byHandle(shop, 'scarf')).statusCode, 200);
    // Back to an earlier handle: it answers 200 again, not a loop.
    await t.admin(shop).patch(`/products/${product.id}`, { handle: 'wool-scarf' });
    assert.equal((await byHandle(shop, 'wool-scarf')).statusCode, 200);
    assert.equal(
      (await byHandle(shop, 'scarf')).headers.location,
      '/storefront/v1/products/handle/wool-scarf',
    );

    // Another product takes a handle that redirects: the handle is its now.
    const hat = await made(shop, { title: 'Hat', handle: 'merino-scarf' });
    const taken = await byHandle(shop, 'merino-scarf');
    assert.equal(taken.statusCode, 200);
    assert.equal(taken.json<Product>().id, hat.id);

    // A draft's handle (current or earlier) is not found, nor is an unknown one.
    await t.admin(shop).patch(`/products/${product.id}`, { status: 'draft' });
    assert.equal((await byHandle(shop, 'wool-scarf')).statusCode, 404);
    assert.equal((await byHandle(shop, 'scarf')).statusCode, 404);
    const unknown = await byHandle(shop, 'nothing-here');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.headers['content-type'], 'application/problem+json; charset=utf-8');

    // A handle taken by another product is refused on change, and nothing changes.
    const clash = await t.admin(shop).patch(`/products/${hat.id}`, { handle: 'wool-scarf', title: 'Cap' });
    assert.equal(clash.statusCode, 409, clash.body);
    assert.equal(clash.json<{ title: string }>().title, 'handle_unavailable');
    assert.equal((await t.admin(shop).get(`/products/${hat.id}`)).json<{ title: string }>().title, 'Hat');

    // Another store's handle is not this store's.
    const other = await createTestStore(t);
    assert.equal((await byHandle(other, 'merino-scarf')).statusCode, 404);
  });

  test('SEO fields: set, cleared by blank or null, left as they are when not sent; a change is product.updated', async () => {
    const shop = await createTestStore(t);
    const product = await made(shop, { title: 'Lamp' });
    const url = `/products/${product.id}`;
    const set = await t.admin(shop).patch(url, { seo: { title: 'Desk lamp', description: 'Bright.' } });
    assert.deepEqual(set.json<Product>().seo, { title: 'Desk lamp', description: 'Bright.' });
    const kept = await t.admin(shop).patch(url, { title: 'Lamp 2' });
    assert.deepEqual(kept.json<Product>().seo, { title: 'Desk lamp', description: 'Bright.' });
    const cleared = await t.admin(shop).patch(url, { seo: { title: '  ', description: null } });
    assert.deepEqual(cleared.json<Product>().seo, { title: null, description: null });
    const tooLong = await t.admin(shop).patch(url, { seo: { title: 'x'.repeat(201) } });
    assert.equal(tooLong.statusCode, 400);
    const events = await t.db.kysely
      .selectFrom('events')
      .select('type')
      .where('store_id', '=', shop.store.id)
      .where('type', '=', 'product.updated')
      .execute();
    assert.equal(events.length, 3);
  });

  test("the card's compare-at is the cheapest variant's, when higher than its price; it follows variant changes", async () => {
    const shop = await createTestStore(t);
    const product = await made(shop, {
      title: 'Mug',
      variants: [
        { label: 'Small', priceAmount: 800, compareAtAmount: 1000, onHand: 1 },
        { label: 'Large', priceAmount: 1200, compareAtAmount: 1500, onHand: 1 },
      ],
    });
    const card = async () =>
      (await t.storefront(shop).get('/products')).json<{ items: { compareAtAmount: number | null }[] }>()
        .items[0]!.compareAtAmount;
    assert.equal(await card(), 1000);
    const small = (await t.admin(shop).get(`/products/${product.id}`)).json<{ variants: { id: string }[] }>()
      .variants[0]!.id;
    await t.admin(shop).patch(`/variants/${small}`, { compareAtAmount: 700 });
    assert.equal(await card(), null, 'not higher than the price: no sale');
    await t.admin(shop).patch(`/variants/${small}`, { priceAmount: 1300 });
    assert.equal(await card(), 1500, 'the Large is the cheapest now');
  });

  test('a read by handle is cached, and shows stock moves within a second', async () => {
    const shop = await createTestStore(t);
    const product = await made(shop, { title: 'Stocked Scarf' });
    const read = async () => {
      const response = await byHandle(shop, 'stocked-scarf');
      assert.equal(response.statusCode, 200, response.body);
      return response;
    };
    const first = await read();
    assert.equal(first.json<{ variants: { available: number }[] }>().variants[0]!.available, 3);
    const etag = first.headers.etag as string;
    const revalidated = await t
      .storefront(shop)
      .get('/products/handle/stocked-scarf', { 'if-none-match': etag });
    assert.equal(revalidated.statusCode, 304);
    const variant = (await t.admin(shop).get(`/products/${product.id}`)).json<{
      variants: { id: string }[];
    }>().variants[0]!.id;
    assert.equal((await t.admin(shop).patch(`/variants/${variant}`, { onHand: 1 })).statusCode, 200);
    const until = Date.now() + 1500;
    let available = 3;
    while (available !== 1 && Date.now() < until) {
      available = (await read()).json<{ variants: { available: number }[] }>().variants[0]!.available;
      if (available !== 1) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(available, 1);
  });

  test('the migration gives existing products handles, oldest first, and the same title a number', async () => {
    const rows = await sql<{ handle: string }>`
      SELECT storefront_handle_of(title) AS handle FROM (VALUES ('Crème Brûlée'), ('  --  '), (${'x'.repeat(120)})) AS v(title)`.execute(
      t.db.kysely,
    );
    assert.deepEqual(
      rows.rows.map((r) => r.handle),
      ['creme-brulee', 'product', 'x'.repeat(80)],
    );
  });
});
