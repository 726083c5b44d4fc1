import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { pino } from 'pino';
import { addStaffMember } from '../staff/staff.service.ts';
import { createTestStore, startTestApp, waitFor, type TestApp } from '../test/harness.ts';
import { loadEmailIdentityConfig } from './email.config.ts';
import type { SendingDomain } from './email.service.ts';
import { TestDnsServer } from './email.test-dns.ts';
import { emailApi, tokenFor, uniqueDomain } from './email.test-support.ts';
import { checkDueDomains, releaseAbandonedDomains } from './email.verifier.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let dns: TestDnsServer;
let t: TestApp;
/** How far the tests moved the app clock; undone after each test. */
let moved = 0;

before(async () => {
  dns = await TestDnsServer.start();
  t = await startTestApp({
    config: {
      emailIdentity: loadEmailIdentityConfig({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '150ms' }),
    },
  });
});
after(async () => {
  await t.close();
  await dns.close();
});
beforeEach(() => {
  t.clock.advance(-moved);
  moved = 0;
});

function advance(ms: number): void {
  t.clock.advance(ms);
  moved += ms;
}

const verifierDeps = () => ({
  db: t.db.kysely,
  config: t.config,
  clock: t.clock,
  log: pino({ level: 'silent' }),
});
/** One run of the periodic checker, as the worker loop does it. */
const runChecker = (): Promise<number> => checkDueDomains(verifierDeps());
/** One run of the release sweep, as the worker loop does it after the checks. */
const release = (): Promise<number> => releaseAbandonedDomains(verifierDeps());

const DAY = 24 * HOUR;
const RELEASE_AFTER = 30 * DAY;
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

async function registered(local = 'orders') {
  const shop = await createTestStore(t);
  const api = emailApi(t, () => tokenFor(t, shop));
  const domain = uniqueDomain();
  const response = await api.register(domain, local);
  assert.equal(response.statusCode, 201);
  return { shop, api, domain, records: response.body.dnsRecords };
}

const statuses = (view: SendingDomain) => view.dnsRecords.map((r) => `${r.type}:${r.status}`);

async function noticesTo(storeId: string) {
  return t.db.kysely
    .selectFrom('mail_outbox')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('kind', 'like', 'sending_domain_%')
    .orderBy('created_at')
    .execute();
}

