import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { findUnsafeText, MAX_JSON_DEPTH } from './input-hygiene.ts';

let t: TestApp;
let shop: TestStore;
let base: string;

before(async () => {
  t = await startTestApp();
  shop = await createTestStore(t);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
});
after(() => t.close());

const storefront = () => ({ 'x-publishable-key': shop.publishableKey });
const admin = () => ({ authorization: `Bearer ${shop.staffToken}` });

interface Problem {
  title: string;
  status: number;
  detail: string;
  errors?: { pointer: string; in?: string }[];
}

function problem(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  title: string,
): Problem {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const body = JSON.parse(response.body) as Problem;
  assert.equal(body.title, title);
  assert.equal(body.status, status);
  return body;
}

/** Sends raw bytes over a socket and returns the whole answer (for what fetch cannot send). */
function raw(request: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(request));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may reset the socket right after answering a refused request.
      if (error.code !== 'ECONNRESET' || text === '') reject(error);
    });
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
  });
}

describe('NUL and lone surrogates are 400 validation_failed everywhere (decision `input-hygiene`)', () => {
  test('finds every bad string at any depth, keys included', () => {
    assert.deepEqual(findUnsafeText({ a: 'ok', b: [{ c: 'x\u0000' }], d: '\ud800' }), ['/b/0/c', '/d']);
    assert.deepEqual(findUnsafeText({ 'a/b': ['\ud800'] }), ['/a~1b/0']);
    assert.deepEqual(findUnsafeText({ ok: { 'k\u0000': 1 } }), ['/ok']);
    assert.deepEqual(findUnsafeText('\udc00'), ['/']);
    assert.deepEqual(findUnsafeText({ emoji: '\ud83d\ude00', plain: 'é' }), []);
    assert.equal(findUnsafeText(Array.from({ length: 50 }, () => '\u0000')).length, 20);
  });

  test('a NUL in a storefront path parameter', async () => {
    for (const path of [
      'pages/%00',
      'menus/%00',
      'regions/a%00b',
      'collections/%00',
      'collections/%00/products',
      'products/%00',
    ]) {
      const response = await t.app.inject({ url: `/storefront/v1/${path}`, headers: storefront() });
      const body = problem(response, 400, 'validation_failed');
      assert.equal(body.errors?.[0]?.in, 'path', path);
    }
  });

  test('a NUL in a query parameter', async () => {
    const response = await t.app.inject({ url: '/storefront/v1/products?cursor=%00', headers: storefront() });
    const body = problem(response, 400, 'validation_failed');
    assert.deepEqual(body.errors?.[0], {
      pointer: '/cursor',
      in: 'query',
      detail: 'must not contain a NUL character or an unpaired UTF-16 surrogate',
    });
  });

  test('unauthenticated sign-in and verify with a NUL in storeSlug', async () => {
    for (const url of ['/admin/v1/auth/sign-in', '/admin/v1/auth/verify']) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        payload: { storeSlug: 'de\u0000mo', email: 'owner@example.com', code: '123456' },
      });
      const body = problem(response, 400, 'validation_failed');
      assert.equal(body.errors?.[0]?.pointer, '/storeSlug');
    }
  });

  test('lone surrogates and NULs in admin bodies, nested too; nothing is written', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/admin/v1/products', { title: 'A\ud800', variants: [] }, '/title'],
      [
        'POST',
        '/admin/v1/products',
        { title: 'Shirt', variants: [{ label: 'M', sku: 'S\udc00', priceAmount: 1, onHand: 1 }] },
        '/variants/0/sku',
      ],
      ['POST', '/admin/v1/collections', { title: 'C\u0000', slug: 'c', kind: 'manual' }, '/title'],
      ['PUT', '/admin/v1/settings', { name: 'N\u0000' }, '/name'],
      ['POST', '/admin/v1/integrations/storefront-keys', { label: 'k\ud800', allowedOrigins: [] }, '/label'],
      ['PUT', '/admin/v1/pages/about', { title: 'About', body: 'a\u0000b' }, '/body'],
    ];
    for (const [method, url, payload, pointer] of cases) {
      const response = await t.app.inject({
        method: method as 'POST',
        url,
        headers: { ...admin(), 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      const body = problem(response, 400, 'validation_failed');
      assert.equal(body.errors?.[0]?.pointer, pointer, `${method} ${url}`);
      assert.equal(body.errors?.[0]?.in, 'body');
    }
    const products = await t.app.inject({ url: '/admin/v1/products', headers: admin() });
    assert.deepEqual(products.json<{ items: unknown[] }>().items, []);
  });

  test('a checkout discount code with a lone surrogate', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/checkout',
      headers: {
        ...storefront(),
        'idempotency-key': crypto.randomUUID(),
        'content-type': 'application/json',
      },
      payload: `{"cartId":"${crypto.randomUUID()}","email":"a@b.co","discountCode":"X\\ud800"}`,
    });
    assert.equal(problem(response, 400, 'validation_failed').errors?.[0]?.pointer, '/discountCode');
  });
});

