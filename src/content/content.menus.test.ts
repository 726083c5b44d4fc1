import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addStaffMember, openStaffSession } from '../staff/staff.service.ts';
import { createTestStore, type TestApp, type TestStore } from '../test/harness.ts';
import { assertNotFound, pointersOf, startContentApp } from './content.test-support.ts';
import type { ContentClients, Envelope } from './content.test-support.ts';

let t: TestApp;
let api: ContentClients;
before(async () => ({ t, api } = await startContentApp()));
after(() => t.close());

interface AdminMenu {
  id: string;
  handle: string;
  items: { label: string; url: string }[];
  createdAt: string;
  updatedAt: string;
}

const MAIN = [
  { label: 'Home', url: '/' },
  { label: 'Sale', url: '/collections/sale?sort=price#top' },
  { label: 'Blog', url: 'https://blog.shop.example/' },
  { label: 'Old blog', url: 'http://old.shop.example' },
];

async function putMenu(shop: TestStore, handle: string, items: unknown = MAIN): Promise<AdminMenu> {
  const response = await t.admin(shop).put(`/menus/${handle}`, { items });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<AdminMenu>();
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('menus: admin', () => {
  test('PUT creates a menu: every field of the admin shape, one content.updated', async () => {
    const shop = await createTestStore(t);
    const response = await t.admin(shop).put('/menus/main-menu', { items: MAIN });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'no-store');
    const menu = response.json<AdminMenu>();
    assert.deepEqual(Object.keys(menu).sort(), ['createdAt', 'handle', 'id', 'items', 'updatedAt']);
    assert.match(menu.id, UUID);
    assert.equal(menu.handle, 'main-menu');
    assert.deepEqual(menu.items, MAIN);
    assert.match(menu.createdAt, ISO);
    assert.equal(menu.updatedAt, menu.createdAt);

    const one = await t.admin(shop).get('/menus/main-menu');
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), menu);

    assert.deepEqual(await api.contentEvents(shop), [
      { kind: 'menu', handle: 'main-menu', storeId: shop.store.id },
    ]);
  });

  test('PUT replaces the items; an identical PUT is not a change (no event, same updatedAt)', async () => {
    const shop = await createTestStore(t);
    const first = await putMenu(shop, 'footer', [{ label: 'About', url: '/pages/about' }]);
    const second = await putMenu(shop, 'footer', [
      { label: '  Contact  ', url: '/pages/contact' },
      { label: 'Terms', url: '/pages/terms' },
    ]);
    assert.equal(second.id, first.id);
    assert.equal(second.createdAt, first.createdAt);
    assert.ok(Date.parse(second.updatedAt) >= Date.parse(first.updatedAt));
    assert.deepEqual(
      second.items,
      [
        { label: 'Contact', url: '/pages/contact' },
        { label: 'Terms', url: '/pages/terms' },
      ],
      'labels are trimmed',
    );

    const same = await putMenu(shop, 'footer', [
      { label: 'Contact', url: '/pages/contact' },
      { label: 'Terms', url: '/pages/terms' },
    ]);
    assert.deepEqual(same, second);
    const empty = await putMenu(shop, 'footer', []);
    assert.deepEqual(empty.items, []);
    assert.deepEqual(await api.contentEvents(shop), [
      { kind: 'menu', handle: 'footer', storeId: shop.store.id },
      { kind: 'menu', handle: 'footer', storeId: shop.store.id },
      { kind: 'menu', handle: 'footer', storeId: shop.store.id },
    ]);
  });

  test('DELETE is 204, then 404 everywhere; one content.updated with deleted: true', async () => {
    const shop = await createTestStore(t);
    await putMenu(shop, 'main');
    const deleted = await t.admin(shop).delete('/menus/main');
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    assertNotFound(await t.admin(shop).get('/menus/main'));
    assertNotFound(await t.storefront(shop).get('/menus/main'));
    assertNotFound(await t.admin(shop).delete('/menus/main'));
    assert.deepEqual(await api.contentEvents(shop), [
      { kind: 'menu', handle: 'main', storeId: shop.store.id },
      { kind: 'menu', handle: 'main', deleted: true, storeId: shop.store.id },
    ]);
    const list = await t.admin(shop).get('/menus');
    assert.deepEqual(list.json(), { items: [], nextCursor: null });
  });

  test('handles: lower-case letters, digits and hyphens, 1–63 characters', async () => {
    const shop = await createTestStore(t);
    await putMenu(shop, 'a');
    await putMenu(shop, '0');
    await putMenu(shop, `a${'-'.repeat(62)}`);
    for (const handle of ['Main', '-main', 'main_menu', 'main.menu', `a${'b'.repeat(63)}`, 'm%C3%A9nu']) {
      const response = await t.admin(shop).put(`/menus/${handle}`, { items: MAIN });
      assert.deepEqual(pointersOf(response), ['/handle'], handle);
      assert.equal(response.json<{ errors: { in: string }[] }>().errors[0]!.in, 'path');
      assert.deepEqual(pointersOf(await t.admin(shop).get(`/menus/${handle}`)), ['/handle']);
      assert.deepEqual(pointersOf(await t.admin(shop).delete(`/menus/${handle}`)), ['/handle']);
      assertNotFound(await t.storefront(shop).get(`/menus/${handle}`));
    }
    assert.equal((await api.contentEvents(shop)).length, 3);
  });

  test('items: at most 100, label 1–200 characters, unknown fields refused', async () => {
    const shop = await createTestStore(t);
    const items = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ label: `Item ${i}`, url: `/p/${i}` }));
    assert.equal((await putMenu(shop, 'hundred', items(100))).items.length, 100);
    assert.deepEqual(pointersOf(await t.admin(shop).put('/menus/too-many', { items: items(101) })), [
      '/items',
    ]);

    assert.equal(
      (await putMenu(shop, 'long', [{ label: 'x'.repeat(200), url: '/' }])).items[0]!.label.length,
      200,
    );
    const cases: [unknown, string[]][] = [
      [{ items: [{ label: 'x'.repeat(201), url: '/' }] }, ['/items/0/label']],
      [{ items: [{ label: '', url: '/' }] }, ['/items/0/label']],
      [{ items: [MAIN[0], { label: '   ', url: '/' }] }, ['/items/1/label']],
      [{ items: [{ label: 'a\u0000b', url: '/' }] }, ['/items/0/label']],
      [{ items: [{ label: 'Home' }] }, ['/items/0/url']],
      [{ items: [{ url: '/' }] }, ['/items/0/label']],
      [{ items: [{ label: 'Home', url: '/', target: '_blank' }] }, ['/items/0/target']],
      [{ items: MAIN, title: 'Main' }, ['/title']],
      [{}, ['/items']],
      [{ items: 'nope' }, ['/items']],
      [{ items: [{ label: 1, url: '/' }] }, ['/items/0/label']],
    ];
    for (const [payload, pointers] of cases) {
      const response = await t.admin(shop).put('/menus/bad', payload);
      assert.deepEqual(pointersOf(response), pointers, JSON.stringify(payload));
    }
    assertNotFound(await t.admin(shop).get('/menus/bad'));
    assert.equal((await api.contentEvents(shop)).length, 2, 'failed writes record nothing');
  });

  test('item urls: http(s) or a /path; javascript:, data:, vbscript: and //host refused with a pointer', async () => {
    const shop = await createTestStore(t);
    const good = [
      '/',
      '/pages/about',
      '/search?q=linen#results',
      'https://shop.example',
      'HTTP://Shop.Example/a',
    ];
    const menu = await putMenu(
      shop,
      'good',
      good.map((url) => ({ label: 'L', url })),
    );
    assert.deepEqual(
      menu.items.map((item) => item.url),
      good,
      'urls are stored as sent',
    );
    const bad = [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)',
      '  javascript:alert(1)',
      '\u0001javascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'vbscript:msgbox(1)',
      '//evil.example/phish',
      '/\\evil.example',
      'pages/about',
      '#top',
      'mailto:hello@shop.example',
      'ftp://files.example',
      'https://user:pass@shop.example',
      'https:shop.example',
      '/a b',
    ];
    for (const url of bad) {
      const response = await t.admin(shop).put('/menus/bad', { items: [MAIN[0], { label: 'x', url }] });
      assert.deepEqual(pointersOf(response), ['/items/1/url'], JSON.stringify(url));
    }
    const many = await t.admin(shop).put('/menus/bad', {
      items: [
        { label: 'a', url: 'javascript:x' },
        { label: 'b', url: '/ok' },
        { label: ' ', url: 'data:x' },
      ],
    });
    assert.deepEqual(
      pointersOf(many),
      ['/items/0/url', '/items/2/label', '/items/2/url'],
      'every problem is listed',
    );
    assert.equal((await api.contentEvents(shop)).length, 1);
  });

  test('admin list: every menu once, ordered by handle, cursor-paginated', async () => {
    const shop = await createTestStore(t);
    const handles = ['zeta', 'alpha', 'mid-1', 'mid-0', 'beta', '9-lives', 'a-b', 'ab'];
    for (const handle of handles) await putMenu(shop, handle, [{ label: handle, url: `/${handle}` }]);
    const seen: AdminMenu[] = [];
    let cursor: string | null = null;
    do {
      const response = await t
        .admin(shop)
        .get(`/menus?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json<Envelope<AdminMenu>>();
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(
      seen.map((menu) => menu.handle),
      [...handles].sort(),
    );
    assert.deepEqual(seen[0]!.items, [{ label: '9-lives', url: '/9-lives' }]);
  });
});

describe('menus: storefront', () => {
  test('GET /menus/:handle is exactly {handle, items}; a missing menu is 404 problem+json', async () => {
    const shop = await createTestStore(t);
    await putMenu(shop, 'main');
    const response = await t.storefront(shop).get('/menus/main');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { handle: 'main', items: MAIN });
    assertNotFound(await t.storefront(shop).get('/menus/nope'));
    assertNotFound(await t.storefront(shop).get('/menus/NOT_A_HANDLE'));
    assertNotFound(await t.storefront(shop).get(`/menus/${'m'.repeat(150)}`));
  });

  test('GET /menus walks every menu once in handle order (no duplicates, no gaps)', async () => {
    const shop = await createTestStore(t);
    const handles = Array.from({ length: 23 }, (_, i) => `menu-${String((i * 7) % 23).padStart(2, '0')}`);
    for (const handle of handles) await putMenu(shop, handle, [{ label: handle, url: `/${handle}` }]);
    const expected = [...handles]
      .sort()
      .map((handle) => ({ handle, items: [{ label: handle, url: `/${handle}` }] }));
    for (const limit of [1, 5, 22, 23, 100]) {
      assert.deepEqual(await api.walk(shop, '/menus', limit), expected, `limit ${limit}`);
    }
    const first = (await t.storefront(shop).get('/menus')).json<Envelope<{ handle: string }>>();
    assert.equal(first.items.length, 20, 'default limit is 20');
    assert.equal(typeof first.nextCursor, 'string');
    const rest = (
      await t.storefront(shop).get(`/menus?cursor=${encodeURIComponent(first.nextCursor!)}`)
    ).json<Envelope<{ handle: string }>>();
    assert.deepEqual(
      [...first.items, ...rest.items].map((menu) => menu.handle),
      [...handles].sort(),
    );
    assert.equal(rest.nextCursor, null);
  });

  test('limit is clamped to 100; bad limits and tampered or foreign cursors are 400', async () => {
    const shop = await createTestStore(t);
    for (let i = 0; i < 101; i++) await putMenu(shop, `m${String(i).padStart(3, '0')}`, []);
    const page = (await t.storefront(shop).get('/menus?limit=1000')).json<Envelope<{ handle: string }>>();
    assert.equal(page.items.length, 100);
    assert.equal(page.items.at(-1)!.handle, 'm099');
    assert.equal(typeof page.nextCursor, 'string');
    const last = (
      await t.storefront(shop).get(`/menus?limit=1000&cursor=${encodeURIComponent(page.nextCursor!)}`)
    ).json<Envelope<{ handle: string }>>();
    assert.deepEqual(last, { items: [{ handle: 'm100', items: [] }], nextCursor: null });

    for (const limit of ['0', '-1', '1.5', 'ten', '']) {
      assert.deepEqual(pointersOf(await t.storefront(shop).get(`/menus?limit=${limit}`)), ['/limit'], limit);
    }
    const cursor = page.nextCursor!;
    const tampered = [
      `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`,
      `${Buffer.from(JSON.stringify(['m050'])).toString('base64url')}.${cursor.split('.')[1]}`,
      'not-a-cursor',
      `${cursor}.x`,
    ];
    for (const bad of tampered) {
      assert.deepEqual(pointersOf(await t.storefront(shop).get(`/menus?cursor=${encodeURIComponent(bad)}`)), [
        '/cursor',
      ]);
    }
    // A cursor of another list (admin menus) or of another store is refused too.
    const adminPage = (await t.admin(shop).get('/menus?limit=1')).json<Envelope<unknown>>();
    assert.deepEqual(
      pointersOf(await t.storefront(shop).get(`/menus?cursor=${encodeURIComponent(adminPage.nextCursor!)}`)),
      ['/cursor'],
    );
    const other = await createTestStore(t);
    assert.deepEqual(
      pointersOf(await t.storefront(other).get(`/menus?cursor=${encodeURIComponent(cursor)}`)),
      ['/cursor'],
    );
    assert.deepEqual(pointersOf(await t.storefront(shop).get('/menus?page=2')), ['/page']);
  });

  test('ETag and 304; a change gives a new ETag', async () => {
    const shop = await createTestStore(t);
    await putMenu(shop, 'main');
    for (const url of ['/menus/main', '/menus']) {
      const first = await t.storefront(shop).get(url);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');
      assert.equal(first.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=300');
      assert.equal(first.headers.vary, 'X-Publishable-Key, Authorization, Origin');
      const cached = await t.storefront(shop).get(url, { 'if-none-match': etag });
      assert.equal(cached.statusCode, 304);
      assert.equal(cached.body, '');
      assert.equal(cached.headers.etag, etag);
      assert.equal((await t.storefront(shop).get(url, { 'if-none-match': '"other"' })).statusCode, 200);
    }
    const before = String((await t.storefront(shop).get('/menus/main')).headers.etag);
    await putMenu(shop, 'main', [{ label: 'Only', url: '/' }]);
    const changed = await t.storefront(shop).get('/menus/main', { 'if-none-match': before });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, before);
    const missing = await t.storefront(shop).get('/menus/gone');
    assert.equal(missing.headers.etag, undefined, 'errors carry no ETag');
  });

  test('needs a publishable key', async () => {
    for (const url of ['/storefront/v1/menus', '/storefront/v1/menus/main']) {
      assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 401);
    }
  });
});

describe('menus: tenancy and roles', () => {
  test("another store's menus are never visible or writable", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    await putMenu(a, 'main');
    await putMenu(a, 'only-a');
    assertNotFound(await t.storefront(b).get('/menus/main'));
    assertNotFound(await t.storefront(b).get('/menus/only-a'));
    assert.deepEqual((await t.storefront(b).get('/menus')).json(), { items: [], nextCursor: null });
    assertNotFound(await t.admin(b).get('/menus/main'));
    assert.deepEqual((await t.admin(b).get('/menus')).json(), { items: [], nextCursor: null });
    assertNotFound(await t.admin(b).delete('/menus/main'));

    // b's own "main" is independent of a's.
    await putMenu(b, 'main', [{ label: 'B', url: '/b' }]);
    assert.deepEqual((await t.storefront(a).get('/menus/main')).json(), { handle: 'main', items: MAIN });
    assert.deepEqual((await t.storefront(b).get('/menus/main')).json(), {
      handle: 'main',
      items: [{ label: 'B', url: '/b' }],
    });
    assert.equal((await api.contentEvents(a)).length, 2);
    assert.deepEqual(await api.contentEvents(b), [{ kind: 'menu', handle: 'main', storeId: b.store.id }]);
  });

  test('every staff role may write menus; no token is 401', async () => {
    const shop = await createTestStore(t);
    for (const role of ['admin', 'staff'] as const) {
      const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
      await addStaffMember(t.deps, shop.store.id, { email, role });
      const { token } = await openStaffSession(t.deps, shop.store.id, email);
      assert.equal((await t.admin(token).put(`/menus/${role}`, { items: MAIN })).statusCode, 200);
      assert.equal((await t.admin(token).get(`/menus/${role}`)).statusCode, 200);
      assert.equal((await t.admin(token).delete(`/menus/${role}`)).statusCode, 204);
    }
    for (const [method, url] of [
      ['GET', '/admin/v1/menus'],
      ['GET', '/admin/v1/menus/main'],
      ['PUT', '/admin/v1/menus/main'],
      ['DELETE', '/admin/v1/menus/main'],
    ] as const) {
      const response = await t.app.inject({
        method,
        url,
        ...(method === 'PUT' ? { payload: { items: [] } } : {}),
      });
      assert.equal(response.statusCode, 401, `${method} ${url}`);
    }
  });
});
