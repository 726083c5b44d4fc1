import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addStaffMember, openStaffSession } from '../staff/staff.service.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { decryptSecret } from './webhooks.secrets.ts';
import { as, webhookTestConfig } from './webhooks.test-support.ts';

const ENDPOINTS = '/admin/v1/webhooks/endpoints';

let t: TestApp; // loopback http allowed (ALLOW_HTTP_WEBHOOKS=1)
let strict: TestApp; // the production default: https only, no loopback
before(async () => {
  [t, strict] = await Promise.all([
    startTestApp({ config: webhookTestConfig() }),
    startTestApp({ config: webhookTestConfig({ allowHttp: false }) }),
  ]);
});
after(async () => {
  await Promise.all([t.close(), strict.close()]);
});

interface EndpointBody {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
  secret?: string;
}

async function create(app: TestApp, shop: TestStore, payload: Record<string, unknown>) {
  return app.app.inject({ method: 'POST', url: ENDPOINTS, headers: as(shop.staffToken), payload });
}

async function tokenFor(app: TestApp, shop: TestStore, role: 'admin' | 'staff'): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  await addStaffMember(app.deps, shop.store.id, { email, role });
  return (await openStaffSession(app.deps, shop.store.id, email)).token;
}

describe('webhook endpoints', () => {
  test('create shows a whsec_ secret once, stored encrypted; list and get never show it', async () => {
    const shop = await createTestStore(t);
    const created = await create(t, shop, {
      url: 'https://hooks.example.com/storefront',
      events: ['order.paid', 'product.updated'],
      description: 'ERP sync',
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers['cache-control'], 'no-store');
    const endpoint = created.json<EndpointBody>();
    assert.match(endpoint.secret!, /^whsec_[A-Za-z0-9+/]{43}=$/, 'standard base64 of 32 bytes');
    assert.equal(Buffer.from(endpoint.secret!.slice(6), 'base64url').length, 32);
    assert.deepEqual(endpoint.events, ['order.paid', 'product.updated']);
    assert.equal(endpoint.url, 'https://hooks.example.com/storefront');
    assert.equal(endpoint.description, 'ERP sync');
    assert.equal(endpoint.enabled, true);
    assert.equal(endpoint.previousSecretExpiresAt, null);

    const list = await t.app.inject({ method: 'GET', url: ENDPOINTS, headers: as(shop.staffToken) });
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(endpoint.secret!), 'the list never shows the secret');
    assert.deepEqual(
      list.json<{ items: EndpointBody[] }>().items.map((item) => item.id),
      [endpoint.id],
    );
    const one = await t.app.inject({
      method: 'GET',
      url: `${ENDPOINTS}/${endpoint.id}`,
      headers: as(shop.staffToken),
    });
    assert.equal(one.statusCode, 200);
    assert.equal(one.json<EndpointBody>().secret, undefined);

    const row = await t.db.kysely
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(endpoint.secret!.slice(6)), 'the secret is not stored in clear');
    const key = t.runtime.keyring;
    assert.equal(decryptSecret(key, shop.store.id, endpoint.id, row.secret_ciphertext), endpoint.secret);
    assert.throws(
      () => decryptSecret(key, shop.store.id, shop.keyId, row.secret_ciphertext),
      'a ciphertext is bound to its endpoint',
    );
    assert.ok(!t.logs.some((line) => JSON.stringify(line).includes(endpoint.secret!)), 'never logged');
  });

  test('event names are validated against the ten types or *; unknown fields are 400', async () => {
    const shop = await createTestStore(t);
    for (const payload of [
      { url: 'https://hooks.example.com/a', events: ['order.shipped'] },
      { url: 'https://hooks.example.com/a', events: [] },
      { url: 'https://hooks.example.com/a', events: ['order.paid', 'order.paid'] },
      { url: 'https://hooks.example.com/a' },
      { url: 'https://hooks.example.com/a', events: ['*'], secret: 'whsec_mine' },
    ]) {
      const response = await create(t, shop, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(response.json<{ title: string }>().title, 'validation_failed');
    }
    const all = await create(t, shop, { url: 'https://hooks.example.com/a', events: ['*'] });
    assert.equal(all.statusCode, 201);
  });

  test('URLs: https only; private, loopback, link-local, multicast and metadata addresses are refused', async () => {
    const shop = await createTestStore(strict);
    const refused = [
      'http://hooks.example.com/a', // not https
      'ftp://hooks.example.com/a',
      'not a url',
      'https://user:pass@hooks.example.com/a', // credentials
      'https://localhost/a',
      'https://app.localhost/a',
      'https://127.0.0.1/a',
      'https://2130706433/a', // 127.0.0.1 in decimal
      'https://[::1]/a',
      'https://[::ffff:127.0.0.1]/a',
      'https://10.1.2.3/a',
      'https://172.16.0.5/a',
      'https://192.168.1.1/a',
      'https://100.64.0.1/a',
      'https://169.254.169.254/latest/meta-data',
      'https://169.254.10.10/a',
      'https://[fe80::1]/a',
      'https://[fd00:ec2::254]/a',
      'https://[fc00::1]/a',
      'https://224.0.0.1/a',
      'https://[ff02::1]/a',
      'https://0.0.0.0/a',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://intranet/a', // not a fully qualified name
    ];
    for (const url of refused) {
      const response = await create(strict, shop, { url, events: ['*'] });
      assert.equal(response.statusCode, 400, url);
      const problem = response.json<{ title: string; errors: { pointer: string }[] }>();
      assert.equal(problem.title, 'validation_failed', url);
      assert.deepEqual(
        problem.errors.map((e) => e.pointer),
        ['/url'],
        url,
      );
    }
    // The details say what would be accepted, and how to allow loopback and plain http in development.
    const detail = async (url: string, app = strict) =>
      (await create(app, shop, { url, events: ['*'] })).json<{ detail: string }>().detail;
    assert.equal(
      await detail('http://hooks.example.com/a'),
      'url must be an https URL (plain http is accepted only to a loopback address such as 127.0.0.1 or localhost, and only when the server runs with ALLOW_HTTP_WEBHOOKS=1, for development).',
    );
    for (const url of ['https://localhost/a', 'https://127.0.0.1/a', 'https://[::1]/a']) {
      assert.match(
        await detail(url),
        /^url is refused: .* is a loopback address \(accepted only when the server runs with ALLOW_HTTP_WEBHOOKS=1, for development\)\.$/,
        url,
      );
    }
    assert.equal(await detail('ftp://hooks.example.com/a'), 'url must be an https URL (not ftp:).');
    assert.equal(
      await detail('https://10.1.2.3/a'),
      'url is refused: 10.1.2.3 is a private address.',
      'no hint where the setting would not help',
    );
    for (const url of [
      'https://hooks.example.com/a?x=1',
      'https://93.184.215.14/a',
      'https://[2606:4700::1111]/',
    ]) {
      assert.equal((await create(strict, shop, { url, events: ['*'] })).statusCode, 201, url);
    }
  });

  test('with ALLOW_HTTP_WEBHOOKS, loopback is allowed (http only to loopback), private stays refused', async () => {
    const shop = await createTestStore(t);
    for (const url of [
      'http://127.0.0.1:9/a',
      'http://localhost:9/a',
      'https://127.0.0.1/a',
      'http://[::1]:9/',
    ]) {
      assert.equal((await create(t, shop, { url, events: ['*'] })).statusCode, 201, url);
    }
    for (const url of ['http://hooks.example.com/a', 'http://93.184.215.14/a', 'https://10.0.0.1/a']) {
      assert.equal((await create(t, shop, { url, events: ['*'] })).statusCode, 400, url);
    }
    const refused = await create(t, shop, { url: 'http://93.184.215.14/a', events: ['*'] });
    assert.equal(
      refused.json<{ detail: string }>().detail,
      'url is refused: 93.184.215.14 is not a loopback address (plain http is for loopback only).',
    );
  });

  test('PATCH changes url, events, description and enabled; DELETE removes; other stores see 404', async () => {
    const shop = await createTestStore(t);
    const other = await createTestStore(t);
    const endpoint = (
      await create(t, shop, { url: 'https://hooks.example.com/a', events: ['order.paid'] })
    ).json<EndpointBody>();
    const url = `${ENDPOINTS}/${endpoint.id}`;
    const patched = await t.app.inject({
      method: 'PATCH',
      url,
      headers: as(shop.staffToken),
      payload: { url: 'https://hooks.example.com/b', events: ['*'], description: 'new', enabled: false },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const body = patched.json<EndpointBody>();
    assert.equal(body.url, 'https://hooks.example.com/b');
    assert.deepEqual(body.events, ['*']);
    assert.equal(body.description, 'new');
    assert.equal(body.enabled, false);
    assert.equal(body.disabledReason, 'manual');

    const enabled = await t.app.inject({
      method: 'PATCH',
      url,
      headers: as(shop.staffToken),
      payload: { enabled: true },
    });
    assert.equal(enabled.json<EndpointBody>().disabledReason, null);

    for (const payload of [{}, { url: 'https://10.0.0.1/' }, { events: ['nope'] }, { secret: 'x' }]) {
      const response = await t.app.inject({ method: 'PATCH', url, headers: as(shop.staffToken), payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
    }

    for (const method of ['GET', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url, headers: as(other.staffToken) });
      assert.equal(response.statusCode, 404, `${method} from another store`);
    }
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url, headers: as(shop.staffToken) })).statusCode,
      204,
    );
    assert.equal((await t.app.inject({ method: 'GET', url, headers: as(shop.staffToken) })).statusCode, 404);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url, headers: as(shop.staffToken) })).statusCode,
      404,
    );
  });

  test('rotate-secret shows a new secret once and keeps the old one for 24 hours', async () => {
    const shop = await createTestStore(t);
    const endpoint = (
      await create(t, shop, { url: 'https://hooks.example.com/a', events: ['*'] })
    ).json<EndpointBody>();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `${ENDPOINTS}/${endpoint.id}/rotate-secret`,
      headers: as(shop.staffToken),
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal(rotated.headers['cache-control'], 'no-store');
    const body = rotated.json<EndpointBody>();
    assert.match(body.secret!, /^whsec_/);
    assert.notEqual(body.secret, endpoint.secret);
    const expires = Date.parse(body.previousSecretExpiresAt!);
    assert.ok(Math.abs(expires - (t.clock.now().getTime() + 24 * 3600 * 1000)) < 5000);
  });

  test('owners and admins only; a staff role is 403 and no session is 401', async () => {
    const shop = await createTestStore(t);
    const admin = await tokenFor(t, shop, 'admin');
    const staff = await tokenFor(t, shop, 'staff');
    assert.equal((await t.app.inject({ method: 'GET', url: ENDPOINTS, headers: as(admin) })).statusCode, 200);
    for (const [method, url, payload] of [
      ['GET', ENDPOINTS, undefined],
      ['POST', ENDPOINTS, { url: 'https://hooks.example.com/a', events: ['*'] }],
      ['GET', '/admin/v1/webhooks/deliveries', undefined],
      ['GET', '/admin/v1/themes', undefined],
      ['POST', '/admin/v1/themes', { name: 'Dawn', settings: {} }],
      ['POST', '/admin/v1/apps', { name: 'Reviews', scopes: [] }],
    ] as const) {
      const forbidden = await t.app.inject({
        method,
        url,
        headers: as(staff),
        ...(payload ? { payload } : {}),
      });
      assert.equal(forbidden.statusCode, 403, `${method} ${url} as staff`);
      const anonymous = await t.app.inject({ method, url, ...(payload ? { payload } : {}) });
      assert.equal(anonymous.statusCode, 401, `${method} ${url} without a session`);
    }
  });

  test('deliveries list validates its filters', async () => {
    const shop = await createTestStore(t);
    for (const query of ['status=lost', 'endpointId=nope', 'limit=0', 'other=1', 'cursor=abc']) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/admin/v1/webhooks/deliveries?${query}`,
        headers: as(shop.staffToken),
      });
      assert.equal(response.statusCode, 400, query);
    }
    const missing = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/webhooks/deliveries/6b0e7c4e-8f0a-4b8e-9d59-3a2f1e0c9b11/retry',
      headers: as(shop.staffToken),
    });
    assert.equal(missing.statusCode, 404);
  });
});
