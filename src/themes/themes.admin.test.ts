import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listEvents } from '../events/events.ts';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const as = (token: string) => ({ authorization: `Bearer ${token}` });

interface ThemeBody {
  id: string;
  name: string;
  settings: Record<string, unknown>;
  live: boolean;
  publishedAt: string | null;
}

describe('themes', () => {
  test('create, list and publish themes; exactly one is live; publishing emits theme.published', async () => {
    const shop = await createTestStore(t);
    const headers = as(shop.staffToken);
    const create = (name: string) =>
      t.app.inject({
        method: 'POST',
        url: '/admin/v1/themes',
        headers,
        payload: { name, settings: { colors: { primary: '#000' }, fontSize: 16 } },
      });
    const dawn = await create('Dawn');
    assert.equal(dawn.statusCode, 201, dawn.body);
    const first = dawn.json<ThemeBody>();
    assert.deepEqual(first.settings, { colors: { primary: '#000' }, fontSize: 16 });
    assert.equal(first.live, false);
    const second = (await create('Sense')).json<ThemeBody>();

    const published = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/themes/${first.id}/publish`,
      headers,
    });
    assert.equal(published.statusCode, 200, published.body);
    assert.equal(published.json<ThemeBody>().live, true);
    const again = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/themes/${first.id}/publish`,
      headers,
    });
    assert.equal(again.statusCode, 200);
    await t.app.inject({ method: 'POST', url: `/admin/v1/themes/${second.id}/publish`, headers });

    const list = await t.app.inject({ method: 'GET', url: '/admin/v1/themes', headers });
    const themes = list.json<{ items: ThemeBody[]; nextCursor: null }>().items;
    assert.deepEqual(
      themes.map((theme) => [theme.name, theme.live]),
      [
        ['Dawn', false],
        ['Sense', true],
      ],
    );
    const one = await t.app.inject({ method: 'GET', url: `/admin/v1/themes/${second.id}`, headers });
    assert.equal(one.json<ThemeBody>().live, true);

    const events = await listEvents(t.db.kysely, shop.store.id, { type: 'theme.published' });
    assert.deepEqual(
      events.map((event) => event.data),
      [
        { themeId: first.id, name: 'Dawn', previousThemeId: null, storeId: shop.store.id },
        { themeId: second.id, name: 'Sense', previousThemeId: first.id, storeId: shop.store.id },
      ],
      'republishing the live theme records nothing',
    );
  });

  test('concurrent publishes leave exactly one live theme', async () => {
    const shop = await createTestStore(t);
    const headers = as(shop.staffToken);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/themes',
        headers,
        payload: { name: `T${i}` },
      });
      ids.push(response.json<ThemeBody>().id);
    }
    const responses = await Promise.all(
      ids.map((id) => t.app.inject({ method: 'POST', url: `/admin/v1/themes/${id}/publish`, headers })),
    );
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    const live = await t.db.kysely
      .selectFrom('themes')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .where('live', '=', true)
      .execute();
    assert.equal(live.length, 1);
    assert.equal((await listEvents(t.db.kysely, shop.store.id, { type: 'theme.published' })).length, 5);
  });

  test('theme input is validated', async () => {
    const shop = await createTestStore(t);
    for (const payload of [
      {},
      { name: '' },
      { name: 'x', settings: [] },
      { name: 'x', settings: 'dark' },
      { name: 'x', extra: true },
      { name: 'x', settings: { big: 'x'.repeat(70_000) } },
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/themes',
        headers: as(shop.staffToken),
        payload,
      });
      assert.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 80));
    }
    const missing = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/themes/6b0e7c4e-8f0a-4b8e-9d59-3a2f1e0c9b11/publish',
      headers: as(shop.staffToken),
    });
    assert.equal(missing.statusCode, 404);
  });
});
