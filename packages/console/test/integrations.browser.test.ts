/**
 * The integration screens in Chromium: storefront keys (the full key once, then only its prefix;
 * it works against the Storefront API until revoked), the sending domain and its five DNS records
 * (verified against a local DNS server), webhooks (secret once, a test send and real deliveries to
 * a local receiver, retry, rotate, replay, delete), staff, settings, themes and apps.
 *
 * The app runs with the webhook tests' allowance (http to loopback, a short retry schedule) and
 * verifies sending domains against a DNS server on loopback, so nothing leaves the machine.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createAdminClient, type AdminClient } from '@storefront/client';
import { createProduct, startLiveApp } from '../../client/test/server.test-support.ts';
import { loadEmailIdentityConfig } from '../../../src/email/email.config.ts';
import { TestDnsServer } from '../../../src/email/email.test-dns.ts';
import { uniqueDomain } from '../../../src/email/email.test-support.ts';
import { waitFor, type TestStore } from '../../../src/test/harness.ts';
import { startReceiver, webhookTestConfig, type Reply } from '../../../src/webhooks/webhooks.test-support.ts';
import {
  assertAccessible,
  launchBrowser,
  newPage,
  newStore,
  openScreen,
  screenshot,
  signedInPage,
  signIn,
  type ConsoleHarness,
} from './browser.test-support.ts';

let h: ConsoleHarness;
let dns: TestDnsServer;

before(async () => {
  dns = await TestDnsServer.start();
  const live = await startLiveApp({
    config: {
      ...webhookTestConfig(),
      emailIdentity: loadEmailIdentityConfig({ DNS_SERVERS: dns.address, DNS_TIMEOUT: '300ms' }),
    },
  });
  const browser = await launchBrowser();
  h = {
    live,
    browser,
    async close() {
      await browser.close();
      await live.close();
      await dns.close();
    },
  };
});
after(() => h.close());

function adminOf(store: TestStore): AdminClient {
  return createAdminClient({ baseUrl: h.live.baseUrl, token: store.staffToken });
}

/** GET /storefront/v1/store with a publishable key (and an Origin, as a browser would send). */
function storefrontStore(key: string, origin?: string): Promise<Response> {
  return fetch(`${h.live.baseUrl}/storefront/v1/store`, {
    headers: { 'x-publishable-key': key, ...(origin ? { origin } : {}) },
  });
}

