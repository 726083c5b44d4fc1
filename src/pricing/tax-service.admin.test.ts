/**
 * The tax service's admin routes (decision `tax-service`): URLs checked by the webhook SSRF rules,
 * the secret made and shown once (and on rotation), sealed at rest, reads without it, tenant
 * scoping and roles.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { memberToken } from '../email/email.test-support.ts';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { webhookTestConfig } from '../webhooks/webhooks.test-support.ts';
import { openTaxServiceSecret } from './tax-service.secret.ts';

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

interface Service {
  url: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

const URL_A = 'https://tax.example.com/quote';
const URL_B = 'https://tax.example.com/v2/quote';

describe('tax service admin routes', () => {
  test('https only; private, loopback and metadata addresses refused without ALLOW_HTTP_WEBHOOKS', async () => {
    const shop = await createTestStore(strict);
    for (const url of [
      'http://tax.example.com/quote',
      'http://127.0.0.1:8080/quote',
      'https://127.0.0.1/quote',
      'https://localhost/quote',
      'https://10.1.2.3/quote',
      'https://[::1]/quote',
      'https://169.254.169.254/latest',
      'https://metadata.google.internal/quote',
      'ftp://tax.example.com/quote',
      'not a url',
    ]) {
      const response = await strict.admin(shop).put('/tax-service', { url });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      const problem = response.json<{ title: string; errors: { pointer: string }[] }>();
      assert.equal(problem.title, 'validation_failed');
      assert.deepEqual(
        problem.errors.map((error) => error.pointer),
        ['/url'],
      );
    }
    const unknown = await strict.admin(shop).put('/tax-service', { url: URL_A, secret: 'whsec_mine' });
    assert.equal(unknown.statusCode, 400, 'unknown fields are refused');
    assert.equal((await strict.admin(shop).get('/tax-service')).statusCode, 404, 'nothing was kept');
  });

  test('the secret is made and shown once, sealed at rest; reads and changes never show it', async () => {
    const shop = await createTestStore(t);
    const created = await t.admin(shop).put('/tax-service', { url: URL_A });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers['cache-control'], 'no-store');
    const service = created.json<Service>();
    assert.match(service.secret!, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(service.url, URL_A);
    assert.equal(service.active, true);

    const row = await t.db.kysely
      .selectFrom('tax_services')
      .selectAll()
      .where('store_id', '=', shop.store.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.secret_ciphertext.includes(service.secret!.slice(6)), 'sealed, not in plaintext');
    assert.equal(
      openTaxServiceSecret(t.runtime.keyring, shop.store.id, row.secret_ciphertext),
      service.secret,
    );

    const read = await t.admin(shop).get('/tax-service');
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), {
      url: URL_A,
      active: true,
      createdAt: service.createdAt,
      updatedAt: service.updatedAt,
    });

    const changed = await t.admin(shop).put('/tax-service', { url: URL_B, active: false });
    assert.equal(changed.statusCode, 200, changed.body);
    const after = changed.json<Service>();
    assert.equal(after.secret, undefined, 'a change does not show the secret');
    assert.equal(after.url, URL_B);
    assert.equal(after.active, false);
    assert.equal(after.createdAt, service.createdAt);
    const kept = await t.db.kysely
      .selectFrom('tax_services')
      .select('secret_ciphertext')
      .where('store_id', '=', shop.store.id)
      .executeTakeFirstOrThrow();
    assert.equal(kept.secret_ciphertext, row.secret_ciphertext, 'the secret stays when the URL changes');
  });

  test('rotate-secret shows a new secret once; the old one no longer opens', async () => {
    const shop = await createTestStore(t);
    assert.equal((await t.admin(shop).post('/tax-service/rotate-secret')).statusCode, 404);
    const { secret } = (await t.admin(shop).put('/tax-service', { url: URL_A })).json<Service>();
    const rotated = await t.admin(shop).post('/tax-service/rotate-secret');
    assert.equal(rotated.statusCode, 200, rotated.body);
    const fresh = rotated.json<Service>().secret!;
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, secret);
    const row = await t.db.kysely
      .selectFrom('tax_services')
      .select('secret_ciphertext')
      .where('store_id', '=', shop.store.id)
      .executeTakeFirstOrThrow();
    assert.equal(openTaxServiceSecret(t.runtime.keyring, shop.store.id, row.secret_ciphertext), fresh);
    assert.ok(!(await t.admin(shop).get('/tax-service')).body.includes('whsec_'));
  });

  test('DELETE removes it; a second DELETE and a GET are 404 problems', async () => {
    const shop = await createTestStore(t);
    await t.admin(shop).put('/tax-service', { url: URL_A });
    assert.equal((await t.admin(shop).delete('/tax-service')).statusCode, 204);
    const gone = await t.admin(shop).get('/tax-service');
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json<{ title: string }>().title, 'not_found');
    assert.equal((await t.admin(shop).delete('/tax-service')).statusCode, 404);
    const again = await t.admin(shop).put('/tax-service', { url: URL_A });
    assert.equal(again.statusCode, 201, 'a new service gets a new secret');
  });

  test('a store sees and changes only its own service', async () => {
    const [mine, other] = await Promise.all([createTestStore(t), createTestStore(t)]);
    await t.admin(mine).put('/tax-service', { url: URL_A });
    assert.equal((await t.admin(other).get('/tax-service')).statusCode, 404);
    assert.equal((await t.admin(other).delete('/tax-service')).statusCode, 404);
    assert.equal((await t.admin(other).post('/tax-service/rotate-secret')).statusCode, 404);
    assert.equal((await t.admin(mine).get('/tax-service')).json<Service>().url, URL_A);
  });

  test('owners and admins only: a staff member is refused', async () => {
    const shop = await createTestStore(t);
    const staff = await memberToken(t, shop, 'staff');
    for (const [method, url] of [
      ['PUT', '/tax-service'],
      ['GET', '/tax-service'],
      ['DELETE', '/tax-service'],
      ['POST', '/tax-service/rotate-secret'],
    ] as const) {
      const response = await t
        .admin(staff)
        .request(method, url, method === 'PUT' ? { url: URL_A } : undefined);
      assert.equal(response.statusCode, 403, `${method} ${url}`);
    }
    const admin = await memberToken(t, shop, 'admin');
    assert.equal((await t.admin(admin).put('/tax-service', { url: URL_A })).statusCode, 201);
  });
});
