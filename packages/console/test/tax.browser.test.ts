/**
 * Tax in Chromium (issue 44): tax classes added and a class in use refused with the server's
 * sentence, then deleted once free; a country's rate with a class rate and the shipping rule saved
 * and shown; the "Prices include tax" setting; the tax service's signing secret shown once (on
 * creation and on rotation, never on a later visit) and the service removed; a paid order's tax
 * breakdown and each line's tax. What the page shows and what the server stored are both checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProduct, openShop, startedForFile } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  openScreen,
  screenshot,
  signedInPage,
  startConsole,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

describe('tax in the console', () => {
  test('classes, a rate with a class rate and the shipping rule, and the setting', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openScreen(page, 'Discounts, tax & shipping', 'Discounts, tax & shipping');

    // A class: its code is checked before anything is sent.
    const classes = page.getByRole('region', { name: 'Tax classes', exact: true });
    await classes
      .getByRole('row', { name: /standard/ })
      .getByText('Always there')
      .waitFor();
    await classes.getByLabel('Class code').fill('Reduced!');
    await classes.getByLabel('Name', { exact: true }).fill('Reduced rate');
    await classes.getByRole('button', { name: 'Add class' }).click();
    await classes.getByText('Up to 32 lower-case letters, digits, - or _, like “reduced”.').waitFor();
    await classes.getByLabel('Class code').fill('reduced');
    await classes.getByRole('button', { name: 'Add class' }).click();
    await page.getByText('The tax class “Reduced rate” was added.').waitFor();
    await classes.getByRole('row', { name: /reduced/ }).waitFor();

    // A rate for Germany: 19 % standard, 7 % reduced, shipping following the goods.
    const rates = page.getByRole('region', { name: 'Tax and shipping by country' });
    await rates.getByLabel('Country', { exact: true }).selectOption('DE');
    await rates.getByLabel('Tax rate (%)', { exact: true }).fill('19');
    await rates.getByLabel('Reduced rate rate (%)').fill('7');
    await rates.getByLabel('Shipping tax').selectOption('follow_goods');
    await assertAccessible(page, 'tax classes and rates');
    await rates.getByRole('button', { name: 'Save rate' }).click();
    await page.getByText('The rate for Germany was saved.').waitFor();
    const germany = rates.getByRole('row', { name: /Germany/ });
    // The notice comes at once; the list is read again meanwhile.
    await germany.getByRole('cell', { name: 'Follows the goods' }).waitFor();
    assert.deepEqual((await germany.getByRole('cell').allTextContents()).slice(0, 3), [
      '19%',
      'Reduced rate: 7%',
      'Follows the goods',
    ]);
    const stored = (await shop.admin.request('adminListTaxRates')).items.find((r) => r.country === 'DE')!;
    assert.deepEqual(
      [stored.taxRateBps, stored.classRates, stored.shippingTax],
      [1900, { reduced: 700 }, 'follow_goods'],
    );
    await page.evaluate("document.getElementById('rates-title')?.scrollIntoView()");
    await screenshot(page, 'tax');

    // The class in use by Germany's rate: the server's 409 says so; once the rate drops it, it goes.
    await classes.getByRole('button', { name: 'Delete the tax class reduced' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete class' }).click();
    await classes
      .getByText('The rates of DE name the class reduced: take it out of their classRates first.')
      .waitFor();
    await rates.getByRole('button', { name: 'Edit the rate for Germany' }).click();
    assert.equal(await rates.getByLabel('Reduced rate rate (%)').inputValue(), '7');
    await rates.getByLabel('Reduced rate rate (%)').fill('');
    await rates.getByRole('button', { name: 'Save rate' }).click();
    await page.getByText('The rate for Germany was saved.').waitFor();
    await germany.getByText('Standard rate').waitFor();
    await classes.getByRole('button', { name: 'Delete the tax class reduced' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete class' }).click();
    await page.getByText('The tax class reduced was deleted.').waitFor();
    assert.deepEqual(
      (await shop.admin.request('adminListTaxClasses')).items.map((c) => c.code),
      ['standard'],
    );

    // The setting: prices include tax.
    await openScreen(page, 'Settings', 'Settings');
    const includes = page.getByLabel('Prices include tax');
    assert.equal(await includes.isChecked(), false);
    await page.getByText('On: the prices you enter are what buyers pay').waitFor();
    await includes.check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    assert.equal((await shop.admin.request('adminGetSettings')).pricesIncludeTax, true);
    assert.equal((await shop.storefront.request('getStoreTax')).pricesIncludeTax, true);
    await assertAccessible(page, 'settings');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the tax service: the secret shown once, a new one on rotation, removed', async () => {
    const shop = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openScreen(page, 'Discounts, tax & shipping', 'Discounts, tax & shipping');
    const service = page.getByRole('region', { name: 'Tax service', exact: true });
    await service.getByLabel('Service URL').fill('not a url');
    await service.getByRole('button', { name: 'Save tax service' }).click();
    await service.getByText('Enter the service’s https URL, like https://tax.example.com/quote.').waitFor();
    await service.getByLabel('Service URL').fill('https://tax.example.com/quote');
    await service.getByLabel('Active: ask it for every quote').uncheck();
    await service.getByRole('button', { name: 'Save tax service' }).click();
    const secret = service.getByRole('region', { name: 'Signing secret' });
    const first = (await secret.getByTestId('secret-value').textContent()) ?? '';
    assert.match(first, /^whsec_/);
    await secret.getByText('It is shown only once').waitFor();
    await secret.getByRole('button', { name: 'Copy' }).waitFor();
    await service.getByText('Inactive:').waitFor();
    await assertAccessible(page, 'tax service with its secret');
    const saved = await shop.admin.request('adminGetTaxService');
    assert.deepEqual(
      [saved.url, saved.active, 'secret' in saved],
      ['https://tax.example.com/quote', false, false],
    );

    // A later visit shows no secret; a rotation shows the new one once.
    await page.reload();
    await service.getByText('Inactive:').waitFor();
    assert.equal(await service.getByRole('region', { name: 'Signing secret' }).count(), 0);
    await service.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Make a new secret' }).click();
    const rotated = (await secret.getByTestId('secret-value').textContent()) ?? '';
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, first);
    await secret.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await secret.count(), 0);

    await service.getByRole('button', { name: 'Remove service' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove service' }).click();
    await page.getByText('The tax service was removed: the built-in rates apply.').waitFor();
    await service.getByRole('heading', { name: 'Connect a tax service' }).waitFor();
    await assert.rejects(shop.admin.request('adminGetTaxService'), { status: 404 });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("an order's tax breakdown and each line's tax", async () => {
    const shop = await openShop(h.live);
    await shop.admin.request('adminSetTaxRate', {
      path: { country: 'DE' },
      body: { taxRateBps: 1900, shippingAmount: 0 },
    });
    const product = await createProduct(shop.admin, { title: 'Teapot', priceAmount: 5000, onHand: 5 });
    const cart = await shop.storefront.carts.create({
      items: [{ variantId: product.variants[0]!.id, quantity: 2 }],
    });
    const placed = (
      await shop.storefront.checkout.create({
        cartId: cart.id,
        email: 'buyer@example.com',
        shippingAddress: {
          name: 'Erika Mustermann',
          line1: 'Heidestraße 17',
          city: 'Köln',
          postalCode: '51147',
          country: 'DE',
        },
      })
    ).order;
    assert.equal(placed.tax.amount, 1900);

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.goto(`/admin/orders/${placed.id}`);
    const items = page.getByRole('region', { name: 'Items' });
    await items.getByText('Tax breakdown').waitFor();
    const breakdown = items.getByRole('list', { name: 'Tax breakdown' });
    assert.deepEqual(await breakdown.getByRole('listitem').allTextContents(), [
      'Tax 19% on $100.00 — $19.00',
    ]);
    const line = items.getByRole('row', { name: /Teapot/ });
    assert.deepEqual((await line.getByRole('cell').allTextContents()).slice(1, 5), [
      '2',
      '$50.00',
      '$19.0019%',
      '$100.00',
    ]);
    await assertAccessible(page, 'order with its tax');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