/** `levels` objects nested in one another, `{"a":{"a":…1…}}`, as JSON text. */
const nested = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
/** The JSON Pointer of the object at `level` (the body is level 1) inside `/at` of a body. */
const deepPointer = (at: string, level: number): string => `/${at}${'/a'.repeat(level - 2)}`;

describe('JSON bodies nest at most MAX_JSON_DEPTH levels', () => {
  const themes = async () =>
    (await t.app.inject({ url: '/admin/v1/themes?limit=100', headers: admin() })).json<{ items: unknown[] }>()
      .items.length;

  test("5,000 levels in a theme's settings are 400 with a pointer, not 500; nothing is written", async () => {
    const before = await themes();
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/themes',
      headers: { ...admin(), 'content-type': 'application/json' },
      payload: `{"name":"Deep","settings":${nested(5000)}}`,
    });
    const body = problem(response, 400, 'validation_failed');
    assert.match(body.detail, /deeper than 64 levels/);
    assert.deepEqual(body.errors, [
      {
        pointer: deepPointer('settings', MAX_JSON_DEPTH + 1),
        detail: 'is nested deeper than 64 levels',
        in: 'body',
      },
    ]);
    assert.equal(await themes(), before, 'no theme was created');
  });

  test('the limit is exact: 64 levels are a theme, 65 are refused', async () => {
    const at = (levels: number) =>
      t.app.inject({
        method: 'POST',
        url: '/admin/v1/themes',
        headers: { ...admin(), 'content-type': 'application/json' },
        // The body is level 1, `settings` level 2.
        payload: `{"name":"Deep ${levels}","settings":${nested(levels - 1)}}`,
      });
    assert.equal((await at(MAX_JSON_DEPTH)).statusCode, 201);
    const refused = problem(await at(MAX_JSON_DEPTH + 1), 400, 'validation_failed');
    assert.equal(refused.errors?.[0]?.pointer, deepPointer('settings', MAX_JSON_DEPTH + 1));
  });

  test('a storefront cart 5,000 levels deep is refused before its schema sees it', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/storefront/v1/carts',
      headers: { ...storefront(), 'content-type': 'application/json' },
      payload: `{"items":[${nested(5000)}]}`,
    });
    const body = problem(response, 400, 'validation_failed');
    // Not the schema's "items/0/a is not a known field": the depth check runs first. The body is
    // level 1, `items` 2, its first item 3.
    assert.deepEqual(
      body.errors?.map((error) => error.pointer),
      [`/items/0${'/a'.repeat(MAX_JSON_DEPTH - 2)}`],
    );
  });

  test('a body as deep as 1 MB allows is walked without recursion', async () => {
    const levels = 170_000; // 6 bytes a level: just under the 1 MB body limit
    const response = await fetch(`${base}/storefront/v1/carts`, {
      method: 'POST',
      headers: { ...storefront(), 'content-type': 'application/json' },
      body: `[${nested(levels)}]`,
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as Problem;
    // The array is level 1, its object level 2: the 65th level is 63 `a`s down.
    assert.equal(body.errors?.[0]?.pointer, `/0${'/a'.repeat(MAX_JSON_DEPTH - 1)}`);
    assert.deepEqual(findUnsafeText(JSON.parse(`[${nested(levels)}]`)), []);
  });
});

