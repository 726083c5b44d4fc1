/**
 * Markets in the console, in Chromium (issue 45, decisions `markets` and `market-prices`): a market
 * created from the Markets screen, a country another market holds refused at the field (409
 * `market_conflict`), a market changed and one deleted, the default market's own form, what a staff
 * member sees; and a variant's price in EUR set in the product form (without options, and in the
 * matrix of a product with options), read back through the Admin API and the storefront. What the
 * page shows and what the server stored are both checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openShop, startedForFile, type Shop } from '../../client/test/server.test-support.ts';
import {
  assertAccessible,
  openScreen,
  screenshot,
  signedInPage,
  startConsole,
} from './browser.test-support.ts';

const h = startedForFile(startConsole);

const europe = (shop: Shop) =>
  shop.admin.request('adminCreateMarket', {
    body: {
      name: 'Europe',
      countries: ['DE', 'FR'],
      currency: 'EUR',
      exchangeRate: '0.92',
      rounding: 'to_99',
    },
  });

const marketsOf = async (shop: Shop) => (await shop.admin.request('adminListMarkets')).items;

/** The focused element's accessible label (its <label>), to check where the focus went. */
const focusedLabel = (page: Page) =>
  page.evaluate<string | null>(
    '(() => { const el = document.activeElement; return el?.labels?.[0]?.textContent ?? el?.textContent ?? null; })()',
  );