describe('storefront keys', () => {
  test('create with origins and a budget, the full key once (then only its prefix), edit, revoke with confirmation', async () => {
    const store = await newStore(h);
    const admin = adminOf(store);
    const { context, page, problems } = await signedInPage(h, store);
    await openScreen(page, 'Storefront keys', 'Storefront keys');
    // The store's existing key is listed by its prefix.
    await page
      .locator('tr', { hasText: 'test' })
      .locator('code.key-prefix', { hasText: /^pk_\w{9}…$/ })
      .waitFor();

    await page.getByRole('button', { name: 'Create key' }).click();
    // The form takes the focus from the button that opened it.
    assert.equal(await page.evaluate('document.activeElement.name'), 'new-label');
    await page.keyboard.type('Main shop');
    await page.getByLabel('Allowed origins').fill('https://shop.example\nshop.example/path');
    await page.getByLabel('Read budget (requests per window)').fill('90000');
    await page.getByRole('button', { name: 'Create key', exact: true }).last().click();
    // Checked before sending, with the line at fault.
    await page.getByText(/Line 2 \(shop\.example\/path\)/).waitFor();
    assert.equal((await admin.storefrontKeys.list()).items.length, 1, 'nothing was created');
    await page.getByLabel('Allowed origins').fill('https://shop.example\nhttps://www.shop.example:8443\n');
    await assertAccessible(page, 'keys: create form');
    await page.getByRole('button', { name: 'Create key', exact: true }).last().click();

    const secret = page.getByTestId('secret-value');
    await secret.waitFor();
    const key = (await secret.textContent()) ?? '';
    assert.match(key, /^pk_[A-Za-z0-9]{32}$/);
    await page
      .getByRole('region', { name: 'Storefront key “Main shop”' })
      .getByRole('button', { name: 'Copy' })
      .waitFor();

    // The shown key is the real one: it opens the Storefront API, from its origins only.
    const ok = await storefrontStore(key);
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { name: string }).name, store.store.name);
    assert.equal((await storefrontStore(key, 'https://www.shop.example:8443')).status, 200);
    assert.equal((await storefrontStore(key, 'https://evil.example')).status, 403);

    const created = (await admin.storefrontKeys.list()).items.find((k) => k.label === 'Main shop');
    assert.ok(created);
    assert.deepEqual(created.allowedOrigins, ['https://shop.example', 'https://www.shop.example:8443']);
    assert.deepEqual(created.rateLimits, { publicRead: 90000, publicWrite: null });
    assert.equal(created.keyPrefix, key.slice(0, 12));

    const row = page.locator('tr', { hasText: 'Main shop' });
    await row.locator('code.key-prefix', { hasText: `${created.keyPrefix}…` }).waitFor();
    await row.getByText('https://www.shop.example:8443').waitFor();
    await row.getByText('Read 90,000').waitFor();
    await assertAccessible(page, 'keys: secret shown once');
    await screenshot(page, 'keys');

    // After a reload: only the prefix, nowhere the full key.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Storefront keys' }).waitFor();
    await page
      .locator('tr', { hasText: 'Main shop' })
      .locator('code.key-prefix', { hasText: `${created.keyPrefix}…` })
      .waitFor();
    assert.equal(await page.getByTestId('secret-value').count(), 0);
    assert.ok(!(await page.content()).includes(key), 'the full key is gone after a reload');

    // After navigating away and back: the same.
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Label', { exact: true }).fill('Second');
    await page.getByRole('button', { name: 'Create key', exact: true }).last().click();
    const second = (await page.getByTestId('secret-value').textContent()) ?? '';
    assert.match(second, /^pk_/);
    await openScreen(page, 'Webhooks', 'Webhooks');
    await openScreen(page, 'Storefront keys', 'Storefront keys');
    await page
      .locator('tr', { hasText: 'Second' })
      .locator('code.key-prefix', { hasText: `${second.slice(0, 12)}…` })
      .waitFor();
    assert.equal(await page.getByTestId('secret-value').count(), 0);
    assert.ok(!(await page.content()).includes(second));

    // Edit: label, origins and budgets.
    await page.getByRole('button', { name: 'Edit Main shop' }).click();
    await page.getByLabel('Label', { exact: true }).fill('Main shop (web)');
    await page.getByLabel('Allowed origins').fill('https://shop.example');
    await page.getByLabel('Read budget (requests per window)').fill('');
    await page.getByLabel('Write budget (requests per window)').fill('abc');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText('Leave empty for the default, or a whole number from 1 to 10,000,000.').waitFor();
    // A key's budget is shared by every shopper: the server refuses less than 50 clients' budgets.
    await page.getByLabel('Write budget (requests per window)').fill('120');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText(/must be at least 15000/).waitFor();
    await page.getByLabel('Write budget (requests per window)').fill('20000');
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText('The key “Main shop” is saved.').waitFor();
    const edited = await admin.storefrontKeys.get(created.id);
    assert.equal(edited.label, 'Main shop (web)');
    assert.deepEqual(edited.allowedOrigins, ['https://shop.example']);
    assert.deepEqual(edited.rateLimits, { publicRead: null, publicWrite: 20000 });
    assert.equal((await storefrontStore(key, 'https://www.shop.example:8443')).status, 403);

    // Revoke: cancelling the confirmation (Escape, or Cancel) changes nothing; confirming revokes.
    const editedRow = page.locator('tr', { hasText: 'Main shop (web)' });
    await editedRow.getByRole('button', { name: 'Revoke Main shop (web)' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke “Main shop (web)”?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await editedRow.getByRole('button', { name: 'Revoke Main shop (web)' }).click();
    await assertAccessible(page, 'keys: revoke confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await admin.storefrontKeys.get(created.id)).revokedAt, null);
    await editedRow.getByRole('button', { name: 'Revoke Main shop (web)' }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key “Main shop (web)” is revoked').waitFor();
    await editedRow.getByText('revoked', { exact: true }).waitFor();
    assert.equal(await editedRow.getByRole('button', { name: /Revoke|Edit/ }).count(), 0);
    assert.notEqual((await admin.storefrontKeys.get(created.id)).revokedAt, null);
    await waitFor(async () => (await storefrontStore(key)).status === 401, 2000, 'the key to be refused');

    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('email', () => {
  test('register a sending domain, its five records with copy buttons, verify now, reply-to, delete', async () => {
    const store = await newStore(h);
    const admin = adminOf(store);
    const { context, page, problems } = await newPage(h);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.live.baseUrl });
    await signIn(page, store);
    await openScreen(page, 'Email', 'Email');
    await page
      .getByTestId('effective-from')
      .getByText(/no-reply@/)
      .waitFor();
    await page.getByText('because you have no sending domain').waitFor();
    await assertAccessible(page, 'email: no domain');

    const domain = uniqueDomain('console');
    await page.getByLabel('Domain', { exact: true }).fill(domain);
    await page.getByLabel('Sender name before the @').fill('orders');
    await page.getByText(`Mail will come from orders@${domain}`).waitFor();
    await page.getByRole('button', { name: 'Register domain' }).click();
    await page.getByRole('heading', { name: `Sending domain ${domain}` }).waitFor();

    const registered = await admin.request('adminGetSendingDomain');
    assert.equal(registered.dnsRecords.length, 5);
    const rows = page.locator('table.dns-records tbody tr');
    assert.equal(await rows.count(), 5);
    for (const [index, record] of registered.dnsRecords.entries()) {
      const row = rows.nth(index);
      assert.equal(await row.getByTestId('record-name').textContent(), record.name);
      assert.equal(await row.getByTestId('record-value').textContent(), record.value);
      assert.ok(await row.getByTestId('record-name').isVisible());
      assert.ok(await row.getByTestId('record-value').isVisible());
      assert.equal(await row.getByRole('button', { name: 'Copy name' }).count(), 1);
      assert.equal(await row.getByRole('button', { name: 'Copy value' }).count(), 1);
      await row.getByText('pending', { exact: true }).waitFor();
    }
    // A copy button puts the value on the clipboard.
    const mx = registered.dnsRecords.findIndex((record) => record.type === 'MX');
    await rows.nth(mx).getByRole('button', { name: 'Copy value' }).click();
    await rows
      .nth(mx)
      .getByRole('button', { name: /Copied/ })
      .waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), registered.dnsRecords[mx]!.value);
    await assertAccessible(page, 'email: records');
    // The release clock (decision `released-domain-deleted`): the merchant sees until when the name is held unverified.
    assert.ok(registered.releaseAt, 'an unverified domain has a release time');
    await page.getByTestId('release-at').waitFor();

    // Four of five published: verify now shows which one is missing.
    const spf = registered.dnsRecords.findIndex((record) => record.type === 'TXT');
    dns.publish(registered.dnsRecords.filter((record) => record.type !== 'TXT'));
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText('Checked just now: 4 of 5 records are right.').waitFor();
    for (const [index] of registered.dnsRecords.entries()) {
      await rows
        .nth(index)
        .getByText(index === spf ? 'pending' : 'verified', { exact: true })
        .waitFor();
    }
    await screenshot(page, 'email');

    dns.publish(registered.dnsRecords);
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText(`${domain} is verified: store mail now goes from your domain.`).waitFor();
    assert.equal(await page.getByTestId('release-at').count(), 0, 'a verified domain is not released');
    await page.getByTestId('effective-from').getByText(`orders@${domain}`).waitFor();
    assert.equal((await admin.request('adminGetSenderState')).mode, 'custom-domain');

    // Reply-to: checked in the browser, then saved.
    await page.getByLabel('Reply-to email').fill('');
    await page.getByRole('button', { name: 'Save reply-to' }).click();
    await page.getByText('A reply-to address is required').waitFor();
    await page.getByLabel('Reply-to email').fill('help@shop.example');
    await page.getByRole('button', { name: 'Save reply-to' }).click();
    await page.getByText('Reply-to address saved.').waitFor();
    assert.equal((await admin.request('adminGetSettings')).replyToEmail, 'help@shop.example');
    await page.locator('p', { hasText: 'Replies go to' }).getByText('help@shop.example').waitFor();

    // Delete, with confirmation: back to the platform sender.
    await page.getByRole('button', { name: 'Remove domain' }).click();
    await page
      .getByRole('dialog', { name: `Remove ${domain}?` })
      .getByRole('button', { name: 'Remove domain' })
      .click();
    await page.getByRole('heading', { name: 'Send from your own domain' }).waitFor();
    await page
      .getByTestId('effective-from')
      .getByText(/no-reply@/)
      .waitFor();
    assert.equal((await admin.request('adminGetSenderState')).domain, undefined);

    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('webhooks', () => {
  test('create an endpoint (secret once), send a test, deliveries with retry, rotate, disable, replay, delete', async () => {
    const store = await newStore(h);
    const admin = adminOf(store);
    let failing = true;
    const receiver = await startReceiver((request): Reply => {
      if (request.body.test === true) return { status: 200, body: 'test received' };
      return failing ? { status: 500, body: 'temporary outage, try later' } : { status: 204 };
    });
    const { context, page, problems } = await signedInPage(h, store);
    await openScreen(page, 'Webhooks', 'Webhooks');
    await page.getByText('No endpoints yet.').waitFor();
    await page.getByText('No deliveries yet.').waitFor();

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: 'Add endpoint', exact: true }).last().click();
    await page.getByText('Enter the URL that receives the events').waitFor();
    await page.getByText('Choose at least one event, or all events.').waitFor();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel(/All events/).check();
    assert.ok(await page.getByRole('checkbox', { name: 'order.paid' }).isDisabled());
    await assertAccessible(page, 'webhooks: create form');
    await page.getByRole('button', { name: 'Add endpoint', exact: true }).last().click();

    const secretShown = page.getByTestId('secret-value');
    await secretShown.waitFor();
    const secret = (await secretShown.textContent()) ?? '';
    assert.match(secret, /^whsec_/);
    const [endpoint] = (await admin.webhookEndpoints.list()).items;
    assert.ok(endpoint);
    assert.deepEqual(endpoint.events, ['*']);
    await page.getByRole('link', { name: receiver.url }).waitFor();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByTestId('secret-value').count(), 0);
    await assertAccessible(page, 'webhooks: list');
    await screenshot(page, 'webhooks');

    // The endpoint's page: a test send shows what the receiver answered, signed with the shown secret.
    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/admin/webhooks/${endpoint.id}`);
    await page.getByLabel('Event type').selectOption('order.paid');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Delivered: your endpoint answered HTTP 200').waitFor();
    const [ping] = await receiver.waitForRequests(1, (r) => r.body.test === true);
    assert.equal(ping!.headers['x-webhook-event'], 'order.paid');
    assert.equal(
      ping!.headers['x-webhook-signature'],
      createHmac('sha256', secret).update(ping!.rawBody).digest('hex'),
      'the secret shown once signs the deliveries',
    );

    // A real event: the receiver fails it until the retries give up; the log shows the answer.
    await createProduct(admin, { title: 'Webhook lamp' });
    const failed = await waitFor(
      async () =>
        (await admin.webhookDeliveries.list({ endpointId: endpoint.id, status: 'failed' })).items.find(
          (delivery) => delivery.event === 'product.created',
        ),
      10_000,
      'the product.created delivery to fail',
    );
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    await deliveries.getByRole('button', { name: 'Refresh' }).click();
    const row = deliveries.locator(`tr[data-delivery-id="${failed.id}"]`);
    await row.getByText('failed', { exact: true }).waitFor();
    await row.getByText('HTTP 500').waitFor();
    await row.getByText('temporary outage, try later').waitFor();
    assert.equal(await row.locator('td.num').textContent(), String(failed.attempts));
    assert.ok(failed.attempts >= 2);

    // Filter by status: the one delivered delivery is the test send, listed as a test, with no retry.
    await deliveries.getByLabel('Status').selectOption('delivered');
    const tested = deliveries.locator('tr', { hasText: '(test)' });
    await tested.getByText('order.paid', { exact: true }).waitFor();
    await row.waitFor({ state: 'detached' });
    assert.equal(await tested.getByRole('button').count(), 0, 'a test delivery is not retried');
    await deliveries.getByLabel('Status').selectOption('failed');
    await row.waitFor();

    // Retry once the receiver is back.
    failing = false;
    await deliveries.getByLabel('Status').selectOption('');
    await row.getByRole('button', { name: /^Retry \(product\.created, / }).click();
    await deliveries.getByText('The product.created delivery is queued to be sent again now.').waitFor();
    await waitFor(
      async () => (await admin.webhookDeliveries.get(failed.id)).status === 'delivered',
      10_000,
      'the retried delivery',
    );
    await deliveries.getByRole('button', { name: 'Refresh' }).click();
    await row.getByText('delivered', { exact: true }).waitFor();
    await row.getByText('HTTP 204').waitFor();
    await assertAccessible(page, 'webhook: endpoint page');
    await screenshot(page, 'webhook');

    // Rotate: the new secret, shown once.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    const rotated =
      (await page
        .getByRole('region', { name: 'New signing secret' })
        .getByTestId('secret-value')
        .textContent()) ?? '';
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByText(/The previous secret also signs until/).waitFor();

    // Disable and enable again.
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByText('Off. Disabled by staff.').waitFor();
    assert.equal((await admin.webhookEndpoints.get(endpoint.id)).enabled, false);
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page.getByText('On: events are sent as they happen.').waitFor();
    assert.equal((await admin.webhookEndpoints.get(endpoint.id)).enabled, true);

    // Edit: events narrowed.
    await page.getByLabel(/All events/).uncheck();
    await page.getByRole('checkbox', { name: 'order.paid' }).check();
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByText('Endpoint saved.').waitFor();
    assert.deepEqual((await admin.webhookEndpoints.get(endpoint.id)).events, ['order.paid']);
    await page.getByLabel(/All events/).check();
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await waitFor(
      async () => (await admin.webhookEndpoints.get(endpoint.id)).events[0] === '*',
      3000,
      'events *',
    );

    // Replay since the default (a day ago): the product event is queued again.
    await page.getByRole('button', { name: 'Replay events' }).click();
    await page.getByText(/^\d+ deliver(y|ies) queued/).waitFor();
    await waitFor(
      async () =>
        (await admin.webhookDeliveries.list({ endpointId: endpoint.id })).items.some(
          (d) => d.kind === 'replay',
        ),
      5000,
      'a replay delivery',
    );

    // Delete, with confirmation.
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this endpoint?' })
      .getByRole('button', { name: 'Delete endpoint' })
      .click();
    await page.getByText(`The endpoint ${receiver.url} is deleted.`).waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/webhooks');
    assert.equal((await admin.webhookEndpoints.list()).items.length, 0);

    assert.deepEqual(problems, []);
    await context.close();
    await receiver.close();
  });
});

describe('staff, settings, themes and apps', () => {
  test('staff: who you are, add a member with a role, change the role, the last owner is kept, remove', async () => {
    const store = await newStore(h);
    const admin = adminOf(store);
    const { context, page, problems } = await signedInPage(h, store);
    await openScreen(page, 'Staff', 'Staff');
    await page.getByTestId('who-am-i').getByText(`${store.ownerEmail}`).waitFor();
    await page.getByTestId('who-am-i').getByText('(Owner)').waitFor();

    await page.getByRole('button', { name: 'Add staff member' }).click();
    await page.getByLabel('Email', { exact: true }).fill('clerk@example');
    await page.getByRole('button', { name: 'Add staff member', exact: true }).last().click();
    await page.getByText('Enter their email address').waitFor();
    await page.getByLabel('Email', { exact: true }).fill('clerk@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('staff');
    await page.getByRole('button', { name: 'Add staff member', exact: true }).last().click();
    await page.getByText('clerk@example.com is added as staff.').waitFor();
    const clerk = (await admin.request('adminListStaff')).items.find((m) => m.email === 'clerk@example.com');
    assert.ok(clerk);
    assert.equal(clerk.role, 'staff');

    // Adding the same address again: the API's answer, readable.
    await page.getByRole('button', { name: 'Add staff member' }).click();
    await page.getByLabel('Email', { exact: true }).fill('clerk@example.com');
    await page.getByRole('button', { name: 'Add staff member', exact: true }).last().click();
    await page.getByText('clerk@example.com is already a staff member of this store.').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByLabel('Role of clerk@example.com').selectOption('admin');
    await page
      .locator('tr', { hasText: 'clerk@example.com' })
      .getByRole('button', { name: 'Save role' })
      .click();
    await waitFor(
      async () => (await admin.request('adminGetStaffMember', { path: { id: clerk.id } })).role === 'admin',
      3000,
      'the new role',
    );

    // The only owner cannot stop being one.
    await page.getByLabel(`Role of ${store.ownerEmail}`).selectOption('staff');
    await page.getByText('You will no longer be able to manage staff.').waitFor();
    await page
      .locator('tr', { hasText: store.ownerEmail })
      .getByRole('button', { name: 'Save role' })
      .click();
    await page.getByText('A store needs at least one owner: make someone else owner first.').waitFor();
    await page.getByLabel(`Role of ${store.ownerEmail}`).selectOption('owner');
    await assertAccessible(page, 'staff');
    await screenshot(page, 'staff');

    await page.getByRole('button', { name: 'Remove clerk@example.com' }).click();
    await page
      .getByRole('dialog', { name: 'Remove clerk@example.com?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await page.getByText('clerk@example.com is removed').waitFor();
    await page.locator('tr', { hasText: 'clerk@example.com' }).waitFor({ state: 'detached' });
    assert.ok(!(await admin.request('adminListStaff')).items.some((m) => m.email === 'clerk@example.com'));

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a staff member is told the screen is not for their role', async () => {
    const store = await newStore(h);
    await adminOf(store).request('adminAddStaffMember', {
      body: { email: 'helper@example.com', role: 'staff' },
    });
    const { context, page, problems } = await signedInPage(h, { ...store, ownerEmail: 'helper@example.com' });
    await openScreen(page, 'Storefront keys', 'Storefront keys');
    await page.getByText('Only owners and admins can manage storefront keys. Your role is staff.').waitFor();
    await openScreen(page, 'Staff', 'Staff');
    await page.getByText('Only store owners can manage staff and roles.').waitFor();
    await openScreen(page, 'Discounts, tax & shipping', 'Discounts, tax & shipping');
    await page
      .getByText('Only owners and admins can manage discounts, tax and shipping. Your role is staff.')
      .waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Discount codes' }).count(), 0);
    await openScreen(page, 'Settings', 'Settings');
    await page.getByText('Only owners and admins can change the settings.').waitFor();
    assert.equal(await page.getByLabel('Store name').getAttribute('readonly'), '');
    await assertAccessible(page, 'settings: read-only');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('settings: store name and reply-to saved, currency read-only; usable at 375 px', async () => {
    const store = await newStore(h, { currency: 'EUR' });
    const admin = adminOf(store);
    const { context, page, problems } = await signedInPage(h, store, { width: 375, height: 740 });
    await page.getByRole('button', { name: 'Menu' }).click();
    await openScreen(page, 'Settings', 'Settings');
    assert.equal(await page.getByLabel('Currency').inputValue(), 'EUR');
    assert.equal(await page.getByLabel('Currency').getAttribute('readonly'), '');
    await page.getByLabel('Store name').fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The store needs a name.').waitFor();
    await page.getByLabel('Store name').fill('Renamed Shop');
    await page.getByLabel('Reply-to email').fill('hello@renamed.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await page.locator('.store-name', { hasText: 'Renamed Shop' }).waitFor();
    const settings = await admin.request('adminGetSettings');
    assert.equal(settings.name, 'Renamed Shop');
    assert.equal(settings.replyToEmail, 'hello@renamed.example');
    assert.equal(settings.currency, 'EUR');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(overflow <= 375, `no horizontal scrolling at 375 px (${overflow})`);
    await assertAccessible(page, 'settings');

    // The keys screen at 375 px: the table scrolls inside its box, not the page.
    await page.getByRole('button', { name: 'Menu' }).click();
    await openScreen(page, 'Storefront keys', 'Storefront keys');
    await page.locator('table').waitFor();
    assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 375);

    await page.setViewportSize({ width: 1280, height: 860 });
    await openScreen(page, 'Settings', 'Settings');
    await screenshot(page, 'settings');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('themes: create and publish; apps: install', async () => {
    const store = await newStore(h);
    const admin = adminOf(store);
    const { context, page, problems } = await signedInPage(h, store);
    await openScreen(page, 'Themes', 'Themes');
    await page.getByText('No themes yet.').waitFor();
    await page.getByRole('button', { name: 'Create theme' }).click();
    await page.getByLabel('Theme name').fill('Autumn');
    await page.getByLabel('Settings (JSON, optional)').fill('{"primaryColor": ');
    await page.getByRole('button', { name: 'Create theme', exact: true }).last().click();
    await page.getByText(/^Not valid JSON/).waitFor();
    await page.getByLabel('Settings (JSON, optional)').fill('{"primaryColor": "#aa5500"}');
    await page.getByRole('button', { name: 'Create theme', exact: true }).last().click();
    await page.getByText('“Autumn” is created. Publish it to make it live.').waitFor();
    await page.getByRole('button', { name: 'Publish Autumn' }).click();
    await page
      .getByRole('dialog', { name: 'Publish “Autumn”?' })
      .getByRole('button', { name: 'Publish theme' })
      .click();
    await page.getByText('“Autumn” is now your live theme.').waitFor();
    await page.locator('tr', { hasText: 'Autumn' }).getByText('published', { exact: true }).waitFor();
    const [theme] = (await admin.request('adminListThemes')).items;
    assert.equal(theme?.live, true);
    assert.deepEqual(theme?.settings, { primaryColor: '#aa5500' });
    await assertAccessible(page, 'themes');

    await openScreen(page, 'Apps', 'Apps');
    await page.getByText('No apps installed.').waitFor();
    await page.getByRole('button', { name: 'Install app' }).click();
    await page.getByLabel('App name').fill('Reviews');
    await page.getByLabel('Access scopes').fill('read_products, Write Orders');
    await page.getByRole('button', { name: 'Install app', exact: true }).last().click();
    await page.getByText('Not a scope: Write, Orders.').waitFor();
    await page.getByLabel('Access scopes').fill('read_products\nwrite_orders');
    await page.getByRole('button', { name: 'Install app', exact: true }).last().click();
    await page.getByText('“Reviews” is installed.').waitFor();
    await page.locator('tr', { hasText: 'Reviews' }).getByText('write_orders').waitFor();
    const [app] = (await admin.request('adminListApps')).items;
    assert.deepEqual(app?.scopes, ['read_products', 'write_orders']);
    await assertAccessible(page, 'apps');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
