import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { decryptPrivateKey } from './email.dkim.ts';
import { emailApi, memberToken, uniqueDomain } from './email.test-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function newShop() {
  const shop = await createTestStore(t);
  return { shop, api: emailApi(t, shop.staffToken) };
}

describe('POST /admin/v1/email/sending-domain', () => {
  test('201 with the domain pending and exactly the five DNS records of spec 2.14', async () => {
    const { shop, api } = await newShop();
    const domain = uniqueDomain();
    const response = await api.register(domain, 'orders');
    assert.equal(response.statusCode, 201, JSON.stringify(response.body));
    const body = response.body;
    assert.equal(body.domain, domain);
    assert.equal(body.status, 'pending');
    assert.equal(body.fromLocalPart, 'orders');
    assert.equal(body.lastCheckedAt, null);
    assert.equal(body.verifiedAt, null);
    assert.equal(body.failedAt, null);

    const records = body.dnsRecords;
    assert.equal(records.length, 5);
    const cnames = records.filter((r) => r.type === 'CNAME');
    assert.equal(cnames.length, 3);
    const tokens = cnames.map((r) => {
      const match = new RegExp(`^([a-z0-9]+)\\._domainkey\\.${domain.replaceAll('.', '\\.')}$`).exec(r.name);
      assert.ok(match, r.name);
      assert.equal(r.value, `${match[1]}.dkim.storefront.test`);
      assert.equal('priority' in r, false);
      return match[1]!;
    });
    assert.equal(new Set(tokens).size, 3, 'three distinct tokens');

    const mx = records.filter((r) => r.type === 'MX');
    assert.equal(mx.length, 1);
    assert.equal(mx[0]!.name, `mail.${domain}`);
    assert.equal(mx[0]!.value, 'feedback-smtp.storefront.test');
    assert.ok(Number.isInteger(mx[0]!.priority), 'MX priority is an integer');
    assert.equal(mx[0]!.priority, 10);

    const txt = records.filter((r) => r.type === 'TXT');
    assert.equal(txt.length, 1);
    assert.equal(txt[0]!.name, `mail.${domain}`);
    assert.match(txt[0]!.value, /^v=spf1 .*include:storefront\.test .*~all$/);

    for (const record of records) {
      assert.equal(record.status, 'pending');
      assert.deepEqual(
        Object.keys(record).sort(),
        record.type === 'MX'
          ? ['name', 'priority', 'status', 'type', 'value']
          : ['name', 'status', 'type', 'value'],
      );
    }

    const again = await api.get();
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.body, body);

    // One 2048-bit RSA key per token, the private half only encrypted at rest.
    const keys = await t.db.kysely
      .selectFrom('dkim_keys')
      .selectAll()
      .where('store_id', '=', shop.store.id)
      .orderBy('position')
      .execute();
    assert.deepEqual(
      keys.map((k) => k.token),
      tokens,
    );
    const encryptionKey = t.runtime.keyring;
    for (const key of keys) {
      assert.doesNotMatch(key.private_key_ciphertext, /PRIVATE KEY/);
      const pem = decryptPrivateKey(encryptionKey, shop.store.id, key.token, key.private_key_ciphertext);
      const privateKey = createPrivateKey(pem);
      // Neither the PEM text nor the key's DER bytes appear in what is stored.
      const pemBody = pem.split('\n').slice(1, 3).join('');
      assert.ok(!key.private_key_ciphertext.includes(pemBody.slice(0, 32)), 'no PEM text at rest');
      const der = privateKey.export({ type: 'pkcs8', format: 'der' }).subarray(40, 72);
      for (const part of key.private_key_ciphertext.split('.')) {
        assert.ok(!Buffer.from(part, 'base64url').includes(der), 'no key bytes at rest');
      }
      assert.equal(privateKey.asymmetricKeyDetails?.modulusLength, 2048);
      assert.equal(
        createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64'),
        key.public_key,
      );
      assert.throws(() =>
        decryptPrivateKey(encryptionKey, shop.store.id, 'other', key.private_key_ciphertext),
      );
    }
  });

  test('the domain is normalised: IDNA, lower case, no trailing dot', async () => {
    const domain = uniqueDomain();
    const first = await newShop();
    const upper = await first.api.register(`  ${domain.toUpperCase()}. `);
    assert.equal(upper.statusCode, 201);
    assert.equal(upper.body.domain, domain);
    assert.ok(upper.body.dnsRecords.every((r) => r.name.endsWith(`.${domain}`)));

    const second = await newShop();
    const idn = await second.api.register('bücher-laden.example');
    assert.equal(idn.statusCode, 201);
    assert.equal(idn.body.domain, 'xn--bcher-laden-thb.example');
    assert.equal(idn.body.dnsRecords[3]!.name, 'mail.xn--bcher-laden-thb.example');

    // The same name in another spelling is the same domain.
    const third = await newShop();
    const taken = await third.api.register('XN--BCHER-LADEN-THB.example.');
    assert.equal(taken.statusCode, 409);
    assert.equal(taken.body.title, 'domain_unavailable');
  });

  test('an invalid domain or local part is 400 validation_failed with a pointer', async () => {
    const { api } = await newShop();
    const badDomains = [
      'localhost',
      'example',
      'exa mple.com',
      '-bad.example.com',
      'bad-.example.com',
      'a..example.com',
      'foo_bar.example.com',
      '1.2.3.4',
      'https://example.com',
      'example.com/path',
      'user@example.com',
      `${'a'.repeat(64)}.example.com`,
      `${'abcdefghi.'.repeat(26)}com`,
      'example.123',
      '*.example.com',
      '.',
    ];
    for (const domain of badDomains) {
      const response = await api.register(domain);
      assert.equal(response.statusCode, 400, `${domain}: ${JSON.stringify(response.body)}`);
      const problem = response.body as unknown as { title: string; errors: { pointer: string }[] };
      assert.equal(problem.title, 'validation_failed');
      assert.deepEqual(
        problem.errors.map((e) => e.pointer),
        ['/domain'],
        domain,
      );
    }
    const badLocalParts = [
      'a..b',
      '.orders',
      'orders.',
      'a b',
      '"quoted"',
      'ünicode',
      'a@b',
      'x'.repeat(65),
      '',
    ];
    for (const local of badLocalParts) {
      const response = await api.register(uniqueDomain(), local);
      assert.equal(response.statusCode, 400, `${local}: ${JSON.stringify(response.body)}`);
      const problem = response.body as unknown as { errors: { pointer: string }[] };
      assert.deepEqual(
        problem.errors.map((e) => e.pointer),
        ['/fromLocalPart'],
        local,
      );
    }
    const unknownField = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/email/sending-domain',
      headers: { authorization: `Bearer ${(await newShop()).shop.staffToken}` },
      payload: { domain: uniqueDomain(), fromLocalPart: 'x', smtpPassword: 'nope' },
    });
    assert.equal(unknownField.statusCode, 400);
    assert.equal(unknownField.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/smtpPassword');
    const missing = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/email/sending-domain',
      headers: { authorization: `Bearer ${(await newShop()).shop.staffToken}` },
      payload: { domain: uniqueDomain() },
    });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json<{ errors: { pointer: string }[] }>().errors[0]!.pointer, '/fromLocalPart');

    const valid = await api.register(uniqueDomain(), "hello.world+tag!#$%&'*/=?^_`{|}~-");
    assert.equal(valid.statusCode, 201, JSON.stringify(valid.body));
  });

  test('one domain per store: a second registration is 409 sending_domain_exists', async () => {
    const { api } = await newShop();
    const domain = uniqueDomain();
    assert.equal((await api.register(domain)).statusCode, 201);
    for (const next of [domain, uniqueDomain()]) {
      const second = await api.register(next);
      assert.equal(second.statusCode, 409);
      assert.equal(second.body.title, 'sending_domain_exists');
    }
  });

  test("another store's domain is 409 domain_unavailable, without naming the store", async () => {
    const a = await newShop();
    const b = await newShop();
    const domain = uniqueDomain();
    assert.equal((await a.api.register(domain)).statusCode, 201);
    const taken = await b.api.register(`${domain.toUpperCase()}.`);
    assert.equal(taken.statusCode, 409);
    assert.equal(taken.body.title, 'domain_unavailable');
    const text = JSON.stringify(taken.body);
    assert.ok(
      !text.includes(a.shop.store.slug) &&
        !text.includes(a.shop.store.id) &&
        !text.includes(a.shop.store.name),
    );
    assert.equal((await b.api.sender()).body.domain, undefined, 'nothing was registered for B');
  });

  test('the platform mail domain and names under it belong to no store', async () => {
    const { api } = await newShop();
    for (const domain of ['storefront.test', 'mail.storefront.test', 'STOREFRONT.TEST.']) {
      const response = await api.register(domain);
      assert.equal(response.statusCode, 409, domain);
      assert.equal(response.body.title, 'domain_unavailable');
    }
  });

  test('concurrent registrations of one domain by several stores: exactly one wins', async () => {
    const shops = await Promise.all(Array.from({ length: 4 }, () => newShop()));
    const domain = uniqueDomain('race');
    const responses = await Promise.all(shops.map(({ api }) => api.register(domain)));
    const statuses = responses.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409], JSON.stringify(responses.map((r) => r.body)));
    assert.ok(
      responses.filter((r) => r.statusCode === 409).every((r) => r.body.title === 'domain_unavailable'),
    );
    const claims = await t.db.kysely
      .selectFrom('sending_domain_claims')
      .select('store_id')
      .where('domain', '=', domain)
      .execute();
    assert.equal(claims.length, 1);
    const winner = shops[responses.findIndex((r) => r.statusCode === 201)]!;
    assert.equal(claims[0]!.store_id, winner.shop.store.id);
    const rows = await t.db.kysely
      .selectFrom('sending_domains')
      .select('store_id')
      .where('domain', '=', domain)
      .execute();
    assert.deepEqual(rows, [{ store_id: winner.shop.store.id }]);
  });

  test('concurrent registrations of two domains by one store: exactly one wins', async () => {
    const { shop, api } = await newShop();
    const responses = await Promise.all([api.register(uniqueDomain()), api.register(uniqueDomain())]);
    assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 409]);
    assert.equal(responses.find((r) => r.statusCode === 409)!.body.title, 'sending_domain_exists');
    const claims = await t.db.kysely
      .selectFrom('sending_domain_claims')
      .select('domain')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(claims.length, 1, 'the loser left no claim behind');
  });

  test('the database refuses a second claim of a domain whatever the code does', async () => {
    const a = await newShop();
    const b = await newShop();
    const domain = uniqueDomain();
    await t.db.kysely
      .insertInto('sending_domain_claims')
      .values({ domain, store_id: a.shop.store.id })
      .execute();
    await assert.rejects(
      t.db.kysely.insertInto('sending_domain_claims').values({ domain, store_id: b.shop.store.id }).execute(),
    );
    // A domain row cannot name a domain its store has not claimed.
    await assert.rejects(
      t.db.kysely
        .insertInto('sending_domains')
        .values({
          store_id: b.shop.store.id,
          domain,
          from_local_part: 'x',
          window_started_at: new Date(),
          unproven_since: new Date(),
        })
        .execute(),
    );
  });
});

