import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addStaffMember, openStaffSession } from '../staff/staff.service.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const KEYS = '/admin/v1/integrations/storefront-keys';
const as = (token: string) => ({ authorization: `Bearer ${token}` });

async function tokenFor(shop: TestStore, role: 'admin' | 'staff'): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  await addStaffMember(t.deps, shop.store.id, { email, role });
  return (await openStaffSession(t.deps, shop.store.id, email)).token;
}

/** A key made through the admin API, without allowed origins: its id and the full key. */
async function createKey(shop: TestStore, label: string): Promise<{ id: string; key: string }> {
  const created = await t.app.inject({
    method: 'POST',
    url: KEYS,
    headers: as(shop.staffToken),
    payload: { label, allowedOrigins: [] },
  });
  assert.equal(created.statusCode, 201, created.body);
  return created.json<{ id: string; key: string }>();
}

describe('storefront keys', () => {
  test('create shows the full key once; list and get never do; the key opens the storefront', async () => {
    const shop = await createTestStore(t);
    const created = await t.app.inject({
      method: 'POST',
      url: KEYS,
      headers: as(shop.staffToken),
      payload: { label: 'Web shop', allowedOrigins: ['https://Shop.Example.com', 'http://localhost:5173'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = created.json<{
      id: string;
      label: string;
      keyPrefix: string;
      key: string;
      allowedOrigins: string[];
      createdAt: string;
    }>();
    assert.match(key.key, /^pk_[0-9A-Za-z]{32}$/);
    assert.equal(key.keyPrefix, key.key.slice(0, 12));
    assert.deepEqual(key.allowedOrigins, ['https://shop.example.com', 'http://localhost:5173']);
    assert.ok(Date.parse(key.createdAt));

    const list = await t.app.inject({ method: 'GET', url: KEYS, headers: as(shop.staffToken) });
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(key.key), 'the list never shows a full key');
    const items = list.json<{ items: { id: string; keyPrefix: string }[]; nextCursor: null }>().items;
    assert.ok(items.some((item) => item.id === key.id && item.keyPrefix === key.keyPrefix));

    const one = await t.app.inject({ method: 'GET', url: `${KEYS}/${key.id}`, headers: as(shop.staffToken) });
    assert.equal(one.statusCode, 200);
    assert.equal(one.json<{ key?: string }>().key, undefined);

    const store = await t.app.inject({
      method: 'GET',
      url: '/storefront/v1/store',
      headers: { 'x-publishable-key': key.key, origin: 'https://shop.example.com' },
    });
    assert.equal(store.statusCode, 200);

    const stored = await t.db.kysely
      .selectFrom('credentials')
      .select('hash')
      .where('subject_id', '=', key.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(stored.hash, key.key);
    assert.match(stored.hash, /^[0-9a-f]{64}$/);
  });

  test('revoking a key makes it 401 at once', async () => {
    const shop = await createTestStore(t);
    const key = await createKey(shop, 'temp');
    const read = () =>
      t.app.inject({ method: 'GET', url: '/storefront/v1/store', headers: { 'x-publishable-key': key.key } });
    assert.equal((await read()).statusCode, 200);
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `${KEYS}/${key.id}`,
      headers: as(shop.staffToken),
    });
    assert.equal(revoked.statusCode, 204);
    assert.equal((await read()).statusCode, 401);
    const shown = await t.app.inject({
      method: 'GET',
      url: `${KEYS}/${key.id}`,
      headers: as(shop.staffToken),
    });
    assert.ok(shown.json<{ revokedAt: string | null }>().revokedAt);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `${KEYS}/${key.id}`, headers: as(shop.staffToken) }))
        .statusCode,
      204,
    );
  });

  test('invalid origins are 400 with a pointer to each', async () => {
    const shop = await createTestStore(t);
    for (const origin of [
      '*',
      'https://shop.example/path',
      'ftp://shop.example',
      'shop.example',
      'https://*.example.com',
      'https://shop.example/',
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url: KEYS,
        headers: as(shop.staffToken),
        payload: { label: 'x', allowedOrigins: ['https://ok.example', origin] },
      });
      assert.equal(response.statusCode, 400, origin);
      const body = response.json<{ title: string; errors: { pointer: string }[] }>();
      assert.equal(body.title, 'validation_failed');
      assert.deepEqual(
        body.errors.map((e) => e.pointer),
        ['/allowedOrigins/1'],
        origin,
      );
    }
  });

  test('PATCH changes label, origins and rate-limit overrides', async () => {
    const shop = await createTestStore(t);
    const key = await createKey(shop, 'a');
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${KEYS}/${key.id}`,
      headers: as(shop.staffToken),
      payload: {
        label: 'b',
        allowedOrigins: ['https://new.example'],
        rateLimits: { publicRead: 100_000, publicWrite: null },
      },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json<{ label: string; allowedOrigins: string[]; rateLimits: unknown }>(), {
      ...patched.json(),
      label: 'b',
      allowedOrigins: ['https://new.example'],
      rateLimits: { publicRead: 100_000, publicWrite: null },
    });
    const denied = await t.app.inject({
      method: 'GET',
      url: '/storefront/v1/store',
      headers: { 'x-publishable-key': key.key, origin: 'https://old.example' },
    });
    assert.equal(denied.statusCode, 403);
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `${KEYS}/${key.id}`,
      headers: as(shop.staffToken),
      payload: { rateLimits: { publicRead: 0 } },
    });
    assert.equal(bad.statusCode, 400);
    // Decision `key-budget-is-a-safety-cap`: a key's budget is shared by every shopper, so it is never below 50 clients' budgets.
    const { ipRead, ipWrite } = t.config.rateLimits;
    const small = await t.app.inject({
      method: 'PATCH',
      url: `${KEYS}/${key.id}`,
      headers: as(shop.staffToken),
      payload: { rateLimits: { publicRead: 50 * ipRead - 1, publicWrite: 50 * ipWrite } },
    });
    assert.equal(small.statusCode, 400);
    assert.deepEqual(
      small
        .json<{ errors: { pointer: string; detail: string }[] }>()
        .errors.map((e) => [e.pointer, e.detail]),
      [['/rateLimits/publicRead', `must be at least ${50 * ipRead} (null restores the default)`]],
    );
  });

  test("a store's token never reaches another store's keys", async () => {
    const a = await createTestStore(t);
    const b = await createTestStore(t);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await t.app.inject({
        method,
        url: `${KEYS}/${b.keyId}`,
        headers: as(a.staffToken),
        ...(method === 'PATCH' ? { payload: { label: 'stolen' } } : {}),
      });
      assert.equal(response.statusCode, 404, method);
    }
    const list = await t.app.inject({ method: 'GET', url: KEYS, headers: as(a.staffToken) });
    assert.ok(!list.body.includes(b.keyId));
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: '/storefront/v1/store',
          headers: { 'x-publishable-key': b.publishableKey },
        })
      ).statusCode,
      200,
      "b's key still works",
    );
  });

  test('malformed ids are 400', async () => {
    const shop = await createTestStore(t);
    const response = await t.app.inject({
      method: 'GET',
      url: `${KEYS}/not-a-uuid`,
      headers: as(shop.staffToken),
    });
    assert.equal(response.statusCode, 400);
  });
});

describe('roles', () => {
  test('staff cannot manage keys or settings; admin can; only owner manages staff', async () => {
    const shop = await createTestStore(t);
    const admin = await tokenFor(shop, 'admin');
    const staff = await tokenFor(shop, 'staff');
    const calls = [
      { method: 'GET' as const, url: KEYS },
      { method: 'POST' as const, url: KEYS, payload: { label: 'x', allowedOrigins: [] } },
      { method: 'GET' as const, url: `${KEYS}/${shop.keyId}` },
      { method: 'PATCH' as const, url: `${KEYS}/${shop.keyId}`, payload: { label: 'y' } },
      { method: 'PUT' as const, url: '/admin/v1/settings', payload: { name: 'Renamed' } },
    ];
    for (const call of calls) {
      const denied = await t.app.inject({ ...call, headers: as(staff) });
      assert.equal(denied.statusCode, 403, `staff ${call.method} ${call.url}`);
      assert.equal(denied.json<{ title: string }>().title, 'forbidden');
      const allowed = await t.app.inject({ ...call, headers: as(admin) });
      assert.ok(allowed.statusCode < 300, `admin ${call.method} ${call.url}: ${allowed.statusCode}`);
    }
    for (const token of [admin, staff]) {
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/admin/v1/staff', headers: as(token) })).statusCode,
        403,
      );
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: '/admin/v1/staff',
            headers: as(token),
            payload: { email: 'a@b.co', role: 'owner' },
          })
        ).statusCode,
        403,
      );
    }
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `${KEYS}/${shop.keyId}`, headers: as(staff) })).statusCode,
      403,
    );
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/admin/v1/settings', headers: as(staff) })).statusCode,
      200,
      'any staff reads settings',
    );
  });

  test('every admin route except sign-in and verify needs a token', async () => {
    const routes: [string, string][] = [
      ['GET', KEYS],
      ['POST', KEYS],
      ['GET', '/admin/v1/staff'],
      ['POST', '/admin/v1/staff'],
      ['GET', '/admin/v1/settings'],
      ['PUT', '/admin/v1/settings'],
      ['GET', '/admin/v1/auth/session'],
      ['POST', '/admin/v1/auth/sign-out'],
    ];
    for (const [method, url] of routes) {
      const response = await t.app.inject({
        method: method as 'GET',
        url,
        ...(method === 'GET' ? {} : { payload: {} }),
      });
      assert.equal(response.statusCode, 401, `${method} ${url}`);
    }
  });
});

describe('settings', () => {
  test('GET and PUT the store settings', async () => {
    const shop = await createTestStore(t);
    const before = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/settings',
      headers: as(shop.staffToken),
    });
    assert.equal(
      before.json<{ replyToEmail: string }>().replyToEmail,
      shop.ownerEmail,
      'reply-to defaults to the owner',
    );
    const updated = await t.app.inject({
      method: 'PUT',
      url: '/admin/v1/settings',
      headers: as(shop.staffToken),
      payload: { name: 'New Name', replyToEmail: 'Help@Shop.Example' },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(
      {
        name: updated.json<{ name: string }>().name,
        replyToEmail: updated.json<{ replyToEmail: string }>().replyToEmail,
      },
      { name: 'New Name', replyToEmail: 'help@shop.example' },
    );
    const store = await t.app.inject({
      method: 'GET',
      url: '/storefront/v1/store',
      headers: { 'x-publishable-key': shop.publishableKey },
    });
    assert.equal(store.json<{ name: string }>().name, 'New Name');

    const bad = await t.app.inject({
      method: 'PUT',
      url: '/admin/v1/settings',
      headers: as(shop.staffToken),
      payload: { replyToEmail: 'nope' },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json<{ errors: { pointer: string }[] }>().errors[0]?.pointer, '/replyToEmail');
    const cleared = await t.app.inject({
      method: 'PUT',
      url: '/admin/v1/settings',
      headers: as(shop.staffToken),
      payload: { replyToEmail: null },
    });
    assert.equal(
      cleared.statusCode,
      400,
      'the reply-to address is never emptied (decision `reply-to-required`)',
    );
    const kept = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/settings',
      headers: as(shop.staffToken),
    });
    assert.equal(kept.json<{ replyToEmail: string }>().replyToEmail, 'help@shop.example');
    const slug = await t.app.inject({
      method: 'PUT',
      url: '/admin/v1/settings',
      headers: as(shop.staffToken),
      payload: { slug: 'x' },
    });
    assert.equal(slug.statusCode, 400);
  });
});