describe("the framework's own refusals are problem+json (decision `input-hygiene`)", () => {
  test('bad percent-encoding in the path', async () => {
    for (const path of ['/storefront/v1/products/%E0%A4%A', '/storefront/v1/pages/%ED%A0%80']) {
      const response = await fetch(`${base}${path}`, { headers: storefront() });
      assert.equal(response.status, 400);
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(((await response.json()) as Problem).title, 'validation_failed');
    }
  });

  test('a path parameter over 200 characters is 414', async () => {
    const response = await fetch(`${base}/storefront/v1/pages/${'a'.repeat(250)}`, { headers: storefront() });
    assert.equal(response.status, 414);
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(((await response.json()) as Problem).title, 'uri_too_long');
  });

  test('headers over the limit are 431, a malformed request 400', async () => {
    const big = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.equal(big.status, 431);
    assert.match(big.headers, /content-type: application\/problem\+json/i);
    assert.equal((JSON.parse(big.body) as Problem).title, 'request_header_fields_too_large');

    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
    assert.equal(garbage.status, 400);
    assert.equal((JSON.parse(garbage.body) as Problem).title, 'validation_failed');
  });

  test('a 401 carries WWW-Authenticate', async () => {
    const missing = await fetch(`${base}/storefront/v1/store`);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="storefront"');
    const unknown = await fetch(`${base}/storefront/v1/store`, {
      headers: { 'x-publishable-key': 'pk_nope' },
    });
    assert.equal(unknown.headers.get('www-authenticate'), 'Bearer realm="storefront", error="invalid_token"');
    const staff = await fetch(`${base}/admin/v1/orders`);
    assert.equal(staff.status, 401);
    assert.equal(staff.headers.get('www-authenticate'), 'Bearer realm="admin"');
    const expired = await fetch(`${base}/admin/v1/orders`, {
      headers: { authorization: `Bearer st_${'x'.repeat(40)}` },
    });
    assert.equal(expired.headers.get('www-authenticate'), 'Bearer realm="admin", error="invalid_token"');
  });

  test('bodyless POST and DELETE accept an empty body sent as application/json', async () => {
    const json = { ...admin(), 'content-type': 'application/json' };
    const draft = await t.app.inject({
      method: 'PUT',
      url: '/admin/v1/regions/hero/draft',
      headers: admin(),
      payload: { blocks: [] },
    });
    assert.equal(draft.statusCode, 200, draft.body);
    const publish = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/regions/hero/publish',
      headers: json,
    });
    assert.equal(publish.statusCode, 200, publish.body);

    const key = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/integrations/storefront-keys',
      headers: admin(),
      payload: { label: 'temp', allowedOrigins: [] },
    });
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v1/integrations/storefront-keys/${key.json<{ id: string }>().id}`,
      headers: json,
    });
    assert.equal(revoke.statusCode, 204, revoke.body);

    // A route that needs a body still says so.
    const noBody = await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: json });
    assert.equal(problem(noBody, 400, 'validation_failed').errors?.[0]?.in, 'body');
  });
});

describe('integers in query strings are canonical decimal (decision `canonical-text-parameters`)', () => {
  test('1e2, 0x10, " 5", 05, +5, 5.0 are 400; 5 is fine', async () => {
    for (const limit of ['1e2', '0x10', '%205', '05', '%2B5', '5.0', '']) {
      const response = await t.app.inject({
        url: `/storefront/v1/products?limit=${limit}`,
        headers: storefront(),
      });
      const body = problem(response, 400, 'validation_failed');
      assert.equal(body.errors?.[0]?.pointer, '/limit', limit);
      assert.equal(body.errors?.[0]?.in, 'query');
    }
    const ok = await t.app.inject({ url: '/storefront/v1/products?limit=5', headers: storefront() });
    assert.equal(ok.statusCode, 200);
  });
});
