/**
 * The console's serving and the dev mailbox, over HTTP: the static site (headers, caching,
 * compression, deep links, API paths untouched), ADMIN_UI=false, and the dev mailbox existing
 * only with the file transport outside production.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../config.ts';
import { createTestStore, startTestApp, waitForMail, type TestApp } from '../test/harness.ts';
import { readDevMailbox } from '../mail/dev-mailbox.ts';

/** A built app in a temporary directory: index.html, a hashed asset, a large script. */
function fixtureSite(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-site-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>Console</title><script type="module" src="/admin/assets/app-1.js"></script>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'app-1.js'), `console.log(${JSON.stringify('x'.repeat(5000))});`);
  return dir;
}

let t: TestApp;
let site: string;
before(async () => {
  site = fixtureSite();
  t = await startTestApp({ workers: true, consoleDir: site });
});
after(async () => {
  await t.close();
  fs.rmSync(site, { recursive: true, force: true });
});

describe('the console site at /admin', () => {
  test('index.html with strict security headers, revalidated by ETag', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/admin/' });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
    ])
      assert.ok(csp.includes(directive), directive);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['cache-control'], 'no-cache');
    const again = await t.app.inject({
      method: 'GET',
      url: '/admin/',
      headers: { 'if-none-match': String(page.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
  });

  test('deep links answer the app; /admin redirects to /admin/', async () => {
    const deep = await t.app.inject({ method: 'GET', url: '/admin/orders/0a1b?status=paid' });
    assert.equal(deep.statusCode, 200);
    assert.match(deep.body, /<title>Console<\/title>/);
    const bare = await t.app.inject({ method: 'GET', url: '/admin' });
    assert.equal(bare.statusCode, 308);
    assert.equal(bare.headers.location, '/admin/');
  });

  test('hashed assets are immutable and compressed when the client accepts it', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/admin/assets/app-1.js' });
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    const br = await t.app.inject({
      method: 'GET',
      url: '/admin/assets/app-1.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(br.rawPayload).toString(), plain.body);
    const gzip = await t.app.inject({
      method: 'GET',
      url: '/admin/assets/app-1.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(zlib.gunzipSync(gzip.rawPayload).toString(), plain.body);
  });

  test('API paths keep their problem+json answers; a missing asset is a 404', async () => {
    const api = await t.app.inject({ method: 'GET', url: '/admin/v1/nothing' });
    assert.equal(api.statusCode, 404);
    assert.equal(api.headers['content-type'], 'application/problem+json; charset=utf-8');
    const wrongMethod = await t.app.inject({ method: 'DELETE', url: '/admin/orders' });
    assert.equal(wrongMethod.statusCode, 404);
    const missing = await t.app.inject({ method: 'GET', url: '/admin/assets/nope.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
  });
});

describe('ADMIN_UI=false', () => {
  test('turns the console off: /admin/ is a 404 problem', async () => {
    const off = await startTestApp({ config: { adminUi: false }, consoleDir: site });
    try {
      const page = await off.app.inject({ method: 'GET', url: '/admin/' });
      assert.equal(page.statusCode, 404);
      assert.equal(loadConfig({ ADMIN_UI: 'false' }).adminUi, false);
      assert.equal(loadConfig({}).adminUi, true);
    } finally {
      await off.close();
    }
  });

  test('without a build, the console answers 503 saying how to build it', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-empty-'));
    const unbuilt = await startTestApp({ consoleDir: empty });
    try {
      const page = await unbuilt.app.inject({ method: 'GET', url: '/admin/' });
      assert.equal(page.statusCode, 503);
      assert.match(page.json<{ detail: string }>().detail, /npm run ui:build/);
    } finally {
      await unbuilt.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the reference shop at /shop', () => {
  test('index.html carries the current publishable key in a meta tag, escaped; deep links too; SHOP_UI=false turns it off', async () => {
    let key: string | null = 'pk_first0000';
    const shop = await startTestApp({ shopKey: () => key });
    try {
      const first = await shop.app.inject({ method: 'GET', url: '/shop/' });
      assert.equal(first.statusCode, 200);
      assert.match(
        first.body,
        /<meta name="storefront-publishable-key" content="pk_first0000" \/>\s*<\/head>/,
      );
      assert.match(String(first.headers['content-security-policy']), /script-src 'self'/);
      const deep = await shop.app.inject({ method: 'GET', url: '/shop/products/0a1b?variant=x' });
      assert.equal(deep.statusCode, 200);
      assert.match(deep.body, /content="pk_first0000"/);

      // Read on each load: a new key shows at once, with its own ETag.
      key = 'pk_"><script>alert(1)</script>';
      const second = await shop.app.inject({ method: 'GET', url: '/shop/' });
      assert.match(second.body, /content="pk_&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
      assert.doesNotMatch(second.body, /<script>alert/);
      assert.notEqual(second.headers.etag, first.headers.etag);
      key = null;
      const none = await shop.app.inject({ method: 'GET', url: '/shop/' });
      assert.doesNotMatch(none.body, /storefront-publishable-key/);
      assert.equal((await shop.app.inject({ method: 'GET', url: '/shop/assets/nope.js' })).statusCode, 404);
    } finally {
      await shop.close();
    }
    const off = await startTestApp({ config: { shopUi: false } });
    try {
      assert.equal((await off.app.inject({ method: 'GET', url: '/shop/' })).statusCode, 404);
      assert.equal(loadConfig({ SHOP_UI: 'false' }).shopUi, false);
      assert.equal(loadConfig({}).shopUi, true);
    } finally {
      await off.close();
    }
  });
});

describe('the dev mailbox', () => {
  test('shows platform mail (the sign-in code) read back from the file transport', async () => {
    const shop = await createTestStore(t);
    await t.app.inject({
      method: 'POST',
      url: '/admin/v1/auth/sign-in',
      payload: { storeSlug: shop.store.slug, email: shop.ownerEmail },
    });
    const sent = await waitForMail(t, shop.ownerEmail);
    const answer = await t.app.inject({ method: 'GET', url: '/admin/dev/mailbox' });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.headers['cache-control'], 'no-store');
    const mail = answer
      .json<{ mails: { to: string; subject: string; text: string; date: string }[] }>()
      .mails.find((m) => m.to.includes(shop.ownerEmail));
    assert.ok(mail, 'the sign-in mail is listed');
    assert.equal(mail.subject, sent.subject);
    const code = /\b(\d{6})\b/.exec(sent.text ?? '')![1]!;
    assert.ok(mail.text.includes(code), 'the code is readable');
    assert.ok(!Number.isNaN(Date.parse(mail.date)));
  });

  test("lists platform mail and customers' sign-in codes, newest first, decoding quoted-printable and encoded words", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-devmail-'));
    const eml = (tier: string, subject: string, body: string, kind = 'sign_in_code') =>
      [
        'From: Storefront <no-reply@platform.test>',
        'To: a@example.com',
        `Subject: ${subject}`,
        'Date: Mon, 23 Nov 2026 10:00:00 +0000',
        `X-Storefront-Mail-Tier: ${tier}`,
        `X-Storefront-Mail-Kind: ${kind}`,
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        body,
      ].join('\r\n');
    fs.writeFileSync(path.join(dir, '2026-11-23T10-00-00-000Z-a.eml'), eml('platform', 'First', 'one'));
    fs.writeFileSync(
      path.join(dir, '2026-11-23T10-00-01-000Z-b.eml'),
      eml('store', 'Order', 'store mail', 'order_confirmation'),
    );
    fs.writeFileSync(
      path.join(dir, '2026-11-23T10-00-02-000Z-c.eml'),
      eml('platform', '=?UTF-8?Q?Caf=C3=A9_code?=', 'Your code is 123456=\r\n, valid 10 min =E2=80=94 ok'),
    );
    fs.writeFileSync(
      path.join(dir, '2026-11-23T10-00-03-000Z-d.eml'),
      eml('store', '654321 is your code for Shop', 'shopper code', 'customer_sign_in_code'),
    );
    const mails = await readDevMailbox(dir);
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(
      mails.map((m) => [m.subject, m.text]),
      [
        ['654321 is your code for Shop', 'shopper code'],
        ['Café code', 'Your code is 123456, valid 10 min — ok'],
        ['First', 'one'],
      ],
    );
  });

  test('answers only requests from this machine addressed to a loopback name (decision `production-mode`)', async () => {
    const ask = (headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
      t.app.inject({ method: 'GET', url: '/admin/dev/mailbox', headers, remoteAddress });
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'shop.localhost', 'LOCALHOST']) {
      assert.equal((await ask({ host })).statusCode, 200, host);
    }
    assert.equal((await ask({ host: 'localhost:3000' }, '::1')).statusCode, 200, 'IPv6 loopback');
    const refused: { why: string; headers: Record<string, string>; remote: string }[] = [
      { why: 'another machine', headers: { host: 'localhost:3000' }, remote: '192.168.1.20' },
      { why: 'a DNS-rebinding page', headers: { host: 'attacker.example' }, remote: '127.0.0.1' },
      { why: 'a name for this machine', headers: { host: 'devbox.lan:3000' }, remote: '127.0.0.1' },
      {
        why: 'a proxy on this machine forwarding a client',
        headers: { host: 'localhost:3000', 'x-forwarded-for': '203.0.113.9' },
        remote: '127.0.0.1',
      },
      {
        why: 'a Forwarded header',
        headers: { host: 'localhost', forwarded: 'for=203.0.113.9' },
        remote: '::1',
      },
    ];
    for (const { why, headers, remote } of refused) {
      const answer = await ask(headers, remote);
      assert.equal(answer.statusCode, 403, why);
      assert.equal(answer.json<{ title: string }>().title, 'forbidden');
      assert.doesNotMatch(answer.body, /\d{6}/, `${why}: no code in the answer`);
    }
  });

  test('does not exist with SMTP or in production', async () => {
    assert.equal(loadConfig({ NODE_ENV: 'production', EMAIL_TRANSPORT: 'file:./mail' }).devMailbox, false);
    assert.equal(loadConfig({ EMAIL_TRANSPORT: 'smtp://127.0.0.1:2525' }).devMailbox, false);
    assert.equal(loadConfig({}).devMailbox, true);
    const smtp = await startTestApp({ config: { devMailbox: false } });
    try {
      const answer = await smtp.app.inject({ method: 'GET', url: '/admin/dev/mailbox' });
      assert.equal(answer.statusCode, 404);
    } finally {
      await smtp.close();
    }
  });
});