describe('verification against a real DNS server', () => {
  test('pending without records; per-record status while some are right; verified once all appear', async () => {
    const { shop, api, domain, records } = await registered();

    const none = await api.verify();
    assert.equal(none.statusCode, 200);
    assert.equal(none.body.status, 'pending');
    assert.deepEqual(statuses(none.body), [
      'CNAME:pending',
      'CNAME:pending',
      'CNAME:pending',
      'MX:pending',
      'TXT:pending',
    ]);
    assert.ok(none.body.lastCheckedAt, 'the check time is recorded');

    dns.publish(records.filter((r) => r.type === 'CNAME'));
    const some = await api.verify();
    assert.equal(some.body.status, 'pending');
    assert.deepEqual(statuses(some.body), [
      'CNAME:verified',
      'CNAME:verified',
      'CNAME:verified',
      'MX:pending',
      'TXT:pending',
    ]);
    assert.ok(
      dns.queries.includes(`CNAME ${records[0]!.name}`),
      'each record is looked up by its own name and type',
    );

    // A wrong value is shown as failed, so the merchant sees which record to fix.
    dns.setMx(`mail.${domain}`, [{ exchange: 'mx.other-provider.example', priority: 10 }]);
    dns.setTxt(`mail.${domain}`, ['v=spf1 include:other-provider.example -all']);
    const wrong = await api.verify();
    assert.equal(wrong.body.status, 'pending');
    assert.deepEqual(statuses(wrong.body).slice(3), ['MX:failed', 'TXT:failed']);

    dns.remove(`mail.${domain}`);
    dns.publish(records.filter((r) => r.type !== 'CNAME'));
    const all = await api.verify();
    assert.equal(all.body.status, 'verified');
    assert.ok(all.body.verifiedAt);
    assert.equal(all.body.failedAt, null);
    assert.deepEqual(statuses(all.body), [
      'CNAME:verified',
      'CNAME:verified',
      'CNAME:verified',
      'MX:verified',
      'TXT:verified',
    ]);

    const sender = (await api.sender()).body;
    assert.equal(sender.mode, 'custom-domain');
    assert.equal(sender.effectiveFrom, `orders@${domain}`);
    assert.equal(sender.effectiveFromName, shop.store.name);
    assert.equal(sender.replyTo, shop.ownerEmail);
    assert.equal(sender.domain?.status, 'verified');
  });

  test('an SPF record with more includes passes; two SPF records do not', async () => {
    const { api, domain, records } = await registered();
    dns.publish(records.filter((r) => r.type !== 'TXT'));
    dns.setTxt(`mail.${domain}`, [
      'v=spf1 include:_spf.google.com include:storefront.test ~all',
      'google-site=x',
    ]);
    assert.equal((await api.verify()).body.status, 'verified');

    const second = await registered();
    dns.publish(second.records.filter((r) => r.type !== 'TXT'));
    dns.setTxt(`mail.${second.domain}`, ['v=spf1 include:storefront.test ~all', 'v=spf1 mx -all']);
    const doubled = await second.api.verify();
    assert.equal(doubled.body.status, 'pending');
    assert.equal(doubled.body.dnsRecords[4]!.status, 'failed');
  });

  test('the periodic check verifies a domain without verify-now', async () => {
    const { api, records } = await registered();
    dns.publish(records);
    assert.equal(await runChecker(), 0, 'not due before the interval');
    advance(5 * MINUTE);
    assert.ok((await runChecker()) >= 1);
    const view = (await api.get()).body;
    assert.equal(view.status, 'verified');
    assert.equal((await api.sender()).body.mode, 'custom-domain');
  });

  test('pending → failed after the window; a DNS timeout alone is never a failure', async () => {
    const { api, domain, records } = await registered();
    dns.publish(records.filter((r) => r.type === 'CNAME'));
    dns.silence(`mail.${domain}`);
    try {
      advance(73 * HOUR);
      await runChecker();
      const timedOut = (await api.get()).body;
      assert.equal(timedOut.status, 'pending', 'unanswered lookups are "not yet"');
      assert.deepEqual(statuses(timedOut).slice(3), ['MX:pending', 'TXT:pending']);
    } finally {
      dns.speak(`mail.${domain}`);
    }

    advance(5 * MINUTE);
    await runChecker();
    const failed = (await api.get()).body;
    assert.equal(failed.status, 'failed');
    assert.ok(failed.failedAt);
    assert.equal(failed.verifiedAt, null);
    assert.deepEqual(statuses(failed), [
      'CNAME:verified',
      'CNAME:verified',
      'CNAME:verified',
      'MX:failed',
      'TXT:failed',
    ]);
    assert.equal((await api.sender()).body.mode, 'platform-fallback');

    // A failed domain is no longer checked periodically.
    advance(HOUR);
    await runChecker();
    assert.equal((await api.get()).body.lastCheckedAt, failed.lastCheckedAt);
  });

  test('a pending domain is not failed before the window ends', async () => {
    const { api } = await registered();
    advance(71 * HOUR);
    await runChecker();
    assert.equal((await api.get()).body.status, 'pending');
  });

  test('verify-now retries a failed domain in a new window', async () => {
    const { api, records } = await registered();
    advance(72 * HOUR);
    await runChecker();
    assert.equal((await api.get()).body.status, 'failed');

    const retried = await api.verify();
    assert.equal(retried.statusCode, 200);
    assert.equal(retried.body.status, 'pending', 'records still missing: pending again, with a new window');
    assert.equal(retried.body.failedAt, null);
    assert.deepEqual(statuses(retried.body), [
      'CNAME:pending',
      'CNAME:pending',
      'CNAME:pending',
      'MX:pending',
      'TXT:pending',
    ]);
    advance(24 * HOUR);
    await runChecker();
    assert.equal((await api.get()).body.status, 'pending', 'the window restarted at verify-now');

    dns.publish(records);
    const verified = await api.verify();
    assert.equal(verified.body.status, 'verified');
  });

  test('a verified domain is rechecked: a vanished record sends one admin notice to the owners, then reverts after the window', async () => {
    const { shop, api, domain, records } = await registered('hello');
    await addStaffMember(t.deps, shop.store.id, { email: 'second-owner@example.com', role: 'owner' });
    await addStaffMember(t.deps, shop.store.id, { email: 'an-admin@example.com', role: 'admin' });
    dns.publish(records);
    assert.equal((await api.verify()).body.status, 'verified');

    dns.remove(`mail.${domain}`, 'MX');
    advance(23 * HOUR);
    await runChecker();
    assert.equal((await noticesTo(shop.store.id)).length, 0, 'not rechecked before the recheck interval');

    advance(HOUR);
    await runChecker();
    const view = (await api.get()).body;
    assert.equal(view.status, 'verified', 'a notice comes before anything changes');
    assert.equal(view.dnsRecords[3]!.status, 'failed');
    assert.equal((await api.sender()).body.mode, 'custom-domain');
    const notices = await noticesTo(shop.store.id);
    assert.deepEqual(
      notices.map((n) => n.to_address).sort(),
      [shop.ownerEmail, 'second-owner@example.com'].sort(),
    );
    for (const notice of notices) {
      assert.equal(notice.tier, 'platform', 'admin notices are platform mail');
      assert.match(notice.subject, new RegExp(domain.replaceAll('.', '\\.')));
      assert.match(notice.text_body, /MX {2}mail\./);
      assert.match(notice.text_body, /feedback-smtp\.storefront\.test/);
    }

    advance(5 * MINUTE);
    await runChecker();
    assert.equal((await noticesTo(shop.store.id)).length, 2, 'one notice per incident');

    // Restored: the record is verified again.
    dns.publish(records.filter((r) => r.type === 'MX'));
    advance(5 * MINUTE);
    await runChecker();
    const restored = (await api.get()).body;
    assert.equal(restored.status, 'verified');
    assert.equal(restored.dnsRecords[3]!.status, 'verified');

    // Vanished again and never restored: a new notice, then after the window the fallback.
    dns.remove(`mail.${domain}`);
    advance(24 * HOUR);
    await runChecker();
    assert.equal((await noticesTo(shop.store.id)).length, 4);
    for (let i = 0; i < 15; i++) {
      advance(5 * HOUR);
      await runChecker();
    }
    const reverted = (await api.get()).body;
    assert.equal(reverted.status, 'failed');
    assert.equal((await api.sender()).body.mode, 'platform-fallback');
    const last = await noticesTo(shop.store.id);
    assert.equal(last.length, 6);
    assert.ok(last.slice(4).every((n) => n.kind === 'sending_domain_reverted' && n.tier === 'platform'));
  });

  test('a DNS timeout during a recheck changes nothing and sends nothing', async () => {
    const { shop, api, records } = await registered();
    dns.publish(records);
    assert.equal((await api.verify()).body.status, 'verified');
    dns.silence(records[0]!.name);
    try {
      advance(24 * HOUR);
      await runChecker();
      const view = (await api.get()).body;
      assert.equal(view.status, 'verified');
      assert.equal(view.dnsRecords[0]!.status, 'verified');
      assert.equal((await noticesTo(shop.store.id)).length, 0);
    } finally {
      dns.speak(records[0]!.name);
    }
  });

  test('verify-now on a store without a domain is 404', async () => {
    const shop = await createTestStore(t);
    const response = await emailApi(t, shop.staffToken).verify();
    assert.equal(response.statusCode, 404);
    assert.equal(response.body.title, 'not_found');
  });
});

