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

interface Tree {
  blocks: unknown[];
  updatedAt: string;
}
interface AdminRegion {
  id: string;
  key: string;
  draft: Tree;
  published: Tree | null;
  hasUnpublishedChanges: boolean;
  createdAt: string;
}
interface PublishedRegion {
  key: string;
  updatedAt: string;
  blocks: unknown[];
}

const HERO = [
  { id: 'title', type: 'heading', settings: { text: 'Summer sale', level: 1 } },
  {
    id: 'row',
    type: 'columns',
    settings: { columns: 2 },
    children: [
      {
        id: 'pic',
        type: 'image',
        settings: { src: 'https://cdn.shop.example/hero.jpg', alt: 'Linen shirts' },
      },
      {
        id: 'side',
        type: 'columns',
        settings: { columns: 1 },
        children: [
          { id: 'copy', type: 'text', settings: { text: 'Up to 50% off.\n\nThis week only.' } },
          { id: 'gap', type: 'spacer', settings: { size: 'sm' } },
          { id: 'cta', type: 'button', settings: { text: 'Shop now', href: '/collections/sale' } },
        ],
      },
    ],
  },
  { id: 'end', type: 'spacer', settings: {} },
];
const OTHER = [{ id: 'only', type: 'text', settings: { text: 'Autumn is coming.' } }];

async function saveDraft(shop: TestStore, key: string, blocks: unknown[]): Promise<AdminRegion> {
  const response = await t.admin(shop).put(`/regions/${key}/draft`, { blocks });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<AdminRegion>();
}