describe('markets in the console', () => {
  test('create a market, a country in two markets refused at its field, edit one, delete one', async () => {
    const shop = await openShop(h.live);
    // Tall enough for the screenshot to show the list and the form with its worked example.
    const { context, page, problems } = await signedInPage(h, shop.shop, { height: 1000 });
    await openScreen(page, 'Markets', 'Markets');

    // The default market first: every other country, in the store's currency.
    const table = page.getByRole('table', { name: 'Markets, the default first' });
    const defaultRow = table.getByRole('row', { name: /^Default Default/ });
    await defaultRow.waitFor();
    assert.deepEqual((await defaultRow.getByRole('cell').allTextContents()).slice(0, 5), [
      'All other countries',
      'USD',
      'Store prices',
      '—',
      'No',
    ]);

    // The form checks before sending: a code that is no country, a currency without a rate.
    await page.getByRole('button', { name: 'Add market' }).click();
    const form = page.getByRole('region', { name: 'New market' });
    assert.equal(await focusedLabel(page), 'Market name', 'the form opens on its first field');
    await form.getByLabel('Market name').fill('Europe');
    await form.getByLabel('Countries').fill('de, xx');
    await form.getByLabel('Currency').fill('eur');
    await form.getByRole('button', { name: 'Create market' }).click();
    await form
      .getByText('“XX” is not a country code: use two-letter ISO codes, like DE for Germany.')
      .waitFor();
    await form.getByText('Enter how many EUR one USD buys, like 0.92.').waitFor();
    assert.equal(await focusedLabel(page), 'Countries', 'the first field in trouble has the focus');
    assert.equal(await form.getByLabel('Countries').getAttribute('aria-invalid'), 'true');
    assert.equal((await marketsOf(shop)).length, 1, 'nothing was sent');

    // Fixed: France added by name, the rate typed with a decimal comma; the example follows it.
    await form.getByLabel('Countries').fill('de');
    await form.getByLabel('Add a country by name').selectOption('FR');
    await form.getByRole('button', { name: 'Add country' }).click();
    assert.equal(await form.getByLabel('Countries').inputValue(), 'DE, FR');
    await form.getByText('Germany (DE), France (FR).').waitFor();
    await form.getByText('Euro.', { exact: true }).waitFor();
    await form.getByLabel('Exchange rate').fill('0,92');
    const rounding = form.getByLabel('Rounding');
    assert.deepEqual(await rounding.locator('option').allTextContents(), [
      'No rounding (half up to the smallest unit)',
      'Up to .99: 19.20 → 19.99',
      'Up to a whole unit: 19.20 → 20.00',
    ]);
    assert.equal(await rounding.inputValue(), 'to_99');
    await form.getByText('A 24.00 USD price: 24.00 × 0.92 = 22.08 EUR, shown as €22.99.').waitFor();
    await rounding.selectOption('none');
    await form.getByText('A 24.00 USD price: 24.00 × 0.92 = 22.08 EUR, shown as €22.08.').waitFor();
    await rounding.selectOption('to_99');
    const taxSwitch = form.getByRole('switch', { name: 'Prices include tax' });
    await taxSwitch.check();
    await assertAccessible(page, 'the new market form');
    await form.getByRole('button', { name: 'Create market' }).click();
    await page.getByText('The market “Europe” was created.').waitFor();
    assert.equal(
      await focusedLabel(page),
      'Add market',
      'the focus is back on the button that opened the form',
    );
    let europeRow = table.getByRole('row', { name: /^Europe/ });
    await europeRow.waitFor();
    assert.deepEqual((await europeRow.getByRole('cell').allTextContents()).slice(0, 5), [
      'Germany (DE), France (FR)',
      'EUR',
      '1 USD = 0.92 EUR',
      'Up to .99',
      'Yes',
    ]);
    const created = (await marketsOf(shop)).find((market) => market.name === 'Europe');
    assert.ok(created);
    assert.deepEqual(
      [created.countries, created.currency, created.exchangeRate, created.rounding, created.pricesIncludeTax],
      [['DE', 'FR'], 'EUR', '0.92', 'to_99', true],
    );

    // A country Europe holds, in a second market: 409 market_conflict, said at the countries.
    await page.getByRole('button', { name: 'Add market' }).click();
    await form.getByLabel('Market name').fill('Germany');
    await form.getByLabel('Countries').fill('DE, AT');
    await form.getByLabel('Currency').fill('ABC');
    await form.getByLabel('Exchange rate').fill('0.88');
    // A code of three letters that ISO 4217 does not have: the server's 400, at the field.
    await form.getByRole('button', { name: 'Create market' }).click();
    await form.getByText('The currency must be an ISO 4217 currency code such as EUR.').waitFor();
    assert.equal(await focusedLabel(page), 'Currency');
    await form.getByLabel('Currency').fill('CHF');
    await form.getByRole('button', { name: 'Create market' }).click();
    await form.getByText('DE is in the market Europe.', { exact: true }).waitFor();
    await form
      .getByRole('alert')
      .getByText(/A country is in one market at most: DE is in Europe/)
      .waitFor();
    assert.equal(await focusedLabel(page), 'Countries');
    // The message is the field's description: a screen reader reads it with the field.
    const described = (await form.getByLabel('Countries').getAttribute('aria-describedby')) ?? '';
    const descriptions = await Promise.all(
      described.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()),
    );
    assert.ok(descriptions.includes('DE is in the market Europe.'), descriptions.join(' | '));
    await assertAccessible(page, 'a market refused with a conflict');
    await form.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await marketsOf(shop)).length, 2);

    // Edit Europe: the Netherlands added, whole units.
    await table.getByRole('button', { name: 'Edit the market Europe' }).click();
    const edit = page.getByRole('region', { name: 'Change the market “Europe”' });
    assert.equal(await edit.getByLabel('Countries').inputValue(), 'DE, FR');
    assert.equal(await edit.getByLabel('Exchange rate').inputValue(), '0.92');
    await edit.getByLabel('Countries').fill('DE, FR, NL');
    await edit.getByLabel('Rounding').selectOption('to_whole');
    await edit.getByText('A 24.00 USD price: 24.00 × 0.92 = 22.08 EUR, shown as €23.00.').waitFor();
    await screenshot(page, 'markets');
    await edit.getByRole('button', { name: 'Save market' }).click();
    await page.getByText('The market “Europe” was saved.').waitFor();
    assert.equal(await focusedLabel(page), 'Edit the market Europe');
    europeRow = table.getByRole('row', { name: /^Europe/ });
    await europeRow.getByRole('cell', { name: 'Germany (DE), France (FR), Netherlands (NL)' }).waitFor();
    const edited = (await marketsOf(shop)).find((market) => market.name === 'Europe')!;
    assert.deepEqual([edited.countries, edited.rounding], [['DE', 'FR', 'NL'], 'to_whole']);

    // The default market takes its name and tax setting only (the store setting).
    await table.getByRole('button', { name: 'Edit the market Default' }).click();
    const editDefault = page.getByRole('region', { name: /^Change the market/ });
    await editDefault.getByText('all other countries').waitFor();
    assert.equal(await editDefault.getByLabel('Currency').count(), 0);
    assert.equal(await editDefault.getByLabel('Countries').count(), 0);
    await editDefault.getByRole('switch', { name: 'Prices include tax' }).check();
    await editDefault.getByRole('button', { name: 'Save market' }).click();
    await page.getByText(/^The market “.+” was saved\.$/).waitFor();
    assert.equal((await shop.admin.request('adminGetSettings')).pricesIncludeTax, true);
    assert.equal(await table.getByRole('button', { name: /^Delete the market Default/ }).count(), 0);

    // Delete a market, after its confirmation.
    await shop.admin.request('adminCreateMarket', {
      body: { name: 'Switzerland', countries: ['CH'], currency: 'CHF', exchangeRate: '0.88' },
    });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Markets' }).waitFor();
    await table.getByRole('button', { name: 'Delete the market Switzerland' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the market “Switzerland”?' });
    await dialog.getByText('Its countries (Switzerland) join the default market').waitFor();
    await dialog.getByRole('button', { name: 'Delete market' }).click();
    await page.getByText('The market “Switzerland” was deleted.').waitFor();
    assert.deepEqual(
      (await marketsOf(shop)).map((market) => market.name),
      ['Default', 'Europe'],
    );
    assert.equal(await table.getByRole('row', { name: /^Switzerland/ }).count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a staff member sees the markets but cannot change them', async () => {
    const shop = await openShop(h.live);
    await europe(shop);
    const clerk = 'clerk@example.com';
    await shop.admin.request('adminAddStaffMember', { body: { email: clerk, role: 'staff' } });
    const { context, page, problems } = await signedInPage(h, { ...shop.shop, ownerEmail: clerk });
    await openScreen(page, 'Markets', 'Markets');
    await page.getByText('Only owners and admins can change markets.', { exact: false }).waitFor();
    await page.getByRole('row', { name: /^Europe/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add market' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Edit the market/ }).count(), 0);
    await assertAccessible(page, 'markets, read only');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a variant’s price in EUR set in the product form, read back through the API', async () => {
    const shop = await openShop(h.live);
    await europe(shop);
    const product = await shop.admin.products.create({
      title: 'Linen shirt',
      status: 'active',
      variants: [{ label: 'One', priceAmount: 2400, compareAtAmount: 3000, onHand: 5 }],
    });
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.goto(`/admin/products/${product.id}`);
    await page.getByRole('heading', { level: 1, name: 'Linen shirt' }).waitFor();
    const variant = page.getByRole('group', { name: 'Variant 1' });
    const inEuros = variant.getByRole('group', { name: 'Prices in other currencies' });
    const price = inEuros.getByLabel('Price (EUR)', { exact: true });
    // Empty: the store price converted at Europe's rate, up to .99; it follows the price as typed.
    assert.equal(await price.inputValue(), '');
    await inEuros.getByText('Empty: €22.99, converted (1 USD = 0.92 EUR, up to .99).').waitFor();
    await variant.getByLabel('Price (USD)', { exact: true }).fill('30');
    await inEuros.getByText('Empty: €27.99, converted (1 USD = 0.92 EUR, up to .99).').waitFor();
    await variant.getByLabel('Price (USD)', { exact: true }).fill('24');

    // A compare-at price alone is refused before sending.
    await inEuros.getByLabel('Compare-at price (EUR)').fill('24.99');
    await page.getByRole('button', { name: 'Save product' }).click();
    await inEuros
      .getByText('Enter a price in EUR too, or clear the compare-at price: without one, both are converted.')
      .waitFor();
    await price.fill('19.99');
    await assertAccessible(page, 'a variant with its prices in other currencies');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    let stored = await shop.admin.products.get(product.id);
    assert.deepEqual(stored.variants[0]!.prices, [{ currency: 'EUR', amount: 1999, compareAtAmount: 2499 }]);
    assert.equal(stored.variants[0]!.priceAmount, 2400, 'the store price is unchanged');
    // The shop in Germany sells it at that price.
    const card = (await shop.storefront.products.list({ country: 'DE' })).items.find(
      (item) => item.id === product.id,
    );
    assert.deepEqual([card?.priceAmount, card?.currency], [1999, 'EUR']);

    // Reloaded, the form shows it; emptied, the price is converted again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Linen shirt' }).waitFor();
    assert.equal(await price.inputValue(), '19.99');
    assert.equal(await inEuros.getByLabel('Compare-at price (EUR)').inputValue(), '24.99');
    await price.fill('');
    await inEuros.getByLabel('Compare-at price (EUR)').fill('');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    stored = await shop.admin.products.get(product.id);
    assert.deepEqual(stored.variants[0]!.prices, []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('prices in EUR in the matrix of a product with options, and on a new product', async () => {
    const shop = await openShop(h.live);
    await europe(shop);
    const product = await shop.admin.products.create({
      title: 'Tee',
      status: 'draft',
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, priceAmount: 1000, onHand: 1 },
        { options: { Size: 'M' }, priceAmount: 1200, onHand: 1 },
      ],
    });
    const { context, page, problems } = await signedInPage(h, shop.shop);
    await page.goto(`/admin/products/${product.id}`);
    await page.getByRole('heading', { level: 1, name: 'Tee' }).waitFor();
    const table = page.getByRole('table', { name: 'Prices in other currencies' });
    const medium = table.getByRole('row', { name: /^M/ });
    await medium.getByText('Empty: €11.99').waitFor();
    await table.getByRole('row', { name: /^S/ }).getByText('Empty: €9.99').waitFor();
    await medium.getByLabel('M price (EUR)').fill('10.50');
    await assertAccessible(page, 'the matrix with prices in other currencies');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    const stored = await shop.admin.products.get(product.id);
    assert.deepEqual(
      stored.variants.map((v) => [v.options['Size'], v.prices]),
      [
        ['S', []],
        ['M', [{ currency: 'EUR', amount: 1050, compareAtAmount: null }]],
      ],
    );

    // A new product is created with its EUR price.
    await page.goto('/admin/products/new');
    await page.getByRole('heading', { level: 1, name: 'Add product' }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Scarf');
    const variant = page.getByRole('group', { name: 'Variant 1' });
    await variant.getByLabel('Price (USD)', { exact: true }).fill('20');
    await variant.getByLabel('Price (EUR)', { exact: true }).fill('17');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByText('Created “Scarf”.').waitFor();
    const [scarf] = (await shop.admin.products.list({ q: 'scarf' })).items;
    assert.ok(scarf);
    assert.deepEqual((await shop.admin.products.get(scarf.id)).variants[0]!.prices, [
      { currency: 'EUR', amount: 1700, compareAtAmount: null },
    ]);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