describe('the release clock (decision `released-domain-deleted`): unproven for DOMAIN_RELEASE_AFTER, a domain is released', () => {
  test('released with a notice DOMAIN_RELEASE_AFTER after registration, and its real owner can claim it', async () => {
    const squatter = await registered();
    const view = (await squatter.api.get()).body;
    assert.equal(view.releaseAt, plus(view.createdAt, RELEASE_AFTER));
    advance(73 * HOUR);
    await runChecker();
    assert.equal((await squatter.api.get()).body.status, 'failed');

    advance(RELEASE_AFTER - 73 * HOUR - MINUTE);
    assert.equal(await release(), 0, 'kept until the release time');
    const owner = await createTestStore(t);
    const ownerApi = emailApi(t, () => tokenFor(t, owner));
    assert.equal((await ownerApi.register(squatter.domain)).statusCode, 409, 'still held');

    advance(2 * MINUTE);
    assert.ok((await release()) >= 1);
    assert.equal((await squatter.api.get()).statusCode, 404, 'the squatter has no domain any more');
    assert.equal((await squatter.api.sender()).body.mode, 'platform-fallback');
    const notices = await noticesTo(squatter.shop.store.id);
    const released = notices.filter((n) => n.kind === 'sending_domain_released');
    assert.deepEqual(
      released.map((n) => [n.to_address, n.tier]),
      [[squatter.shop.ownerEmail, 'platform']],
    );
    assert.match(released[0]!.text_body, /within\s+30 days/);
    assert.equal((await ownerApi.register(squatter.domain)).statusCode, 201, 'the real owner registers it');
  });

  test('verify-now each time the domain fails restarts the window, never the release clock', async () => {
    const squatter = await registered();
    const releaseAt = (await squatter.api.get()).body.releaseAt!;
    // The trick of review item B9: whenever the domain turns failed, verify-now makes it pending.
    for (let day = 0; day + 3 < 29; day += 3) {
      advance(73 * HOUR);
      await runChecker();
      assert.equal((await squatter.api.get()).body.status, 'failed');
      const again = await squatter.api.verify();
      assert.equal(again.body.status, 'pending', 'a new window');
      assert.equal(again.body.failedAt, null);
      assert.equal(again.body.releaseAt, releaseAt, 'the release clock did not move');
    }
    advance(Date.parse(releaseAt) - t.clock.now().getTime() - MINUTE);
    assert.equal((await squatter.api.verify()).body.status, 'pending', 'pending, a minute before the time');
    assert.equal(await release(), 0);
    advance(2 * MINUTE);
    assert.ok((await release()) >= 1, 'released although pending');
    assert.equal((await squatter.api.get()).statusCode, 404);
    const other = await createTestStore(t);
    assert.equal((await emailApi(t, () => tokenFor(t, other)).register(squatter.domain)).statusCode, 201);
  });

  test('deleting and registering again continues the clock; once released, the store waits another DOMAIN_RELEASE_AFTER', async () => {
    const squatter = await registered();
    const releaseAt = (await squatter.api.get()).body.releaseAt!;
    advance(20 * DAY);
    assert.equal((await squatter.api.remove()).statusCode, 204);
    const again = await squatter.api.register(squatter.domain);
    assert.equal(again.statusCode, 201);
    assert.equal(again.body.releaseAt, releaseAt, 'the clock went on where it was');

    advance(10 * DAY + MINUTE);
    assert.ok((await release()) >= 1);
    const refused = await squatter.api.register(squatter.domain);
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.body.title, 'domain_unavailable');
    const reclaimable = plus(releaseAt, RELEASE_AFTER);
    assert.match(
      (refused.body as { detail?: string }).detail ?? '',
      new RegExp(reclaimable.replaceAll('.', '\\.')),
    );
    assert.deepEqual(
      (refused.body as { errors?: { pointer: string }[] }).errors?.map((e) => e.pointer),
      ['/domain'],
    );

    // Another store may claim it at once (and give it up again).
    const other = await createTestStore(t);
    const otherApi = emailApi(t, () => tokenFor(t, other));
    assert.equal((await otherApi.register(squatter.domain)).statusCode, 201);
    assert.equal((await otherApi.remove()).statusCode, 204);

    advance(Date.parse(reclaimable) - t.clock.now().getTime() - MINUTE);
    assert.equal((await squatter.api.register(squatter.domain)).statusCode, 409, 'not before its time');
    advance(2 * MINUTE);
    const fresh = await squatter.api.register(squatter.domain);
    assert.equal(fresh.statusCode, 201, 'a whole period later: a fresh clock');
    assert.equal(fresh.body.releaseAt, plus(fresh.body.createdAt, RELEASE_AFTER));
  });

  test('verification stops the clock; a verified domain whose records vanish is released DOMAIN_RELEASE_AFTER after they went missing', async () => {
    const { api, domain, records } = await registered();
    dns.publish(records);
    const verified = await api.verify();
    assert.equal(verified.body.status, 'verified');
    assert.equal(verified.body.releaseAt, null);
    advance(RELEASE_AFTER + DAY);
    await runChecker();
    assert.equal(await release(), 0);
    assert.equal((await api.get()).body.status, 'verified', 'a verified domain is never released');

    dns.remove(`mail.${domain}`, 'MX');
    advance(DAY);
    await runChecker();
    const missing = (await api.get()).body;
    assert.equal(missing.status, 'verified');
    assert.equal(missing.releaseAt, null, 'still proven while it keeps sending');
    for (let i = 0; i < 15; i++) {
      advance(5 * HOUR);
      await runChecker();
    }
    const reverted = (await api.get()).body;
    assert.equal(reverted.status, 'failed');
    assert.equal(reverted.releaseAt, plus(missing.lastCheckedAt!, RELEASE_AFTER), 'counted from the loss');
    assert.equal((await api.verify()).body.releaseAt, reverted.releaseAt, 'verify-now does not move it');

    dns.publish(records.filter((r) => r.type === 'MX'));
    const back = await api.verify();
    assert.equal(back.body.status, 'verified');
    assert.equal(back.body.releaseAt, null);
  });
});

