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

interface AdminPage {
  id: string;
  slug: string;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

interface StorefrontPage {
  slug: string;
  title: string;
  body: string;
  updatedAt: string;
}

const ABOUT_BODY = 'We make linen shirts.\n\nEvery shirt is cut by hand.\r\nSince 1999.';

async function putPage(
  shop: TestStore,
  slug: string,
  title = 'About us',
  body = ABOUT_BODY,
): Promise<AdminPage> {
  const response = await t.admin(shop).put(`/pages/${slug}`, { title, body });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<AdminPage>();
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('pages: admin', () => {
  test('PUT creates a page: every field of the admin shape, one content.updated', async () => {
    const shop = await createTestStore(t);
    const page = await putPage(shop, 'about');
    assert.deepEqual(Object.keys(page).sort(), ['body', 'createdAt', 'id', 'slug', 'title', 'updatedAt']);
    assert.match(page.id, /^[0-9a-f-]{36}$/);
    assert.equal(page.slug, 'about');
    assert.equal(page.title, 'About us');
    assert.equal(page.body, ABOUT_BODY);
    assert.match(page.createdAt, ISO);
    assert.equal(page.updatedAt, page.createdAt);
    assert.deepEqual((await t.admin(shop).get('/pages/about')).json(), page);
    assert.deepEqual(await api.contentEvents(shop), [
      { kind: 'page', slug: 'about', storeId: shop.store.id },
    ]);
  });

  test('PUT replaces title and body; identical PUT changes nothing; DELETE emits deleted', async () => {
    const shop = await createTestStore(t);
    const first = await putPage(shop, 'faq', 'FAQ', 'Q?');
    const second = await putPage(shop, 'faq', '  Questions  ', 'Q?\n\nA.');
    assert.equal(second.id, first.id);
    assert.equal(second.createdAt, first.createdAt);
    assert.ok(Date.parse(second.updatedAt) >= Date.parse(first.updatedAt));
    assert.equal(second.title, 'Questions', 'the title is trimmed');
    assert.equal(second.body, 'Q?\n\nA.');
    assert.deepEqual(await putPage(shop, 'faq', 'Questions', 'Q?\n\nA.'), second);
    const titleOnly = await putPage(shop, 'faq', 'FAQ', 'Q?\n\nA.');
    assert.equal(titleOnly.title, 'FAQ');

    const deleted = await t.admin(shop).delete('/pages/faq');
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    assertNotFound(await t.admin(shop).get('/pages/faq'));
    assertNotFound(await t.storefront(shop).get('/pages/faq'));
    assertNotFound(await t.admin(shop).delete('/pages/faq'));
    const event = { kind: 'page', slug: 'faq', storeId: shop.store.id };
    assert.deepEqual(await api.contentEvents(shop), [event, event, event, { ...event, deleted: true }]);
  });

  test('title 1–200, body up to 100 000 characters; every problem has its pointer; nothing recorded', async () => {
    const shop = await createTestStore(t);
    const long = await putPage(shop, 'long', 't'.repeat(200), 'b'.repeat(100_000));
    assert.equal(long.title.length, 200);
    assert.equal(long.body.length, 100_000);
    assert.equal((await putPage(shop, 'empty', 'Empty', '')).body, '', 'an empty body is allowed');
    const emoji = '😀'.repeat(100_000);
    assert.equal((await putPage(shop, 'emoji', 'Emoji', emoji)).body, emoji, 'limits count characters');

    const cases: [unknown, string[]][] = [
      [{ title: 't'.repeat(201), body: '' }, ['/title']],
      [{ title: '', body: '' }, ['/title']],
      [{ title: '   ', body: 'x' }, ['/title']],
      [{ title: 'T', body: 'b'.repeat(100_001) }, ['/body']],
      [{ title: 'T', body: 'a\u0000b' }, ['/body']],
      [{ title: 'a\ud800', body: 'x\u0000' }, ['/title', '/body']],
      [{ title: 'T' }, ['/body']],
      [{ body: 'x' }, ['/title']],
      [{ title: 'T', body: 'x', html: '<p>x</p>' }, ['/html']],
      [{ title: 'T', body: 3 }, ['/body']],
    ];
    for (const [payload, pointers] of cases) {
      assert.deepEqual(
        pointersOf(await t.admin(shop).put('/pages/bad', payload)),
        pointers,
        JSON.stringify(payload).slice(0, 80),
      );
    }
    for (const slug of ['About', '-about', 'about_us', `a${'b'.repeat(63)}`]) {
      assert.deepEqual(pointersOf(await t.admin(shop).put(`/pages/${slug}`, { title: 'T', body: '' })), [
        '/slug',
      ]);
    }
    assertNotFound(await t.admin(shop).get('/pages/bad'));
    assert.equal((await api.contentEvents(shop)).length, 3);
  });
});

describe('pages: storefront', () => {
  test('GET /pages/:slug is exactly {slug, title, body, updatedAt}; the body is the stored text', async () => {
    const shop = await createTestStore(t);
    const markupLike = '<script>alert(1)</script>\n\n<b>bold</b> &amp; "quotes" \u00e9\u{1F600}';
    const page = await putPage(shop, 'about', 'About <us>', markupLike);
    const response = await t.storefront(shop).get('/pages/about');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.deepEqual(response.json(), {
      slug: 'about',
      title: 'About <us>',
      body: markupLike,
      updatedAt: page.updatedAt,
    });
    assertNotFound(await t.storefront(shop).get('/pages/missing'));
  });

  test('GET /pages walks every page once in slug order with the page objects', async () => {
    const shop = await createTestStore(t);
    const slugs = Array.from({ length: 17 }, (_, i) => `page-${String((i * 5) % 17).padStart(2, '0')}`);
    const written = new Map<string, AdminPage>();
    for (const slug of slugs)
      written.set(slug, await putPage(shop, slug, `Title ${slug}`, `Body of ${slug}`));
    const expected: StorefrontPage[] = [...slugs].sort().map((slug) => ({
      slug,
      title: `Title ${slug}`,
      body: `Body of ${slug}`,
      updatedAt: written.get(slug)!.updatedAt,
    }));
    for (const limit of [1, 4, 16, 17, 50]) {
      assert.deepEqual(await api.walk(shop, '/pages', limit), expected, `limit ${limit}`);
    }
    const adminWalk: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Envelope<AdminPage> = (
        await t.admin(shop).get(`/pages?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json();
      adminWalk.push(...page.items.map((item) => item.slug));
      cursor = page.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(adminWalk, [...slugs].sort());
  });

  test('default limit 20, clamp to 100, bad limits and tampered cursors are 400', async () => {
    const shop = await createTestStore(t);
    for (let i = 0; i < 101; i++) await putPage(shop, `p${String(i).padStart(3, '0')}`, `P${i}`, '');
    const defaults = (await t.storefront(shop).get('/pages')).json<Envelope<StorefrontPage>>();
    assert.equal(defaults.items.length, 20);
    const clamped = (await t.storefront(shop).get('/pages?limit=101')).json<Envelope<StorefrontPage>>();
    assert.equal(clamped.items.length, 100);
    const rest = (
      await t.storefront(shop).get(`/pages?limit=101&cursor=${encodeURIComponent(clamped.nextCursor!)}`)
    ).json<Envelope<StorefrontPage>>();
    assert.deepEqual(
      rest.items.map((page) => page.slug),
      ['p100'],
    );
    assert.equal(rest.nextCursor, null);
    for (const limit of ['0', '-5', '2.5', 'x']) {
      assert.deepEqual(pointersOf(await t.storefront(shop).get(`/pages?limit=${limit}`)), ['/limit']);
    }
    const cursor = defaults.nextCursor!;
    const [body, signature] = cursor.split('.') as [string, string];
    const forged = `${Buffer.from(JSON.stringify(['p050'])).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${body}.${signature.slice(1)}x`, `${body}x.${signature}`, '.']) {
      assert.deepEqual(pointersOf(await t.storefront(shop).get(`/pages?cursor=${encodeURIComponent(bad)}`)), [
        '/cursor',
      ]);
    }
    const menusCursor = cursor; // a pages cursor is not a menus cursor
    assert.deepEqual(
      pointersOf(await t.storefront(shop).get(`/menus?cursor=${encodeURIComponent(menusCursor)}`)),
      ['/cursor'],
    );
  });

  test('ETag and 304 on a page and the list; an edit changes the ETag', async () => {
    const shop = await createTestStore(t);
    await putPage(shop, 'about');
    for (const url of ['/pages/about', '/pages']) {
      const first = await t.storefront(shop).get(url);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
      assert.equal(first.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=300');
      assert.equal(first.headers.vary, 'X-Publishable-Key, Authorization, Origin');
      const cached = await t.storefront(shop).get(url, { 'if-none-match': etag });
      assert.equal(cached.statusCode, 304);
      assert.equal(cached.body, '');
    }
    const etag = String((await t.storefront(shop).get('/pages/about')).headers.etag);
    await putPage(shop, 'about', 'About us', 'New text.');
    const after = await t.storefront(shop).get('/pages/about', { 'if-none-match': etag });
    assert.equal(after.statusCode, 200);
    assert.equal(after.json<StorefrontPage>().body, 'New text.');
  });
});

describe('pages: tenancy and roles', () => {
  test("another store's pages are never visible or writable", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    await putPage(a, 'about', 'A about', 'A');
    assertNotFound(await t.storefront(b).get('/pages/about'));
    assert.deepEqual((await t.storefront(b).get('/pages')).json(), { items: [], nextCursor: null });
    assertNotFound(await t.admin(b).get('/pages/about'));
    assert.deepEqual((await t.admin(b).get('/pages')).json(), { items: [], nextCursor: null });
    assertNotFound(await t.admin(b).delete('/pages/about'));
    await putPage(b, 'about', 'B about', 'B');
    assert.equal((await t.storefront(a).get('/pages/about')).json<StorefrontPage>().title, 'A about');
    assert.equal((await t.storefront(b).get('/pages/about')).json<StorefrontPage>().title, 'B about');
    assert.deepEqual(await api.contentEvents(a), [{ kind: 'page', slug: 'about', storeId: a.store.id }]);
    assert.deepEqual(await api.contentEvents(b), [{ kind: 'page', slug: 'about', storeId: b.store.id }]);
  });

  test('every staff role may write pages; without credentials 401', async () => {
    const shop = await createTestStore(t);
    for (const role of ['admin', 'staff'] as const) {
      const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
      await addStaffMember(t.deps, shop.store.id, { email, role });
      const { token } = await openStaffSession(t.deps, shop.store.id, email);
      assert.equal((await t.admin(token).put(`/pages/${role}`, { title: 'T', body: 'B' })).statusCode, 200);
      assert.equal((await t.admin(token).get('/pages')).statusCode, 200);
      assert.equal((await t.admin(token).delete(`/pages/${role}`)).statusCode, 204);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/admin/v1/pages' })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/storefront/v1/pages' })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/storefront/v1/pages/about' })).statusCode, 401);
  });
});