describe('DELETE /admin/v1/email/sending-domain', () => {
  test('204; the sender reverts to the fallback and the domain is free for any store', async () => {
    const a = await newShop();
    const b = await newShop();
    const domain = uniqueDomain();
    assert.equal((await a.api.register(domain)).statusCode, 201);
    assert.equal((await a.api.sender()).body.domain?.domain, domain);

    const removed = await a.api.remove();
    assert.equal(removed.statusCode, 204);
    assert.equal(removed.body, '');
    const state = await a.api.sender();
    assert.equal(state.body.mode, 'platform-fallback');
    assert.equal(state.body.domain, undefined);
    assert.equal((await a.api.get()).statusCode, 404);
    for (const table of [
      'sending_domains',
      'sending_domain_records',
      'dkim_keys',
      'sending_domain_claims',
    ] as const) {
      const rows = await t.db.kysely
        .selectFrom(table)
        .select('store_id')
        .where('store_id', '=', a.shop.store.id)
        .execute();
      assert.equal(rows.length, 0, `${table} is empty for the store`);
    }

    assert.equal((await b.api.register(domain)).statusCode, 201, 'another store may now register it');
    assert.equal((await a.api.remove()).statusCode, 404, 'nothing left to delete');
  });
});

describe('GET /admin/v1/email/sender', () => {
  test('platform-fallback before any domain: the no-reply address with the store name, the reply-to', async () => {
    const { shop, api } = await newShop();
    const state = await api.sender();
    assert.equal(state.statusCode, 200);
    assert.deepEqual(state.body, {
      mode: 'platform-fallback',
      effectiveFrom: 'no-reply@storefront.test',
      effectiveFromName: shop.store.name,
      replyTo: shop.ownerEmail,
    });
  });

  test('a pending domain is shown with its records, the mode stays platform-fallback', async () => {
    const { api } = await newShop();
    const registered = (await api.register(uniqueDomain(), 'hello')).body;
    const state = (await api.sender()).body;
    assert.equal(state.mode, 'platform-fallback');
    assert.equal(state.effectiveFrom, 'no-reply@storefront.test');
    assert.deepEqual(state.domain, registered);
  });

  test('the reply-to follows the store settings', async () => {
    const { shop, api } = await newShop();
    const put = await t.app.inject({
      method: 'PUT',
      url: '/admin/v1/settings',
      headers: { authorization: `Bearer ${shop.staffToken}` },
      payload: { replyToEmail: 'help@shop.example' },
    });
    assert.equal(put.statusCode, 200);
    assert.equal((await api.sender()).body.replyTo, 'help@shop.example');
  });
});

