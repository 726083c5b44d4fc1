/**
 * Customer accounts in the reference shop, in Chromium (decision `customer-accounts`): a shopper signs in with the code the
 * service mailed, read from the sign-in page's development mailbox ("Use this code"), saves
 * an address, buys with the checkout filled in from the account, finds the order (and later its
 * parcel's tracking link) on the account page, downloads their data and signs out; on a phone, a
 * session ended elsewhere shows the signed-out state, and the account is deleted after a
 * confirmation that says what happens. What the shopper sees is checked on the page; what
 * happened, through the APIs. axe-core checks the sign-in's two steps, the account page with an
 * order and an address, and the checkout filled in from the account at 375 px and 1280 px.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { createStorefrontClient, StorefrontError } from '@storefront/client';
import type { Page } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, screenshot, until } from '../../console/test/browser.test-support.ts';
import { focusOn, openStore, seedCatalog, startShop, type ShopStore } from './shop.test-support.ts';

const h = startedForFile(startShop);

/** The sign-in's development mailbox (the dev mailbox of the service: file transport, not production). */
const devMailbox = (page: Page) => page.getByRole('region', { name: 'Development mailbox' });

/**
 * The code of the newest mail to `email` the development mailbox offers (its subject: "123456 is
 * your code for …"), put in the code field with "Use this code".
 */
async function useMailedCode(page: Page, email: string): Promise<string> {
  const mailbox = devMailbox(page);
  const use = mailbox.getByRole('button', { name: 'Use this code' });
  await use.waitFor({ timeout: 10_000 });
  const said = (await mailbox.getByRole('status').textContent()) ?? '';
  const [, to, code] = /^Newest email to (\S+): (\d{6}) is your code for /.exec(said) ?? [];
  assert.ok(to === email && code, `the dev mailbox shows the code of the mail to ${email}: ${said}`);
  await use.click();
  assert.equal(await page.getByLabel('6-digit code').inputValue(), code, '"Use this code" fills the field');
  await focusOn(page, 'document.activeElement?.id', 'sign-in-code', 'the code field takes the focus');
  return code;
}

/** axe-core at 375 px and 1280 px (back to the page's width after), nothing wider than the window. */
async function assertAccessibleAtBothWidths(page: Page, what: string): Promise<void> {
  const size = page.viewportSize()!;
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: size.height });
    await assertAccessible(page, `${what} at ${width} px`);
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(
      scrollWidth <= width,
      `${what} at ${width} px: nothing wider than the window (${scrollWidth} px)`,
    );
  }
  await page.setViewportSize(size);
}

/** From the header's "Sign in" to the account page, with the code from the development mailbox. */
async function signIn(page: Page, email: string): Promise<void> {
  await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByRole('status').getByText(`We sent a code to ${email}.`, { exact: false }).waitFor();
  await useMailedCode(page, email);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
  await page.getByRole('banner').getByRole('link', { name: 'Account' }).waitFor();
}

const tokenKey = (shop: ShopStore) => `storefront.customer.${shop.store.publishableKey}`;
const storedToken = (page: Page, shop: ShopStore) =>
  page.evaluate<string | null, string>((key) => localStorage.getItem(key), tokenKey(shop));

