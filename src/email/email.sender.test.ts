import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { enqueueMail, MAIL_LOOP } from '../mail/outbox.ts';
import { createTestStore, startTestApp, type TestApp } from '../test/harness.ts';
import { loadEmailIdentityConfig } from './email.config.ts';
import { platformDkimRecords } from './email.dkim.ts';
import { TestDnsServer } from './email.test-dns.ts';
import { emailApi, startSmtpSink, uniqueDomain, verifyDkim, type SmtpSink } from './email.test-support.ts';

let dns: TestDnsServer;
let smtp: SmtpSink;
/** Serves the Admin API; it runs no workers. */
let api: TestApp;
/** Another process on the same database: runs the worker loops and sends over SMTP. */
let worker: TestApp;

before(async () => {
  dns = await TestDnsServer.start();
  smtp = await startSmtpSink();
  const emailIdentity = loadEmailIdentityConfig({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '150ms' });
  api = await startTestApp({ config: { emailIdentity } });
  worker = await startTestApp({
    db: api.db,
    workers: true,
    config: { emailIdentity, emailTransport: { kind: 'smtp', url: smtp.url } },
  });
});
after(async () => {
  await worker.close();
  await api.close();
  await smtp.close();
  await dns.close();
});

/** Queues customer mail the way order mail is queued, and wakes the mail worker. */
async function sendStoreMail(storeId: string): Promise<string> {
  const to = `buyer-${randomUUID().slice(0, 8)}@example.net`;
  await enqueueMail(api.db.kysely, {
    storeId,
    tier: 'store',
    kind: 'order_confirmation',
    to,
    subject: 'Order #1001 confirmed',
    text: 'Thank you for your order.\n\n  1 × Mug  $12.00\n',
  });
  worker.runtime.signals.wake(MAIL_LOOP);
  return to;
}

const fromOf = (mail: ParsedMail) => mail.from?.value[0];
const replyToOf = (mail: ParsedMail) => mail.replyTo?.value[0]?.address;

/** A store with a verified domain: records published in the merchant's zone and the platform's. */
async function verifiedStore(local = 'orders') {
  const shop = await createTestStore(api);
  const admin = emailApi(api, shop.staffToken);
  const domain = uniqueDomain();
  const registered = await admin.register(domain, local);
  assert.equal(registered.statusCode, 201);
  dns.publish(registered.body.dnsRecords);
  for (const record of await platformDkimRecords({ db: api.db.kysely, config: api.config })) {
    if (record.domain === domain) dns.setTxt(record.name, [record.value]);
  }
  const verified = await admin.verify();
  assert.equal(verified.body.status, 'verified');
  const token = /^([a-z0-9]+)\._domainkey\./.exec(registered.body.dnsRecords[0]!.name)![1]!;
  return { shop, admin, domain, token };
}