describe('roles and tenancy', () => {
  test('owner and admin may manage the sender; staff get 403 on every call; no session is 401', async () => {
    const { shop } = await newShop();
    const staff = emailApi(t, await memberToken(t, shop, 'staff'));
    for (const call of [
      () => staff.sender(),
      () => staff.register(uniqueDomain()),
      () => staff.get(),
      () => staff.verify(),
    ]) {
      const response = await call();
      assert.equal(response.statusCode, 403);
      assert.equal(response.body.title, 'forbidden');
    }
    const removal = await staff.remove();
    assert.equal(removal.statusCode, 403);
    assert.equal((JSON.parse(removal.body) as { title: string }).title, 'forbidden');
    const admin = emailApi(t, await memberToken(t, shop, 'admin'));
    assert.equal((await admin.register(uniqueDomain())).statusCode, 201);
    assert.equal((await admin.sender()).statusCode, 200);
    assert.equal((await admin.remove()).statusCode, 204);

    for (const [method, url] of [
      ['GET', '/admin/v1/email/sender'],
      ['POST', '/admin/v1/email/sending-domain'],
      ['POST', '/admin/v1/email/sending-domain/verify'],
      ['DELETE', '/admin/v1/email/sending-domain'],
    ] as const) {
      const response = await t.app.inject({ method, url });
      assert.equal(response.statusCode, 401, `${method} ${url}`);
    }
  });

  test("a store never sees, verifies or deletes another store's domain", async () => {
    const a = await newShop();
    const b = await newShop();
    const domain = uniqueDomain();
    assert.equal((await a.api.register(domain)).statusCode, 201);

    assert.equal((await b.api.sender()).body.domain, undefined);
    assert.equal((await b.api.get()).statusCode, 404);
    assert.equal((await b.api.verify()).statusCode, 404);
    assert.equal((await b.api.remove()).statusCode, 404);
    assert.equal((await a.api.get()).body.domain, domain, "A's domain is untouched");
  });
});
