import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createStorefrontKey, revokeStorefrontKey } from './keys.service.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
let shop: TestStore;

before(async () => {
  t = await startTestApp();
  shop = await createTestStore(t, { allowedOrigins: ['https://shop.example', 'http://localhost:5173'] });
});
after(() => t.close());

const get = (headers: Record<string, string>, url = '/storefront/v1/store') =>
  t.app.inject({ method: 'GET', url, headers });

describe('publishable-key authentication', () => {
  test('X-Publishable-Key opens the store', async () => {
    const response = await get({ 'x-publishable-key': shop.publishableKey });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { name: shop.store.name, slug: shop.store.slug, currency: 'USD' });
  });

  test('Authorization: Bearer pk_… works the same', async () => {
    const response = await get({ authorization: `Bearer ${shop.publishableKey}` });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json<{ slug: string }>().slug, shop.store.slug);
  });

  test('a missing key is 401 problem+json', async () => {
    const response = await get({});
    assert.equal(response.statusCode, 401);
    assert.match(String(response.headers['content-type']), /application\/problem\+json/);
    assert.equal(response.json<{ title: string }>().title, 'unauthorized');
  });

  test('an unknown or malformed key is 401', async () => {
    // The real key with its last character changed (to one it is not already).
    const last = shop.publishableKey.at(-1) === 'x' ? 'y' : 'x';
    const altered = shop.publishableKey.slice(0, -1) + last;
    for (const key of ['pk_' + 'A'.repeat(32), 'nonsense', altered]) {
      const response = await get({ 'x-publishable-key': key });
      assert.equal(response.statusCode, 401, key);
      assert.equal(response.json<{ title: string }>().title, 'unauthorized');
    }
  });

  test('a staff token is not a publishable key', async () => {
    const response = await get({ authorization: `Bearer ${shop.staffToken}` });
    assert.equal(response.statusCode, 401);
  });

  test('each key sees only its own store', async () => {
    const other = await createTestStore(t, { currency: 'EUR' });
    const response = await get({ 'x-publishable-key': other.publishableKey });
    assert.deepEqual(response.json(), { name: other.store.name, slug: other.store.slug, currency: 'EUR' });
  });

  test('a revoked key is 401 on every process within 1 second', async () => {
    const key = await createStorefrontKey(t.deps, shop.store.id, {
      label: 'to revoke',
      allowedOrigins: [],
    });
    // A second process on the same database, with the lookup cached before the revocation.
    const other = await startTestApp({ db: t.db });
    try {
      assert.equal(
        (
          await other.app.inject({
            method: 'GET',
            url: '/storefront/v1/store',
            headers: { 'x-publishable-key': key.key },
          })
        ).statusCode,
        200,
      );
      await revokeStorefrontKey(t.deps, shop.store.id, key.id);
      // The other process has not heard of the revocation: its cached lookup still answers...
      assert.equal((await other.storefront(key.key).get('/store')).statusCode, 200);
      // ...until the entry's TTL has passed on its clock.
      other.clock.advance(other.config.keyCacheTtlMs + 1);
      const response = await other.app.inject({
        method: 'GET',
        url: '/storefront/v1/store',
        headers: { 'x-publishable-key': key.key },
      });
      assert.equal(response.statusCode, 401);
    } finally {
      await other.close();
    }
  });
});

describe('origins and CORS', () => {
  test('an allowed Origin gets Access-Control-Allow-Origin and Vary: Origin', async () => {
    const response = await get({ 'x-publishable-key': shop.publishableKey, origin: 'https://shop.example' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['access-control-allow-origin'], 'https://shop.example');
    assert.match(String(response.headers.vary), /Origin/);
    assert.match(String(response.headers['access-control-expose-headers']), /ETag/);
  });

  test('an Origin not in allowedOrigins is 403 problem+json', async () => {
    const response = await get({ 'x-publishable-key': shop.publishableKey, origin: 'https://evil.example' });
    assert.equal(response.statusCode, 403);
    assert.equal(response.json<{ title: string }>().title, 'forbidden');
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });

  test('a request without Origin passes', async () => {
    assert.equal((await get({ 'x-publishable-key': shop.publishableKey })).statusCode, 200);
  });

  test('preflight OPTIONS needs no key and lists methods and headers', async () => {
    const response = await t.app.inject({
      method: 'OPTIONS',
      url: '/storefront/v1/store',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
    });
    assert.equal(response.statusCode, 204);
    assert.equal(response.headers['access-control-allow-origin'], 'http://localhost:5173');
    const allowHeaders = String(response.headers['access-control-allow-headers']).toLowerCase();
    for (const header of [
      'x-publishable-key',
      'authorization',
      'content-type',
      'idempotency-key',
      'if-match',
      'if-none-match',
      'traceparent',
      'tracestate',
    ]) {
      assert.ok(allowHeaders.includes(header), header);
    }
    assert.match(String(response.headers['access-control-allow-methods']), /GET/);
    assert.match(String(response.headers['access-control-allow-methods']), /POST/);
  });
});

describe('caching of the store read', () => {
  test('sends a strong ETag and answers If-None-Match with 304', async () => {
    const first = await get({ 'x-publishable-key': shop.publishableKey });
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    assert.match(String(first.headers['cache-control']), /public, max-age=30, stale-while-revalidate=300/);
    assert.match(String(first.headers.vary), /X-Publishable-Key/);
    const second = await get({ 'x-publishable-key': shop.publishableKey, 'if-none-match': etag });
    assert.equal(second.statusCode, 304);
    assert.equal(second.body, '');
  });
});

describe('CORS on errors', () => {
  test('a 401 to a browser carries Access-Control-Allow-Origin so the page can read the problem', async () => {
    const response = await get({ origin: 'https://shop.example' });
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['access-control-allow-origin'], 'https://shop.example');
  });
});
