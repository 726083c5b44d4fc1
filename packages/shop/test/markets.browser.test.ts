/**
 * The shop in a market, in Chromium (issue 45, decision `markets`): the footer's country selector
 * lists the store's markets' countries with their currencies; choosing Germany reads the catalog
 * with `?country=DE` (cards and the product page in EUR, "incl. VAT" where the market's prices
 * include it), remembers the choice over a reload, makes the cart in EUR and starts the checkout's
 * address in Germany; JPY shows no decimals and KWD three; choosing "Other" moves the cart back to
 * the store's currency and says so. A sale shows its prior price (the lowest of the 30 days before
 * it, decision `prior-price`) in the market's currency; the tax words follow the country chosen.
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

    // Germany: every catalog read asks for DE; the cards in EUR (9.12 × 0.92 up to .99), with VAT.
    reads.length = 0;
    await select.selectOption('DE');
    await page.locator('.product-card-price').getByText('€8.99').first().waitFor();
    assert.equal(await page.locator('.product-card-price').getByText('$').count(), 0, 'no dollar left');
    assert.match(await textOf(page, '.product-card-price'), /^€8\.99 incl\. VAT$/);
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
    assert.equal(await textOf(page, '.product-price'), 'Sale price €11.99Regular price €13.99 incl. VAT');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('link', { name: 'View cart' }).click();
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    assert.match(await textOf(page, '.cart-totals'), /€11\.99/);
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
    assert.match(await textOf(page, '.cart-totals'), /KWD 3\.684/);
    await page.getByLabel('Country', { exact: true }).selectOption('');
    const moved =
      'The cart moved from the market Kuwait (KWD) to Default (USD): every line is priced there now.';
    await status.getByText(moved).waitFor();
    await page.locator('.cart .notice').getByText(moved).waitFor();
    assert.match(await textOf(page, '.cart-totals'), /\$12\.00/);
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
  test('a sale shows the lowest price of the 30 days before it, on the card and the product page, in the market', async () => {
    const shop = await openStore(h);
    await shop.admin.request('adminCreateMarket', {
      body: {
        name: 'Europe',
        countries: ['DE'],
        currency: 'EUR',
        exchangeRate: '0.92',
        rounding: 'none',
        pricesIncludeTax: true,
      },
    });
    // The price history, through the Admin API: Brass at $30.00, cut to $28.00, raised to $32.00,
    // then on sale at $24.00 against $32.00. The lowest before the sale: $28.00 (€25.76 at 0.92).
    const lamp = await shop.admin.products.create({
      title: 'Desk lamp',
      status: 'active',
      variants: [
        { label: 'Brass', priceAmount: 3000, onHand: 5 },
        { label: 'Steel', priceAmount: 3500, onHand: 5 },
      ],
    });
    const brass = lamp.variants[0]!.id;
    for (const body of [
      { priceAmount: 2800 },
      { priceAmount: 3200 },
      { priceAmount: 2400, compareAtAmount: 3200 },
    ])
      await shop.admin.request('adminUpdateVariant', { path: { id: brass }, body });
    // On sale from its first day: no earlier price, so nothing to show.
    const launched = await shop.admin.products.create({
      title: 'Launch mug',
      status: 'active',
      variants: [{ label: 'One size', priceAmount: 1000, compareAtAmount: 1500, onHand: 5 }],
    });
    const { context, page, problems } = await newPage(h);

    await page.goto('/shop/');
    const lampCard = page.locator('.product-card', { hasText: 'Desk lamp' });
    const prior = 'Lowest price in the last 30 days: $28.00';
    await lampCard.getByText(prior).waitFor();
    assert.equal(
      await textOf(page, '.product-card:has-text("Desk lamp") .product-card-price'),
      'Sale price $24.00Regular price $32.00',
    );
    const mugCard = page.locator('.product-card', { hasText: 'Launch mug' });
    await mugCard.getByText('$10.00').waitFor();
    assert.equal(await mugCard.locator('.price-prior').count(), 0, 'launched on sale: no prior price');
    // Text in the card's link (its accessible name), not only drawn.
    assert.match(await lampCard.innerText(), /Lowest price in the last 30 days: \$28\.00/);

    // The product page: the sale variant says it under its price; the other variant, not on sale, not.
    await page.goto(`/shop/products/${lamp.handle}`);
    await page.getByRole('heading', { name: 'Desk lamp', level: 1 }).waitFor();
    assert.equal(await textOf(page, '.product-price .price'), 'Sale price $24.00Regular price $32.00');
    assert.equal(await textOf(page, '.product-prior'), prior);
    assert.ok(await page.getByText(prior).isVisible());
    await page.getByRole('radio', { name: 'Steel' }).check();
    await page.locator('.product-price').getByText('$35.00').waitFor();
    assert.equal(await page.locator('.product-prior').count(), 0, 'no sale, no prior price');

    // In Germany: the prices and the prior price in EUR, with VAT.
    await page.getByLabel('Country', { exact: true }).selectOption('DE');
    await page.locator('.product-price').getByText('€32.20').waitFor();
    await page.getByRole('radio', { name: 'Brass' }).check();
    await page.locator('.product-price').getByText('€22.08').waitFor();
    assert.equal(
      await textOf(page, '.product-price .price'),
      'Sale price €22.08Regular price €29.44 incl. VAT',
    );
    assert.equal(await textOf(page, '.product-prior'), 'Lowest price in the last 30 days: €25.76');
    await assertAccessible(page, 'a product on sale with its prior price');
    await screenshot(page, 'product-prior-price', 'shop');

    await page.goto(`/shop/products/${launched.handle}`);
    await page.getByRole('heading', { name: 'Launch mug', level: 1 }).waitFor();
    await page.locator('.product-price').getByText('€9.20').waitFor();
    assert.equal(await page.getByText('Lowest price').count(), 0, 'launched on sale: no prior price');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('"incl. VAT", "incl. GST" or "incl. tax" by the country chosen; nothing where prices exclude tax', async () => {
    const shop = await openStore(h);
    await shop.admin.request('adminUpdateSettings', { body: { pricesIncludeTax: true } });
    for (const body of [
      {
        name: 'Europe',
        countries: ['DE', 'AT'],
        currency: 'EUR',
        exchangeRate: '0.92',
        pricesIncludeTax: true,
      },
      { name: 'Australia', countries: ['AU'], currency: 'AUD', exchangeRate: '1.5', pricesIncludeTax: true },
      { name: 'Japan', countries: ['JP'], currency: 'JPY', exchangeRate: '150', pricesIncludeTax: false },
    ] as const)
      await shop.admin.request('adminCreateMarket', { body: { ...body, countries: [...body.countries] } });
    await shop.admin.products.create({
      title: 'Linen tee',
      status: 'active',
      variants: [{ label: 'One size', priceAmount: 3000, onHand: 5 }],
    });
    const { context, page, problems } = await newPage(h);
    const price = page.locator('.product-card-price');
    const select = page.getByLabel('Country', { exact: true });

    // "Other": the default market, which names no country and includes tax: "incl. tax".
    await page.goto('/shop/');
    await price.getByText('$30.00').waitFor();
    assert.equal(await textOf(page, '.product-card-price'), '$30.00 incl. tax');

    await select.selectOption('DE');
    await price.getByText('€27.60').waitFor();
    assert.equal(await textOf(page, '.product-card-price'), '€27.60 incl. VAT');

    await select.selectOption('AU');
    await price.getByText('incl. GST').waitFor();
    assert.match(await textOf(page, '.product-card-price'), /^A\$45\.00 incl\. GST$/);

    // Japan's market excludes tax: no words at all.
    await select.selectOption('JP');
    await price.getByText('¥4,500').waitFor();
    assert.equal(await textOf(page, '.product-card-price'), '¥4,500');
    assert.equal(await page.getByText(/incl\./).count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
