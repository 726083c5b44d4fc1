/**
 * The shop's address form in Chromium, at the checkout and in the account: a complaint about the
 * postal code is checked again when the country changes (a ZIP code refused for the US is a good
 * German postal code, and "… for US" never stays under a German address); Japan's prefectures are
 * listed by their Latin names with their own beside them ("Tokyo (東京都)") in this English shop,
 * the value sent still the ISO 3166-2 code; the review shows the prefecture in Latin letters; the
 * city field shows in Japan too (every address has a city).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage } from '../../console/test/browser.test-support.ts';
import { waitForMail } from '../../../src/test/harness.ts';
import { openStore, seedCatalog, startShop, toCheckout, type ShopStore } from './shop.test-support.ts';

const h = startedForFile(startShop);

/** A Latin name with the prefecture's own (Japanese) beside it: "Tokyo (東京都)". */
const LATIN_WITH_OWN = /^\p{Script=Latin}[\p{Script=Latin} -]* \([\p{Script=Han}\p{Script=Hiragana}]+\)$/u;

/**
 * The prefecture list of the form with ids `prefix-…`: "Choose…", then the 47 prefectures
 * alphabetical by their Latin names, each with its own name beside it; Tokyo's value is JP-13.
 */
async function assertPrefectures(page: Page, prefix: string): Promise<void> {
  const select = page.locator(`#${prefix}-region`);
  assert.equal(await page.locator(`label[for="${prefix}-region"]`).textContent(), 'Prefecture');
  const labels = await select.locator('option').allTextContents();
  assert.equal(labels.length, 48, 'Choose… and the 47 prefectures');
  assert.equal(labels[0], 'Choose…');
  for (const label of labels.slice(1)) assert.match(label, LATIN_WITH_OWN);
  assert.deepEqual(labels.slice(1, 4), ['Aichi (愛知県)', 'Akita (秋田県)', 'Aomori (青森県)']);
  assert.deepEqual(
    labels.slice(1),
    [...labels.slice(1)].sort((a, b) => a.localeCompare(b, 'en')),
  );
  await select.selectOption({ label: 'Tokyo (東京都)' });
  assert.equal(await select.inputValue(), 'JP-13', 'the value is the ISO 3166-2 code');
  // Every address has a city (the check asks for it), though Japan's layout has no line for it.
  assert.equal(await page.locator(`#${prefix}-city`).isVisible(), true, 'the city field shows');
}

/** The complaint under the form's postal-code field (`prefix-postalCode`), or null when there is none. */
async function postalComplaint(page: Page, prefix: string): Promise<string | null> {
  const problem = page.locator(`#${prefix}-postalCode-problem`);
  return (await problem.count()) === 0 ? null : problem.textContent();
}

/**
 * In the form with ids `prefix-…` (its postal code refused on `submit`): a German postal code
 * typed while the country was still the US is refused for California, and the complaint goes as
 * soon as the country is Germany; a code good nowhere is complained about for the new country.
 */
async function assertCountryChangeRechecks(page: Page, prefix: string, submit: () => Promise<void>) {
  const country = page.locator(`#${prefix}-country`);
  const postal = page.locator(`#${prefix}-postalCode`);
  await country.selectOption('US');
  await page.locator(`#${prefix}-region`).selectOption('US-CA');
  await postal.fill('10117');
  await submit();
  await page.getByText('ZIP code does not belong to California.').waitFor();
  assert.equal(await postal.getAttribute('aria-invalid'), 'true');

  await country.selectOption('DE');
  await page.locator(`label[for="${prefix}-postalCode"]`).getByText('Postal code', { exact: true }).waitFor();
  assert.equal(await postalComplaint(page, prefix), null, 'a good German postal code: no complaint');
  assert.equal(await postal.getAttribute('aria-invalid'), null);

  // A code good nowhere: its complaint names the country chosen now, never the one before.
  await country.selectOption('US');
  await page.locator(`#${prefix}-region`).selectOption('US-CA');
  await postal.fill('1011');
  await submit();
  await page.getByText('ZIP code is not a valid ZIP code for US.').waitFor();
  await country.selectOption('DE');
  await page.getByText('Postal code is not a valid Postal code for DE.').waitFor();
  assert.doesNotMatch((await postalComplaint(page, prefix)) ?? '', /US/);
  assert.equal(await postal.getAttribute('aria-invalid'), 'true');
}