describe('store mail headers over SMTP', () => {
  test('before verification: the platform no-reply address with the store name, Reply-To the store, no DKIM', async () => {
    const shop = await createTestStore(api);
    const admin = emailApi(api, shop.staffToken);
    assert.equal((await admin.register(uniqueDomain())).statusCode, 201, 'a pending domain changes nothing');
    const to = await sendStoreMail(shop.store.id);
    const mail = await smtp.waitFor(to);
    assert.deepEqual(fromOf(mail.parsed), { address: 'no-reply@storefront.test', name: shop.store.name });
    assert.equal(replyToOf(mail.parsed), shop.ownerEmail);
    assert.equal(mail.parsed.headers.has('dkim-signature'), false);
    assert.equal(mail.mailFrom, 'no-reply@storefront.test');
  });

  test('after verification: From <local>@<domain>, Reply-To the store, DKIM d=<domain> s=<token> verifiable from DNS, Return-Path on mail.<domain>', async () => {
    const { shop, domain, token } = await verifiedStore('hello');
    const to = await sendStoreMail(shop.store.id);
    const mail = await smtp.waitFor(to);
    assert.deepEqual(fromOf(mail.parsed), { address: `hello@${domain}`, name: shop.store.name });
    assert.equal(replyToOf(mail.parsed), shop.ownerEmail);
    assert.equal(
      mail.mailFrom,
      `bounce@mail.${domain}`,
      'the envelope sender (Return-Path) is on mail.<domain>',
    );

    const header = mail.parsed.headerLines.find((line) => line.key === 'dkim-signature')?.line ?? '';
    assert.match(header, new RegExp(`d=${domain.replaceAll('.', '\\.')};`));
    assert.match(header, new RegExp(`s=${token};`));
    const dkim = await verifyDkim(mail.raw, dns.address);
    assert.equal(dkim.domain, domain);
    assert.equal(dkim.selector, token);
    for (const field of ['from', 'reply-to', 'to', 'subject']) {
      assert.ok(dkim.signedHeaders.includes(field), `${field} is signed`);
    }

    // A tampered copy fails verification (the check is real).
    const tampered = Buffer.from(mail.raw.toString('latin1').replace('Order #1001', 'Order #9999'), 'latin1');
    await assert.rejects(verifyDkim(tampered, dns.address), /does not verify/);
  });

  test('platform mail is never sent from a store domain, even a verified one', async () => {
    const { shop, domain } = await verifiedStore();
    const signIn = await api.app.inject({
      method: 'POST',
      url: '/admin/v1/auth/sign-in',
      payload: { storeSlug: shop.store.slug, email: shop.ownerEmail },
    });
    assert.equal(signIn.statusCode, 202);
    worker.runtime.signals.wake(MAIL_LOOP);
    const code = await smtp.waitFor(shop.ownerEmail);
    assert.equal(fromOf(code.parsed)?.address, 'no-reply@storefront.test');
    assert.equal(code.mailFrom, 'no-reply@storefront.test');
    assert.ok(!code.raw.toString('latin1').includes(domain), 'the store domain appears nowhere');
    assert.equal(code.parsed.headers.has('dkim-signature'), false);
  });

  test('the admin notice about a vanished record is platform mail to the owners', async () => {
    const { shop, admin, domain } = await verifiedStore();
    dns.remove(`mail.${domain}`, 'MX');
    try {
      const checked = await admin.verify();
      assert.equal(checked.body.status, 'verified');
      worker.runtime.signals.wake(MAIL_LOOP);
      const notice = await smtp.waitFor(shop.ownerEmail);
      assert.equal(fromOf(notice.parsed)?.address, 'no-reply@storefront.test');
      assert.equal(notice.mailFrom, 'no-reply@storefront.test');
      assert.match(notice.parsed.subject ?? '', new RegExp(domain.replaceAll('.', '\\.')));
      assert.equal(notice.parsed.headers.has('dkim-signature'), false);

      // Until it reverts, store mail still comes from the domain.
      const to = await sendStoreMail(shop.store.id);
      assert.equal(fromOf((await smtp.waitFor(to)).parsed)?.address, `orders@${domain}`);
    } finally {
      dns.setMx(`mail.${domain}`, [{ exchange: 'feedback-smtp.storefront.test', priority: 10 }]);
    }
  });

  test('after deletion, store mail falls back at once', async () => {
    const { shop, admin } = await verifiedStore();
    assert.equal((await admin.remove()).statusCode, 204);
    const to = await sendStoreMail(shop.store.id);
    const mail = await smtp.waitFor(to);
    assert.deepEqual(fromOf(mail.parsed), { address: 'no-reply@storefront.test', name: shop.store.name });
    assert.equal(replyToOf(mail.parsed), shop.ownerEmail);
    assert.equal(mail.mailFrom, 'no-reply@storefront.test');
    assert.equal(mail.parsed.headers.has('dkim-signature'), false);
  });

  test('a failed domain sends nothing from the domain', async () => {
    const { shop, domain } = await verifiedStore();
    // What the checker does after a vanished record stayed missing for the whole window.
    await api.db.kysely
      .updateTable('sending_domains')
      .set({
        status: 'failed',
        failed_at: new Date(),
        verified_at: null,
        next_check_at: null,
        unproven_since: new Date(),
      })
      .where('store_id', '=', shop.store.id)
      .execute();
    const to = await sendStoreMail(shop.store.id);
    const mail = await smtp.waitFor(to);
    assert.equal(fromOf(mail.parsed)?.address, 'no-reply@storefront.test');
    assert.ok(!mail.raw.toString('latin1').includes(`d=${domain}`));
  });

  test('the reply-to address cannot be cleared: null and "" are 400 and store mail keeps its Reply-To (decision `reply-to-required`)', async () => {
    const { shop } = await verifiedStore();
    for (const replyToEmail of [null, '', '   ']) {
      const put = await api.app.inject({
        method: 'PUT',
        url: '/admin/v1/settings',
        headers: { authorization: `Bearer ${shop.staffToken}` },
        payload: { replyToEmail },
      });
      assert.equal(put.statusCode, 400, put.body);
      assert.equal(put.json<{ errors: { pointer: string }[] }>().errors[0]?.pointer, '/replyToEmail');
    }
    const to = await sendStoreMail(shop.store.id);
    const mail = await smtp.waitFor(to);
    assert.equal(mail.parsed.replyTo?.value[0]?.address, shop.ownerEmail);
    assert.equal((await emailApi(api, shop.staffToken).sender()).body.replyTo, shop.ownerEmail);
  });

  test('each store signs only as its own domain', async () => {
    const a = await verifiedStore();
    const b = await verifiedStore();
    const [toA, toB] = [await sendStoreMail(a.shop.store.id), await sendStoreMail(b.shop.store.id)];
    const [mailA, mailB] = [await smtp.waitFor(toA), await smtp.waitFor(toB)];
    assert.equal((await verifyDkim(mailA.raw, dns.address)).domain, a.domain);
    assert.equal((await verifyDkim(mailB.raw, dns.address)).domain, b.domain);
    assert.equal(fromOf(mailB.parsed)?.address, `orders@${b.domain}`);
  });
});