describe('customer accounts in the reference shop', () => {
  test('sign in with the mailed code from the dev mailbox → save an address → the checkout is filled in → the order, then its parcel, on the account page → export → sign out', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h);
    const email = 'ada@example.com';

    await page.goto('/shop/');
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await focusOn(page, 'document.activeElement?.tagName', 'H1', 'the heading takes the focus on navigation');
    await assertAccessibleAtBothWidths(page, 'sign-in page');
    // A mistyped email is refused at its field, nothing is sent.
    await page.getByLabel('Email').fill('ada at example');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByText('Enter your email address, like name@example.com.').waitFor();
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByRole('status').getByText(`We sent a code to ${email}.`, { exact: false }).waitFor();
    const codeField = page.getByLabel('6-digit code');
    assert.equal(await codeField.getAttribute('autocomplete'), 'one-time-code');
    assert.equal(await codeField.getAttribute('inputmode'), 'numeric');
    await focusOn(page, 'document.activeElement?.id', 'sign-in-code', 'the code field takes the focus');
    // In development the code is on the page: the development mailbox shows the newest mail to the email.
    await devMailbox(page).getByRole('button', { name: 'Use this code' }).waitFor({ timeout: 10_000 });
    await assertAccessibleAtBothWidths(page, 'the code step with the development mailbox');
    const code = await useMailedCode(page, email);
    // A wrong code: said at the field, and a new code can be sent.
    await codeField.fill(code === '123456' ? '654321' : '123456');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('That code is not right, or it has expired.', { exact: false }).waitFor();
    assert.equal(await codeField.getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'a wrong code');
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await page.getByRole('status').getByText(`We sent a new code to ${email}.`, { exact: false }).waitFor();
    // Only the newest code works: the mailbox offers the new mail, not the one already used.
    await useMailedCode(page, email);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Account' }).waitFor();
    assert.match((await storedToken(page, shop)) ?? '', /^ct_/, 'the token is kept per store');
    await page.getByText('No orders yet.').waitFor();
    await page.getByText('No saved addresses yet.', { exact: false }).waitFor();
    await assertAccessible(page, 'a new account');

    // The profile.
    await page.getByLabel('Name (optional)').fill('Ada Lovelace');
    await page.getByLabel('Phone (optional)').fill('+1 408 555 0100');
    await page.getByLabel('Email me news and offers').check();
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('status').getByText('Your details were saved.').waitFor();

    // An address, through the checkout's form.
    await page.getByRole('button', { name: 'Add an address' }).click();
    await page.getByRole('heading', { name: 'New address', level: 3 }).waitFor();
    await page.getByRole('button', { name: 'Save address' }).click();
    await page.getByText('Full name is required.').waitFor();
    await page.getByLabel('Country or region').selectOption('US');
    await page.getByLabel('Full name', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('Address', { exact: true }).fill('1 Infinite Loop');
    await page.getByLabel('City', { exact: true }).fill('Cupertino');
    await page.getByLabel('State', { exact: true }).selectOption('US-CA');
    await page.getByLabel('ZIP code', { exact: true }).fill('95014');
    await page.getByRole('button', { name: 'Save address' }).click();
    await page.getByRole('status').getByText('The address was saved.').waitFor();
    await page.getByText('Default address').waitFor();
    const customer = (await shop.admin.request('adminListCustomers', { query: { q: email } })).items[0]!;
    assert.deepEqual(
      [customer.email, customer.name, customer.phone, customer.acceptsMarketing, customer.hasAccount],
      [email, 'Ada Lovelace', '+1 408 555 0100', true, true],
    );

    // Buying: the email and the default address are filled in.
    await page.goto(`/shop/products/${catalog.tee.handle}`);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByRole('link', { name: 'Check out' }).click();
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), email);
    assert.equal(await page.getByLabel('Full name', { exact: true }).inputValue(), 'Ada Lovelace');
    assert.equal(await page.getByLabel('ZIP code', { exact: true }).inputValue(), '95014');
    assert.match(
      (await page.getByLabel('Saved addresses').locator('option:checked').textContent()) ?? '',
      /1 Infinite Loop.*\(default\)/,
    );
    await assertAccessibleAtBothWidths(page, 'checkout filled in from the account');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByRole('heading', { name: 'Review and pay', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Pay $30.00' }).click();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Thank you!', level: 1 }).waitFor({ timeout: 20_000 });
    const orderId = /\/shop\/orders\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    const order = await shop.admin.orders.get(orderId);
    assert.equal(order.customerId, customer.id, 'the order is the customer’s');

    // The account page: the order, newest first.
    await page.getByRole('banner').getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    const card = page.locator('.order-card').first();
    await card.getByRole('link', { name: `Order #${order.number}` }).waitFor();
    const facts = ((await card.locator('.order-facts').textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(facts, /StatusPaid/);
    assert.match(facts, /ShippingNot shipped yet/);
    assert.match(facts, /Total\$30\.00/);

    // Shipped: the parcel's tracking link.
    await shop.admin.orders.fulfil(orderId, {
      lines: [{ variantId: catalog.tee.variant, quantity: 1 }],
      carrier: 'UPS',
      trackingNumber: '1Z999AA10123456784',
    });
    await page.reload();
    const track = page.getByRole('link', { name: new RegExp(`^Track parcel 1 of order #${order.number}`) });
    await track.waitFor();
    assert.equal(await track.getAttribute('href'), 'https://www.ups.com/track?tracknum=1Z999AA10123456784');
    assert.match((await card.locator('.order-facts').textContent()) ?? '', /ShippingShipped/);
    await assertAccessibleAtBothWidths(page, 'account with an order and an address');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'account', 'shop');

    // Export: a JSON download of everything.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export my data' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^my-data-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8')) as {
      customer: { email: string };
      addresses: unknown[];
      orders: { id: string }[];
    };
    assert.equal(exported.customer.email, email);
    assert.equal(exported.addresses.length, 1);
    assert.deepEqual(
      exported.orders.map((entry) => entry.id),
      [orderId],
    );
    await page.getByRole('status').getByText('Your data was downloaded as a JSON file.').waitFor();

    // Sign out: the token is revoked and forgotten.
    const token = (await storedToken(page, shop))!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
    assert.equal(await storedToken(page, shop), null);
    const revoked = createStorefrontClient({
      baseUrl: h.live.baseUrl,
      publishableKey: shop.store.publishableKey,
      customerToken: token,
    });
    const refused = await revoked.customers.me().catch((error: unknown) => error);
    assert.ok(refused instanceof StorefrontError && refused.status === 401, 'the session ended');
    await assertAccessible(page, 'signed out');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('on a phone: a session ended elsewhere shows the signed-out state; deleting the account says what happens first', async () => {
    const shop = await openStore(h);
    await seedCatalog(shop);
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });
    const email = 'bob@example.com';

    await page.goto('/shop/');
    await signIn(page, email);
    await assertAccessible(page, 'account at 375 px');
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(width <= 375, `nothing wider than the phone (${width} px)`);

    // The session ends elsewhere (signed out on another device): the next call's 401 signs this page out.
    const elsewhere = createStorefrontClient({
      baseUrl: h.live.baseUrl,
      publishableKey: shop.store.publishableKey,
      customerToken: await storedToken(page, shop),
    });
    await elsewhere.customers.signOut();
    await page.goto('/shop/account');
    await page.getByText('You are not signed in.').waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
    assert.equal(await storedToken(page, shop), null, 'the refused token is forgotten');

    await signIn(page, email);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    const question = page.getByRole('heading', { name: 'Delete your account?', level: 3 });
    await question.waitFor();
    await focusOn(page, 'document.activeElement?.id', 'erase-title', 'the question takes the focus');
    await page.getByText('This cannot be undone.', { exact: false }).waitFor();
    await page.getByText('your name, email, phone and address are removed', { exact: false }).waitFor();
    await assertAccessible(page, 'the confirmation');
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await question.count(), 0, 'cancelled: nothing deleted');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByRole('button', { name: 'Yes, delete my account' }).click();
    await page.getByText('Your account was deleted.', { exact: false }).waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
    assert.equal(await storedToken(page, shop), null);
    assert.deepEqual(
      (await shop.admin.request('adminListCustomers', { query: { q: email } })).items,
      [],
      'the account is gone',
    );
    await assertAccessible(page, 'account deleted');

    // Where the dev mailbox does not answer 200 (production: a 404), nothing is shown, once asked.
    let asked = 0;
    await page.route('**/admin/dev/mailbox', async (route) => {
      asked += 1;
      await route.fulfill({ status: 404, contentType: 'application/problem+json', body: '{}' });
    });
    // The page's clock is the test's: the mailbox is read every 1.5 s of it.
    await page.clock.install();
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByRole('status').getByText(`We sent a code to ${email}.`, { exact: false }).waitFor();
    await until(async () => asked === 1, 'the dev mailbox to be asked');
    await page.clock.runFor(4000);
    // A reading started meanwhile would be answered before this request, made after the clock ran.
    assert.equal(await page.evaluate(async () => (await fetch('/admin/dev/mailbox')).status), 404);
    assert.equal(await devMailbox(page).count(), 0, 'no development mailbox');
    assert.equal(asked, 2, 'asked once, then not again (the second: this test’s request)');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