/** Signs `email` in through the API (the code from the mail) and gives the shop its token. */
async function signedIn(page: Page, shop: ShopStore, email: string): Promise<void> {
  await shop.storefront.customers.signIn({ email });
  const mail = await waitForMail(h.live.t, email);
  const code = /\b(\d{6})\b/.exec(mail.text ?? '')?.[1];
  assert.ok(code, 'a code in the mail');
  const { token } = await shop.storefront.customers.verify({ email, code });
  const key = `storefront.customer.${shop.store.publishableKey}`;
  await page.addInitScript(`localStorage.setItem(${JSON.stringify(key)}, ${JSON.stringify(token)})`);
}

describe('the address form', () => {
  test('checkout: changing the country checks the postal code’s complaint again; Japan’s prefectures by their Latin names; the review in Latin letters', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h);

    await toCheckout(page, catalog.tee.handle);
    await page.getByLabel('Email').fill('kei@example.com');
    await page.getByLabel('Full name', { exact: true }).fill('Kei Tanaka');
    await page.getByLabel('Address', { exact: true }).fill('1-1 Marunouchi');
    await page.getByLabel('City', { exact: true }).fill('Chiyoda-ku');
    const next = () => page.getByRole('button', { name: 'Continue to shipping' }).click();
    await assertCountryChangeRechecks(page, 'ship', next);

    // Japan: the prefecture by its Latin name; a postal code of Hokkaido is not Tokyo's.
    await page.locator('#ship-country').selectOption('JP');
    await assertPrefectures(page, 'ship');
    await assertAccessible(page, 'the checkout with Japan’s prefectures');
    await page.locator('#ship-postalCode').fill('060-0001');
    await next();
    await page.getByText('Postal code does not belong to Tokyo (東京都).').waitFor();
    await page.locator('#ship-postalCode').fill('100-0001');
    await next();
    // The store has no zones: straight to the review, the address as a parcel carries it.
    await page.getByRole('heading', { name: 'Review and pay', level: 2 }).waitFor();
    assert.deepEqual(await page.locator('.review-choices address .address-line').allTextContents(), [
      'Kei Tanaka',
      '1-1 Marunouchi, Tokyo',
      '100-0001',
      'Japan',
    ]);
    const cartId = await page.evaluate<string | null>(`localStorage.getItem('storefront.cart')`);
    assert.ok(cartId);
    const cart = await shop.storefront.carts.get(cartId);
    assert.equal(cart.shippingAddress?.region, 'JP-13', 'the API got the ISO 3166-2 code');
    assert.equal(cart.shippingAddress?.city, 'Chiyoda-ku');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('account: a new address checks the postal code again on a country change and lists Japan’s prefectures by their Latin names', async () => {
    const shop = await openStore(h);
    const { context, page, problems } = await newPage(h);
    await signedIn(page, shop, 'kei@example.com');

    await page.goto('/shop/account');
    await page.getByRole('button', { name: 'Add an address' }).click();
    await page.getByRole('heading', { name: 'New address', level: 3 }).waitFor();
    await page.locator('#new-address-name').fill('Kei Tanaka');
    await page.locator('#new-address-line1').fill('1-1 Marunouchi');
    await page.locator('#new-address-city').fill('Chiyoda-ku');
    const save = () => page.getByRole('button', { name: 'Save address' }).click();
    await assertCountryChangeRechecks(page, 'new-address', save);

    await page.locator('#new-address-country').selectOption('JP');
    await assertPrefectures(page, 'new-address');
    await page.locator('#new-address-postalCode').fill('100-0001');
    await save();
    await page.getByRole('status').getByText('The address was saved.').waitFor();
    await page.getByText('1-1 Marunouchi, Tokyo').first().waitFor();
    const [saved] = await shop.storefront.customers.addresses.list();
    assert.equal(saved?.region, 'JP-13');
    await assertAccessible(page, 'the account with a Japanese address');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
