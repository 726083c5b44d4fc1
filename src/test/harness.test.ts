/**
 * The harness's own helpers: the authenticated callers reach the right API with the right
 * credential, and assertQuiet fails at the first sign of what must not happen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertQuiet, startTestAppWithStore, type TestApp, type TestStore } from './harness.ts';

let t: TestApp;
let shop: TestStore;

before(async () => ({ t, shop } = await startTestAppWithStore()));
after(() => t.close());

describe('authenticated callers', () => {
  test('admin(store) calls the Admin API as the owner; a token given instead is used as is', async () => {
    const created = await t.admin(shop).post('/products', {
      title: 'Harness',
      status: 'draft',
      variants: [{ label: 'One', priceAmount: 100, onHand: 1 }],
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json<{ id: string }>();
    assert.equal((await t.admin(shop).get(`/products/${id}`)).statusCode, 200);
    assert.equal((await t.admin(shop).delete(`/products/${id}`)).statusCode, 204);
    assert.equal((await t.admin('sf_sess_not-a-session').get('/products')).statusCode, 401);
  });

  test('storefront(store) sends the publishable key and extra headers', async () => {
    const store = await t.storefront(shop).get('/store');
    assert.equal(store.statusCode, 200, store.body);
    const etag = String(store.headers.etag);
    assert.equal((await t.storefront(shop).get('/store', { 'if-none-match': etag })).statusCode, 304);
    assert.equal((await t.storefront('pk_test_unknown').get('/store')).statusCode, 401);
  });
});

describe('assertQuiet', () => {
  test('passes when the probe stays falsy for the whole time', async () => {
    let looks = 0;
    const started = Date.now();
    await assertQuiet(100, () => {
      looks += 1;
      return false;
    });
    assert.ok(Date.now() - started >= 100, 'it watched for the whole time');
    // A loaded machine may stall the timer for the whole window; it still looks at the start and at the end.
    assert.ok(looks >= 2, `it looked more than once (${looks})`);
  });

  test('fails as soon as something happens, naming it', async () => {
    const started = Date.now();
    let happened = false;
    setTimeout(() => (happened = true), 30);
    await assert.rejects(
      assertQuiet(5000, () => happened && 'a mail arrived', 'no mail'),
      /Expected no mail for 5000 ms, but: a mail arrived/,
    );
    assert.ok(Date.now() - started < 1000, 'it did not wait out the whole time');
  });
});