async function publish(shop: TestStore, key: string): Promise<PublishedRegion> {
  const response = await t.admin(shop).post(`/regions/${key}/publish`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<PublishedRegion>();
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('regions: draft and publish', () => {
  test('saving a draft: the admin shape, no event, and the storefront still answers 404', async () => {
    const shop = await createTestStore(t);
    const region = await saveDraft(shop, 'home-hero', HERO);
    assert.deepEqual(Object.keys(region).sort(), [
      'createdAt',
      'draft',
      'hasUnpublishedChanges',
      'id',
      'key',
      'published',
    ]);
    assert.match(region.id, /^[0-9a-f-]{36}$/);
    assert.equal(region.key, 'home-hero');
    assert.deepEqual(region.draft.blocks, HERO);
    assert.match(region.draft.updatedAt, ISO);
    assert.equal(region.published, null);
    assert.equal(region.hasUnpublishedChanges, true);
    assert.match(region.createdAt, ISO);

    assert.deepEqual((await t.admin(shop).get('/regions/home-hero/draft')).json(), region);
    assert.deepEqual((await t.admin(shop).get('/regions/home-hero')).json(), region);
    assertNotFound(await t.storefront(shop).get('/regions/home-hero'));
    assert.deepEqual(await api.contentEvents(shop), [], 'a draft does not change the storefront');
  });

  test('publishing serves the draft on the storefront and records content.updated once', async () => {
    const shop = await createTestStore(t);
    await saveDraft(shop, 'home-hero', HERO);
    const published = await publish(shop, 'home-hero');
    assert.deepEqual(Object.keys(published).sort(), ['blocks', 'key', 'updatedAt']);
    assert.equal(published.key, 'home-hero');
    assert.deepEqual(published.blocks, HERO);
    assert.match(published.updatedAt, ISO);

    const served = await t.storefront(shop).get('/regions/home-hero');
    assert.equal(served.statusCode, 200);
    assert.deepEqual(served.json(), published);

    const admin = (await t.admin(shop).get('/regions/home-hero/draft')).json<AdminRegion>();
    assert.deepEqual(admin.published, { blocks: HERO, updatedAt: published.updatedAt });
    assert.equal(admin.hasUnpublishedChanges, false);
    assert.deepEqual(await api.contentEvents(shop), [
      { kind: 'region', key: 'home-hero', storeId: shop.store.id },
    ]);
  });

  test('draft edits never reach the storefront until republished; republishing replaces the tree', async () => {
    const shop = await createTestStore(t);
    await saveDraft(shop, 'home', HERO);
    const first = await publish(shop, 'home');

    const edited = await saveDraft(shop, 'home', OTHER);
    assert.deepEqual(edited.draft.blocks, OTHER);
    assert.deepEqual(edited.published, { blocks: HERO, updatedAt: first.updatedAt });
    assert.equal(edited.hasUnpublishedChanges, true);
    assert.deepEqual(
      (await t.storefront(shop).get('/regions/home')).json(),
      first,
      'the storefront keeps the published tree',
    );

    // A refused draft leaves both trees alone.
    const bad = await t.admin(shop).put('/regions/home/draft', {
      blocks: [{ id: 'x', type: 'button', settings: { text: 'x', href: 'javascript:alert(1)' } }],
    });
    assert.deepEqual(pointersOf(bad), ['/blocks/0/settings/href']);
    assert.deepEqual(
      (await t.admin(shop).get('/regions/home/draft')).json<AdminRegion>().draft.blocks,
      OTHER,
    );
    assert.equal((await api.contentEvents(shop)).length, 1);

    const second = await publish(shop, 'home');
    assert.deepEqual(second.blocks, OTHER);
    assert.ok(Date.parse(second.updatedAt) >= Date.parse(first.updatedAt));
    assert.deepEqual((await t.storefront(shop).get('/regions/home')).json(), second);

    // Publishing again without a change changes nothing: same tree, same updatedAt, no event.
    assert.deepEqual(await publish(shop, 'home'), second);
    // Saving the same draft again is not a change either.
    const same = await saveDraft(shop, 'home', OTHER);
    assert.equal(same.draft.updatedAt, edited.draft.updatedAt);
    assert.equal(same.hasUnpublishedChanges, false);

    // Back to the first tree: a change again.
    await saveDraft(shop, 'home', HERO);
    assert.deepEqual((await publish(shop, 'home')).blocks, HERO);
    const event = { kind: 'region', key: 'home', storeId: shop.store.id };
    assert.deepEqual(await api.contentEvents(shop), [event, event, event]);
  });

  test('publish without a draft is 404; a bad key is 400', async () => {
    const shop = await createTestStore(t);
    assertNotFound(await t.admin(shop).post('/regions/nothing/publish'));
    assertNotFound(await t.admin(shop).get('/regions/nothing/draft'));
    assertNotFound(await t.admin(shop).get('/regions/nothing'));
    assertNotFound(await t.admin(shop).delete('/regions/nothing'));
    for (const key of ['Home', '-home', 'home_hero', `a${'b'.repeat(63)}`]) {
      assert.deepEqual(pointersOf(await t.admin(shop).put(`/regions/${key}/draft`, { blocks: [] })), [
        '/key',
      ]);
      assert.deepEqual(pointersOf(await t.admin(shop).post(`/regions/${key}/publish`)), ['/key']);
      assertNotFound(await t.storefront(shop).get(`/regions/${key}`));
    }
    assert.deepEqual(await api.contentEvents(shop), []);
  });

  test('DELETE removes draft and published tree; content.updated only if it had been published', async () => {
    const shop = await createTestStore(t);
    await saveDraft(shop, 'draft-only', OTHER);
    const gone = await t.admin(shop).delete('/regions/draft-only');
    assert.equal(gone.statusCode, 204);
    assert.equal(gone.body, '');
    assertNotFound(await t.admin(shop).get('/regions/draft-only/draft'));
    assert.deepEqual(await api.contentEvents(shop), [], 'the storefront never saw it');

    await saveDraft(shop, 'live', HERO);
    await publish(shop, 'live');
    assert.equal((await t.admin(shop).delete('/regions/live')).statusCode, 204);
    assertNotFound(await t.storefront(shop).get('/regions/live'));
    assertNotFound(await t.admin(shop).post('/regions/live/publish'));
    assertNotFound(await t.admin(shop).delete('/regions/live'));
    assert.deepEqual(await api.contentEvents(shop), [
      { kind: 'region', key: 'live', storeId: shop.store.id },
      { kind: 'region', key: 'live', deleted: true, storeId: shop.store.id },
    ]);
  });

  test('admin list: summaries ordered by key, cursor-paginated', async () => {
    const shop = await createTestStore(t);
    const keys = ['footer', 'home-hero', 'about-banner', 'home', 'z', '404'];
    for (const key of keys) await saveDraft(shop, key, OTHER);
    await publish(shop, 'home');
    const seen: { key: string; publishedAt: string | null; hasUnpublishedChanges: boolean }[] = [];
    let cursor: string | null = null;
    do {
      const response = await t
        .admin(shop)
        .get(`/regions?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json<Envelope<(typeof seen)[number] & Record<string, unknown>>>();
      for (const item of page.items) {
        assert.deepEqual(Object.keys(item).sort(), [
          'createdAt',
          'draftUpdatedAt',
          'hasUnpublishedChanges',
          'id',
          'key',
          'publishedAt',
        ]);
      }
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(
      seen.map((region) => region.key),
      [...keys].sort(),
    );
    const home = seen.find((region) => region.key === 'home')!;
    assert.match(home.publishedAt!, ISO);
    assert.equal(home.hasUnpublishedChanges, false);
    const footer = seen.find((region) => region.key === 'footer')!;
    assert.equal(footer.publishedAt, null);
    assert.equal(footer.hasUnpublishedChanges, true);
    assert.deepEqual(pointersOf(await t.admin(shop).get('/regions?limit=0')), ['/limit']);
    assert.deepEqual(pointersOf(await t.admin(shop).get('/regions?cursor=abc.def')), ['/cursor']);
  });
});

describe('regions: storefront caching, tenancy, roles', () => {
  test('ETag and 304 on the published region; a republish changes the ETag; a draft save does not', async () => {
    const shop = await createTestStore(t);
    await saveDraft(shop, 'home', HERO);
    await publish(shop, 'home');
    const first = await t.storefront(shop).get('/regions/home');
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(first.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=300');
    assert.equal(first.headers.vary, 'X-Publishable-Key, Authorization, Origin');
    const cached = await t.storefront(shop).get('/regions/home', { 'if-none-match': `"x", ${etag}` });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.body, '');

    await saveDraft(shop, 'home', OTHER);
    assert.equal((await t.storefront(shop).get('/regions/home', { 'if-none-match': etag })).statusCode, 304);
    await publish(shop, 'home');
    const fresh = await t.storefront(shop).get('/regions/home', { 'if-none-match': etag });
    assert.equal(fresh.statusCode, 200);
    assert.notEqual(fresh.headers.etag, etag);
    assert.deepEqual(fresh.json<PublishedRegion>().blocks, OTHER);
  });

  test("another store's regions are never visible, publishable or deletable", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    await saveDraft(a, 'home', HERO);
    await publish(a, 'home');
    await saveDraft(a, 'draft-only', OTHER);

    assertNotFound(await t.storefront(b).get('/regions/home'));
    assertNotFound(await t.admin(b).get('/regions/home/draft'));
    assertNotFound(await t.admin(b).get('/regions/home'));
    assertNotFound(await t.admin(b).post('/regions/draft-only/publish'));
    assertNotFound(await t.admin(b).delete('/regions/home'));
    assert.deepEqual((await t.admin(b).get('/regions')).json(), { items: [], nextCursor: null });

    // b's own region of the same key is independent.
    await saveDraft(b, 'home', OTHER);
    await publish(b, 'home');
    assert.deepEqual((await t.storefront(a).get('/regions/home')).json<PublishedRegion>().blocks, HERO);
    assert.deepEqual((await t.storefront(b).get('/regions/home')).json<PublishedRegion>().blocks, OTHER);
    assertNotFound(await t.storefront(a).get('/regions/draft-only'));
    assert.equal((await t.admin(a).get('/regions')).json<Envelope<unknown>>().items.length, 2);
    assert.deepEqual(await api.contentEvents(a), [{ kind: 'region', key: 'home', storeId: a.store.id }]);
    assert.deepEqual(await api.contentEvents(b), [{ kind: 'region', key: 'home', storeId: b.store.id }]);
  });

  test('every staff role may edit and publish regions; no credentials is 401', async () => {
    const shop = await createTestStore(t);
    for (const role of ['admin', 'staff'] as const) {
      const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
      await addStaffMember(t.deps, shop.store.id, { email, role });
      const { token } = await openStaffSession(t.deps, shop.store.id, email);
      assert.equal((await t.admin(token).put(`/regions/${role}/draft`, { blocks: OTHER })).statusCode, 200);
      assert.equal((await t.admin(token).post(`/regions/${role}/publish`)).statusCode, 200);
      assert.equal((await t.admin(token).get('/regions')).statusCode, 200);
      assert.equal((await t.admin(token).delete(`/regions/${role}`)).statusCode, 204);
    }
    for (const [method, url] of [
      ['GET', '/admin/v1/regions'],
      ['GET', '/admin/v1/regions/home/draft'],
      ['PUT', '/admin/v1/regions/home/draft'],
      ['POST', '/admin/v1/regions/home/publish'],
      ['DELETE', '/admin/v1/regions/home'],
      ['GET', '/storefront/v1/regions/home'],
    ] as const) {
      const response = await t.app.inject({
        method,
        url,
        ...(method === 'PUT' ? { payload: { blocks: [] } } : {}),
      });
      assert.equal(response.statusCode, 401, `${method} ${url}`);
    }
    // An unauthenticated draft with a broken tree is still 401, not 400.
    const broken = await t.app.inject({
      method: 'PUT',
      url: '/admin/v1/regions/x/draft',
      payload: { blocks: [1] },
    });
    assert.equal(broken.statusCode, 401);
  });
});

describe('content in the OpenAPI document', () => {
  test('every content route is documented with its tag, a summary and a success response', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<
        string,
        Record<string, { tags?: string[]; summary?: string; responses?: Record<string, unknown> }>
      >;
    }>();
    const expected: [string, string, string][] = [
      ['/admin/v1/menus', 'get', 'Admin: content'],
      ['/admin/v1/menus/{handle}', 'get', 'Admin: content'],
      ['/admin/v1/menus/{handle}', 'put', 'Admin: content'],
      ['/admin/v1/menus/{handle}', 'delete', 'Admin: content'],
      ['/admin/v1/pages', 'get', 'Admin: content'],
      ['/admin/v1/pages/{slug}', 'get', 'Admin: content'],
      ['/admin/v1/pages/{slug}', 'put', 'Admin: content'],
      ['/admin/v1/pages/{slug}', 'delete', 'Admin: content'],
      ['/admin/v1/regions', 'get', 'Admin: content'],
      ['/admin/v1/regions/{key}', 'get', 'Admin: content'],
      ['/admin/v1/regions/{key}', 'delete', 'Admin: content'],
      ['/admin/v1/regions/{key}/draft', 'get', 'Admin: content'],
      ['/admin/v1/regions/{key}/draft', 'put', 'Admin: content'],
      ['/admin/v1/regions/{key}/publish', 'post', 'Admin: content'],
      ['/storefront/v1/menus', 'get', 'Storefront: content'],
      ['/storefront/v1/menus/{handle}', 'get', 'Storefront: content'],
      ['/storefront/v1/pages', 'get', 'Storefront: content'],
      ['/storefront/v1/pages/{slug}', 'get', 'Storefront: content'],
      ['/storefront/v1/regions/{key}', 'get', 'Storefront: content'],
    ];
    for (const [path, method, tag] of expected) {
      const operation = doc.paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is documented`);
      assert.deepEqual(operation.tags, [tag]);
      assert.ok(operation.summary);
      assert.ok(Object.keys(operation.responses ?? {}).some((code) => code.startsWith('2')));
    }
  });
});

describe('content: concurrent writes', () => {
  test('parallel identical writes make one change and record exactly one event', async () => {
    const shop = await createTestStore(t);
    const menus = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.admin(shop).put('/menus/main', { items: [{ label: 'Home', url: '/' }] }),
      ),
    );
    assert.deepEqual(
      menus.map((response) => response.statusCode),
      Array<number>(8).fill(200),
    );
    assert.equal(new Set(menus.map((response) => response.json<{ id: string }>().id)).size, 1);

    await saveDraft(shop, 'home', HERO);
    const publishes = await Promise.all(
      Array.from({ length: 8 }, () => t.admin(shop).post('/regions/home/publish')),
    );
    assert.deepEqual(
      publishes.map((response) => response.statusCode),
      Array<number>(8).fill(200),
    );
    assert.equal(
      new Set(publishes.map((response) => response.body)).size,
      1,
      'every caller sees the one publish',
    );
    assert.deepEqual(await api.contentEvents(shop), [
      { kind: 'menu', handle: 'main', storeId: shop.store.id },
      { kind: 'region', key: 'home', storeId: shop.store.id },
    ]);
  });
});
