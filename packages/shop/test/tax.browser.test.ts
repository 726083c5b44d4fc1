/**
 * Tax in the shop, in Chromium (issue 44): a store whose prices include tax says "incl. tax" by its
 * prices, and the checkout's review step shows the tax included in the total, line by rate, with
 * nothing added on top (decision prices-include-tax).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, screenshot } from '../../console/test/browser.test-support.ts';
import { openStore, seedCatalog, startShop } from './shop.test-support.ts';

const h = startedForFile(startShop);

describe('tax in the shop', () => {
  test('an inclusive store: "incl. tax" by prices, and the review step shows the tax lines', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    await shop.admin.request('adminUpdateSettings', { body: { pricesIncludeTax: true } });
    await shop.admin.request('adminSetTaxRate', {
      path: { country: 'DE' },
      body: { taxRateBps: 1900, shippingAmount: 0 },
    });
    const { context, page, problems } = await newPage(h);

    await page.goto(`/shop/products/${catalog.tee.handle}`);
    await page.locator('.price').getByText('incl. tax').first().waitFor();
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByRole('link', { name: 'Check out' }).click();
    await page.getByLabel('Email').fill('erika@example.com');
    await page.getByLabel('Country or region').selectOption('DE');
    await page.getByLabel('Full name', { exact: true }).fill('Erika Mustermann');
    await page.getByLabel('Address', { exact: true }).fill('Heidestraße 17');
    await page.getByLabel('Postal code', { exact: true }).fill('51147');
    await page.getByLabel('City', { exact: true }).fill('Köln');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByRole('heading', { name: 'Shipping', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Continue to review' }).click();
    await page.getByRole('heading', { name: 'Review and pay', level: 2 }).waitFor();

    // $30.00 gross at 19 %: $4.79 of it is tax, and the total stays $30.00.
    const totals = page.locator('.totals');
    const text = ((await totals.textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(text, /Tax included\$4\.79/);
    assert.match(text, /incl\. Tax 19 %\$4\.79/);
    assert.match(text, /Total\$30\.00/);
    assert.doesNotMatch(text, /estimated/);
    await assertAccessible(page, 'the review step of an inclusive store');
    await screenshot(page, 'review-tax', 'shop');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
