/**
 * Tax classes in the console's forms and the tax report, in Chromium (issue 44, decisions
 * `tax-classes`, `shipping-tax` and `tax-report`): a product saved with the class `reduced` and a
 * variant overriding it to `standard`, then back to "Same as product"; a shipping method saved with
 * a class and back to "Follows the goods"; the report of a paid order on the page and in the CSV
 * download. What the page shows and what the server stored are both checked.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import { assertAccessible, openScreen, signedInPage, startConsole } from './browser.test-support.ts';

const h = startedForFile(startConsole);

const addReduced = (shop: Shop) =>
  shop.admin.request('adminCreateTaxClass', { body: { code: 'reduced', name: 'Reduced rate' } });

describe('tax classes in the console forms, and the tax report', () => {
  test('a product in the reduced class with a variant overriding it to standard', async () => {
    const shop = await openShop(h.live);
    await addReduced(shop);
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.goto('/admin/products/new');
    await page.getByRole('heading', { name: 'Add product', level: 1 }).waitFor();

    await page.getByLabel('Title', { exact: true }).fill('Cookbook');
    const tax = page.getByRole('region', { name: 'Tax', exact: true });
    const productClass = tax.getByLabel('Tax class');
    assert.equal(await productClass.inputValue(), 'standard');
    // The store's classes, `standard` first, once they are read.
    await productClass
      .locator('option', { hasText: 'Reduced rate (reduced)' })
      .waitFor({ state: 'attached' });
    assert.deepEqual(await productClass.locator('option').allTextContents(), [
      'Standard (standard)',
      'Reduced rate (reduced)',
    ]);
    await productClass.selectOption('reduced');

    const variant = page.getByRole('group', { name: 'Variant 1' });
    await variant.getByLabel('Price (USD)', { exact: true }).fill('20');
    await variant.getByLabel('On hand').fill('3');
    const variantClass = variant.getByLabel('Tax class');
    assert.equal(await variantClass.inputValue(), '', 'a new variant is taxed as its product');
    assert.deepEqual(await variantClass.locator('option').allTextContents(), [
      'Same as product',
      'Standard (standard)',
      'Reduced rate (reduced)',
    ]);
    await variantClass.selectOption('standard');
    await assertAccessible(page, 'product form with its tax classes');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByText('Created “Cookbook”.').waitFor();

    const [listed] = (await shop.admin.products.list({ q: 'cookbook' })).items;
    assert.ok(listed);
    let stored = await shop.admin.products.get(listed.id);
    assert.deepEqual([stored.taxClass, stored.variants.map((v) => v.taxClass)], ['reduced', ['standard']]);
    // The saved form shows what was stored.
    assert.equal(await productClass.inputValue(), 'reduced');
    assert.equal(await variantClass.inputValue(), 'standard');

    // The variant back to its product's class: PATCH {"taxClass": null}.
    await variantClass.selectOption({ label: 'Same as product' });
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    stored = await shop.admin.products.get(listed.id);
    assert.deepEqual([stored.taxClass, stored.variants.map((v) => v.taxClass)], ['reduced', [null]]);
    await page.reload();
    await page.getByRole('heading', { name: 'Cookbook', level: 1 }).waitFor();
    assert.equal(
      await page.getByRole('region', { name: 'Tax', exact: true }).getByLabel('Tax class').inputValue(),
      'reduced',
    );
    assert.equal(
      await page.getByRole('group', { name: 'Variant 1' }).getByLabel('Tax class').inputValue(),
      '',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a shipping method taxed at a class, then following the goods again', async () => {
    const shop = await openShop(h.live);
    await addReduced(shop);
    const zone = await shop.admin.request('adminCreateShippingZone', {
      body: { name: 'Domestic', areas: [{ country: 'US' }] },
    });
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openScreen(page, 'Shipping', 'Shipping');
    const domestic = page.getByRole('region', { name: 'Domestic', exact: true });
    await domestic.getByRole('button', { name: 'Add method to Domestic' }).click();
    const newMethod = domestic.getByRole('region', { name: 'New method for “Domestic”' });
    await newMethod.getByLabel('Method name').fill('Ground');
    await newMethod.getByLabel('Price (USD)').fill('5');
    const methodClass = newMethod.getByLabel('Tax class');
    assert.equal(await methodClass.inputValue(), '');
    await methodClass.locator('option', { hasText: 'Reduced rate (reduced)' }).waitFor({ state: 'attached' });
    assert.deepEqual(await methodClass.locator('option').allTextContents(), [
      'Follows the goods',
      'Standard (standard)',
      'Reduced rate (reduced)',
    ]);
    await methodClass.selectOption('reduced');
    await assertAccessible(page, 'shipping method form with its tax class');
    await newMethod.getByRole('button', { name: 'Add method' }).click();
    await page.getByText('The method “Ground” was added.').waitFor();
    const methodOf = async () =>
      (await shop.admin.request('adminGetShippingZone', { path: { id: zone.id } })).methods[0]!;
    assert.equal((await methodOf()).taxClass, 'reduced');

    await domestic.getByRole('button', { name: 'Edit Ground' }).click();
    const editMethod = domestic.getByRole('region', { name: 'Change the method “Ground”' });
    assert.equal(await editMethod.getByLabel('Tax class').inputValue(), 'reduced');
    await editMethod.getByLabel('Tax class').selectOption({ label: 'Follows the goods' });
    await editMethod.getByRole('button', { name: 'Save method' }).click();
    await page.getByText('The method “Ground” was saved.').waitFor();
    assert.equal((await methodOf()).taxClass, null);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the tax report shows a paid order's tax and downloads it as CSV", async () => {
    const shop = await openShop(h.live);
    await shop.admin.request('adminSetTaxRate', {
      path: { country: 'DE' },
      body: { taxRateBps: 1900, shippingAmount: 0 },
    });
    const product = await shop.admin.products.create({
      title: 'Teapot',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 5000, onHand: 5 }],
    });
    const cart = await shop.storefront.carts.create({
      items: [{ variantId: product.variants[0]!.id, quantity: 2 }],
    });
    const checkout = await shop.storefront.checkout.create({
      cartId: cart.id,
      email: 'buyer@example.com',
      shippingAddress: {
        name: 'Erika Mustermann',
        line1: 'Heidestraße 17',
        city: 'Köln',
        postalCode: '51147',
        country: 'DE',
      },
    });
    await shop.storefront.sandbox.confirm(checkout.payment, 'pm_card_visa');
    await shop.storefront.orders.waitForPaid(checkout.order.id, { timeoutMs: 10_000, intervalMs: 50 });

    const { context, page, problems } = await signedInPage(h, shop.shop);
    await openScreen(page, 'Tax report', 'Tax report');
    assert.equal(await page.getByRole('button', { name: 'Download CSV' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Show report' }).click();
    const row = page.getByRole('row', { name: /Germany/ });
    await row.waitFor();
    assert.deepEqual(await row.getByRole('cell').allTextContents(), [
      'standard',
      '19%',
      '1',
      '$100.00',
      '$19.00',
      '$119.00',
      '$0.00',
    ]);
    await assertAccessible(page, 'tax report');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const from = await page.getByLabel('From').inputValue();
    const to = await page.getByLabel('To (included)').inputValue();
    assert.equal(download.suggestedFilename(), `tax-${from}-${to}-USD.csv`);
    const csv = await readFile(await download.path(), 'utf8');
    assert.equal(
      csv,
      'currency,country,region,class,rateBps,orders,net,tax,gross,taxRefunded\r\n' +
        'USD,DE,,standard,1900,1,10000,1900,11900,0\r\n',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
});