describe('verify-now is rate limited per store', () => {
  test('the sixth request of a window is 429 rate_limited with Retry-After; other stores are not affected', async () => {
    const a = await registered();
    const b = await registered();
    const verify = async (shop: typeof a.shop) =>
      t.app.inject({
        method: 'POST',
        url: '/admin/v1/email/sending-domain/verify',
        headers: { authorization: `Bearer ${await tokenFor(t, shop)}` },
      });
    // At the start of a window (60 s), so that all six fall in one.
    advance(MINUTE - (t.clock.now().getTime() % MINUTE) + 1000);
    for (let i = 0; i < t.config.rateLimits.domainVerify; i++) {
      assert.equal((await verify(a.shop)).statusCode, 200, `request ${i + 1}`);
    }
    const refused = await verify(a.shop);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json<{ title: string }>().title, 'rate_limited');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await verify(b.shop)).statusCode, 200, 'another store has its own budget');

    advance(retryAfter * 1000);
    assert.equal((await verify(a.shop)).statusCode, 200, 'the next window answers again');
  });
});

describe('the worker loop', () => {
  test('checks pending domains on its own and logs the change; every process sees it at once', async () => {
    const worker = await startTestApp({
      db: t.db,
      workers: true,
      config: {
        emailIdentity: loadEmailIdentityConfig({
          DNS_SERVERS: dns.address,
          DNS_TIMEOUT: '150ms',
          DOMAIN_VERIFY_INTERVAL: '200ms',
        }),
      },
    });
    try {
      const shop = await createTestStore(worker);
      const api = emailApi(worker, shop.staffToken);
      const domain = uniqueDomain();
      const registeredDomain = await api.register(domain);
      dns.publish(registeredDomain.body.dnsRecords);
      await waitFor(
        async () => (await api.get()).body.status === 'verified',
        5000,
        'the loop to verify the domain',
      );
      // The first app (no workers) reads the same database: its sender state changed too.
      const elsewhere = await emailApi(t, shop.staffToken).sender();
      assert.equal(elsewhere.body.mode, 'custom-domain');
      assert.ok(
        worker.logs.some((line) => line.msg === 'sending domain verified' && line.domain === domain),
        'the state change is logged',
      );
    } finally {
      await worker.close();
    }
  });
});
