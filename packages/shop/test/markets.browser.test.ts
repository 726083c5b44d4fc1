/**
 * The shop in a market, in Chromium (issue 45, decision `markets`): the footer's country selector
 * lists the store's markets' countries with their currencies; choosing Germany reads the catalog
 * with `?country=DE` (cards and the product page in EUR, "incl. tax" where the market's prices
 * include it), remembers the choice over a reload, makes the cart in EUR and starts the checkout's
 * address in Germany; JPY shows no decimals and KWD three; choosing "Other" moves the cart back to
 * the store's currency and says so.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, screenshot } from '../../console/test/browser.test-support.ts';
import { openStore, seedCatalog, startShop } from './shop.test-support.ts';

const h = startedForFile(startShop);

/** The text of the page's element, its white space collapsed. */
async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

describe('the shop in a market', () => {
  test('Germany in EUR from the list to the cart; "Other" moves the cart back to USD and says so', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    // Europe: converted at 0.92 up to the next .99, prices with tax; the tee has its own EUR price.
    await shop.admin.request('adminCreateMarket', {
      body: {
        name: 'Europe',
        countries: ['DE', 'AT'],
        currency: 'EUR',
        exchangeRate: '0.92',
        rounding: 'to_99',
        pricesIncludeTax: true,
      },
    });
    await shop.admin.request('adminCreateMarket', {
      body: { name: 'Japan', countries: ['JP'], currency: 'JPY', exchangeRate: '150' },
    });
    await shop.admin.request('adminCreateMarket', {
      body: { name: 'Kuwait', countries: ['KW'], currency: 'KWD', exchangeRate: '0.307' },
    });
    await shop.admin.request('adminUpdateVariant', {
      path: { id: catalog.tee.variant },
      body: { prices: [{ currency: 'EUR', amount: 2900 }] },
    });
    const { context, page, problems } = await newPage(h);
    const reads: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (/^\/storefront\/v1\/(products|collections)/.test(url.pathname))
        reads.push(url.pathname + url.search);
    });

    // The store's currency until a country is chosen; the selector lists each market's countries.
    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    const select = page.getByLabel('Country', { exact: true });
    await select.waitFor();
    assert.equal(await select.inputValue(), '', '"Other" (the default market) to start with');
    assert.deepEqual(await select.locator('option').allTextContents(), [
      'Austria — EUR',
      'Germany — EUR',
      'Japan — JPY',
      'Kuwait — KWD',
      'Other — USD',
    ]);
    await page.locator('.product-card-price').getByText('$9.12').waitFor();
    assert.equal(await page.getByText('incl. tax').count(), 0, 'the default market’s prices exclude tax');
    assert.ok(
      reads.length > 0 && reads.every((read) => !read.includes('country=')),
      `no country before one is chosen: ${reads.join(', ')}`,
    );

    // Germany: every catalog read asks for DE; the cards in EUR (9.12 × 0.92 up to .99), with tax.
    reads.length = 0;
    await select.selectOption('DE');
    await page.locator('.product-card-price').getByText('€8.99').first().waitFor();
    assert.equal(await page.locator('.product-card-price').getByText('$').count(), 0, 'no dollar left');
    assert.match(await textOf(page, '.product-card-price'), /^€8\.99 incl\. tax$/);
    // The collection's price range too: socks at €8.99, the tee's own €29.00.
    await page.locator('.collection-card-price').getByText('€8.99 – €29.00').waitFor();
    assert.ok(reads.length > 0, 'the catalog is read again');
    assert.deepEqual(
      reads.filter((read) => !/[?&]country=DE(&|$)/.test(read)),
      [],
      'every read after the choice is in Germany’s market',
    );
    await assertAccessible(page, 'the home with the country selector');
    // The whole page: the footer with the selector is below the first screen.
    await screenshot(page, 'markets', 'shop', { fullPage: true });

    // Kept over a reload, as every tab would see it.
    await page.reload();
    await page.locator('.product-card-price').getByText('€8.99').first().waitFor();
    assert.equal(await page.getByLabel('Country', { exact: true }).inputValue(), 'DE');

    // The product page: $12.00 (was $15.00) is €11.99 (was €13.99) in Europe.
    await page.goto(`/shop/products/${catalog.mug.handle}`);
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    assert.equal(await textOf(page, '.product-price'), 'Sale price €11.99Regular price €13.99 incl. tax');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    assert.match(await textOf(page, '.cart-subtotal'), /€11\.99/);
    assert.match(await textOf(page, '.cart-line-total'), /€11\.99/);
    const cartId = await page.evaluate<string | null>(`localStorage.getItem('storefront.cart')`);
    assert.ok(cartId);
    const inEurope = await shop.storefront.carts.get(cartId);
    assert.deepEqual(
      [inEurope.country, inEurope.subtotal.currency, inEurope.totals.taxIncluded],
      ['DE', 'EUR', true],
    );

    // The checkout's address starts in the country chosen, which keeps the cart in its market.
    await page.getByRole('link', { name: 'Check out' }).click();
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Country or region').inputValue(), 'DE');

    // Japan's yen has no minor unit, Kuwait's dinar three.
    await page.goto(`/shop/products/${catalog.tee.handle}`);
    await page.getByRole('heading', { name: 'Linen tee', level: 1 }).waitFor();
    await page.getByText('€29.00').waitFor();
    await page.getByLabel('Country', { exact: true }).selectOption('JP');
    await page.locator('.product-price').getByText('¥4,500').waitFor();
    await page.getByLabel('Country', { exact: true }).selectOption('KW');
    await page.locator('.product-price').getByText('KWD 9.210').waitFor();
    const status = page.locator('.country-select-said');
    await status.getByText('to Kuwait (KWD)').waitFor();

    // "Other": the store's own currency; the cart moves back to USD and the shopper is told.
    await page.goto('/shop/cart');
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    assert.match(await textOf(page, '.cart-subtotal'), /KWD 3\.684/);
    await page.getByLabel('Country', { exact: true }).selectOption('');
    const moved =
      'The cart moved from the market Kuwait (KWD) to Default (USD): every line is priced there now.';
    await status.getByText(moved).waitFor();
    await page.locator('.cart .notice').getByText(moved).waitFor();
    assert.match(await textOf(page, '.cart-subtotal'), /\$12\.00/);
    assert.match(await textOf(page, '.cart-line-total'), /\$12\.00/);
    const back = await shop.storefront.carts.get(cartId);
    assert.deepEqual([back.country, back.subtotal.currency], [undefined, 'USD']);
    assert.deepEqual(
      await page.evaluate(`Object.keys(localStorage).filter((key) => key.startsWith('storefront.country'))`),
      [],
      'no country kept',
    );
    await assertAccessible(page, 'the cart after the move');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
