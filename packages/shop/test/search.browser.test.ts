/**
 * The reference shop's search in Chromium (decision `storefront-search`): a typo still finds ("hodie" finds the hoodies),
 * option filters with their counts, the sort, the price range, "Load more", every state in the
 * address (back and forward, a shared link), the product opened by its handle and a combination
 * picked; "no results" with its suggestions and the button that clears the filters; the newest
 * products on the home page and the collection cards with their price ranges and sale markers;
 * the compact header on a phone (its height measured at 375 px) with its menu and search. axe-core
 * finds no serious or critical violation on the search pages.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, screenshot, until } from '../../console/test/browser.test-support.ts';
import { focusOn, openStore, seedCatalog, startShop, type ShopStore } from './shop.test-support.ts';

const h = startedForFile(startShop);

/** Three hoodies beside the catalog of seedCatalog, and a `hoodies` collection of them. */
async function seedHoodies({ admin }: ShopStore) {
  const classic = await admin.products.create({
    title: 'Classic Hoodie',
    status: 'active',
    tags: ['clothing'],
    options: [
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Colour', values: ['Grey', 'Navy'] },
    ],
    variants: [
      { options: { Size: 'S', Colour: 'Grey' }, priceAmount: 5000, onHand: 4 },
      { options: { Size: 'M', Colour: 'Grey' }, priceAmount: 5200, onHand: 4 },
      { options: { Size: 'M', Colour: 'Navy' }, priceAmount: 5200, onHand: 6 },
      { options: { Size: 'L', Colour: 'Navy' }, priceAmount: 5400, onHand: 2 },
    ],
  });
  const zip = await admin.products.create({
    title: 'Zip Hoodie',
    status: 'active',
    options: [{ name: 'Size', values: ['M', 'L'] }],
    variants: [
      { options: { Size: 'M' }, priceAmount: 4500, onHand: 3 },
      { options: { Size: 'L' }, priceAmount: 4500, onHand: 3 },
    ],
  });
  const kids = await admin.products.create({
    title: 'Kids Hoodie',
    status: 'active',
    options: [{ name: 'Size', values: ['S'] }],
    variants: [{ options: { Size: 'S' }, priceAmount: 3000, compareAtAmount: 3500, onHand: 5 }],
  });
  await admin.request('adminCreateCollection', {
    body: { title: 'Hoodies', slug: 'hoodies', kind: 'manual', productIds: [classic.id, zip.id, kids.id] },
  });
  return { classic, zip, kids };
}

const titles = (page: Page) => page.locator('.search-results .product-card-title').allTextContents();

/** Waits until the result cards are exactly these titles, in this order. */
async function cardsAre(page: Page, expected: string[]): Promise<void> {
  await until(
    async () => {
      const shown = await titles(page);
      return JSON.stringify(shown) === JSON.stringify(expected) && shown;
    },
    `cards ${expected.join(', ')}`,
  );
}

/** The status (live region) saying how many were found. */
const resultCount = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text });

/** The text of the label around the focused element (where the focus is after a change). */
const focusedLabel = (page: Page) =>
  page.evaluate<string | null>(
    'document.activeElement && document.activeElement.closest("label") ? document.activeElement.closest("label").textContent : null',
  );

describe('the reference shop: search', () => {
  test('a typo finds; filter by size, sort by price, a price range; back and forward; the product by its handle', async () => {
    const shop = await openStore(h);
    await seedCatalog(shop);
    const hoodies = await seedHoodies(shop);
    const { context, page, problems } = await newPage(h);

    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    const search = page.getByRole('search', { name: 'Search products' });
    await search.getByRole('searchbox', { name: 'Search products' }).fill('hodie');
    await search.getByRole('searchbox', { name: 'Search products' }).press('Enter');
    await page.waitForURL(/\/shop\/search\?q=hodie$/);
    await page.getByRole('heading', { name: 'Results for “hodie”', level: 1 }).waitFor();
    await resultCount(page, '3 results for “hodie”').waitFor();
    assert.deepEqual((await titles(page)).sort(), ['Classic Hoodie', 'Kids Hoodie', 'Zip Hoodie']);
    // The box shows what was searched.
    assert.equal(await search.getByRole('searchbox').inputValue(), 'hodie');
    // Relevance is the sort with words; every option value with its count.
    assert.equal(await page.getByLabel('Sort by').inputValue(), 'relevance');
    const size = page.getByRole('group', { name: 'Size' });
    for (const name of ['S (2)', 'M (2)', 'L (2)']) await size.getByRole('checkbox', { name }).waitFor();
    await page.getByRole('checkbox', { name: 'In stock only (3)' }).waitFor();
    await page
      .getByRole('group', { name: 'Collection' })
      .getByRole('radio', { name: 'Hoodies (3)' })
      .waitFor();
    await assertAccessible(page, 'search results');

    // Size M: two hoodies; the checkbox keeps the focus, its count stays (the other sizes' too).
    await size.getByRole('checkbox', { name: 'M (2)' }).check();
    await page.waitForURL(/\/shop\/search\?q=hodie&option\.Size=M$/);
    await resultCount(page, '2 results for “hodie”').waitFor();
    assert.deepEqual((await titles(page)).sort(), ['Classic Hoodie', 'Zip Hoodie']);
    assert.equal(await focusedLabel(page), 'M (2)');
    assert.equal(await size.getByRole('checkbox', { name: 'M (2)' }).isChecked(), true);
    await size.getByRole('checkbox', { name: 'L (2)' }).waitFor();
    await page.getByRole('group', { name: 'Colour' }).getByRole('checkbox', { name: 'Navy (1)' }).waitFor();
    await page.locator('summary').getByText('(1 chosen)').waitFor();

    // By price, up and down (card prices: Zip 45.00, Classic 50.00).
    await page.getByLabel('Sort by').selectOption('price_asc');
    await page.waitForURL(/option\.Size=M&sort=price_asc$/);
    await cardsAre(page, ['Zip Hoodie', 'Classic Hoodie']);
    assert.deepEqual(await page.locator('.search-results .product-card-price').allTextContents(), [
      '$45.00',
      '$50.00',
    ]);
    await page.getByLabel('Sort by').selectOption('price_desc');
    await cardsAre(page, ['Classic Hoodie', 'Zip Hoodie']);
    await screenshot(page, 'search', 'shop');

    // A price range: the M variant must be within it (Classic's M is 52.00).
    await page.getByLabel('Max price').fill('50');
    await page.getByRole('button', { name: 'Apply price' }).click();
    await page.waitForURL(/maxPrice=5000/);
    await resultCount(page, '1 result for “hodie”').waitFor();
    await cardsAre(page, ['Zip Hoodie']);
    // A lowest price above the highest is refused before it is sent.
    await page.getByLabel('Min price').fill('60');
    await page.getByRole('button', { name: 'Apply price' }).click();
    await page.getByRole('alert').getByText('The lowest price must not be above the highest.').waitFor();
    assert.match(page.url(), /maxPrice=5000&option\.Size=M&sort=price_desc$/);

    // Back: the price goes, and its field empties; forward brings it back.
    await page.goBack();
    await resultCount(page, '2 results for “hodie”').waitFor();
    assert.equal(await page.getByLabel('Max price').inputValue(), '');
    assert.equal(await page.getByLabel('Sort by').inputValue(), 'price_desc');
    await page.goForward();
    await resultCount(page, '1 result for “hodie”').waitFor();
    assert.equal(await page.getByLabel('Max price').inputValue(), '50');
    await page.goBack();
    await page.goBack();
    await cardsAre(page, ['Zip Hoodie', 'Classic Hoodie']);
    assert.equal(await page.getByLabel('Sort by').inputValue(), 'price_asc');

    // A shared link shows the same list in a new tab.
    const shared = await context.newPage();
    await shared.goto(page.url());
    await resultCount(shared, '2 results for “hodie”').waitFor();
    await cardsAre(shared, ['Zip Hoodie', 'Classic Hoodie']);
    assert.equal(await shared.getByRole('checkbox', { name: 'M (2)' }).isChecked(), true);
    await shared.close();

    // The product, by its handle; a combination picked.
    await page.getByRole('link', { name: /Classic Hoodie/ }).click();
    await page.getByRole('heading', { name: 'Classic Hoodie', level: 1 }).waitFor();
    assert.match(page.url(), new RegExp(`/shop/products/${hoodies.classic.handle}$`));
    assert.equal(hoodies.classic.handle, 'classic-hoodie');
    const navyM = hoodies.classic.variants.find(
      (v) => v.options.Size === 'M' && v.options.Colour === 'Navy',
    )!;
    await page
      .getByRole('group', { name: /^Size: / })
      .getByRole('radio', { name: /^M$/ })
      .check();
    await page
      .getByRole('group', { name: /^Colour: / })
      .getByRole('radio', { name: /^Navy$/ })
      .check();
    await page.waitForURL(new RegExp(`/shop/products/classic-hoodie\\?variant=${navyM.id}$`));
    assert.equal(await page.locator('.product-price').textContent(), '$52.00');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added 1 × Classic Hoodie (M / Navy) to your cart.').waitFor();

    // Back to the list as it was (the chosen variant replaced the product's address).
    await page.goBack();
    await page.waitForURL(/\/shop\/search\?q=hodie&option\.Size=M&sort=price_asc$/);
    await cardsAre(page, ['Zip Hoodie', 'Classic Hoodie']);

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('load more keeps its pages in the address; no results: suggestions, clear the filters; newest first on the home; collection cards', async () => {
    const shop = await openStore(h);
    await seedCatalog(shop);
    await seedHoodies(shop);
    // The merchant has just published a product: it leads "Latest products".
    await shop.admin.products.create({
      title: 'Just added lamp',
      status: 'active',
      variants: [{ label: 'One size', priceAmount: 7000, onHand: 1 }],
    });
    const { context, page, problems } = await newPage(h);

    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    assert.equal(
      await page.locator('.product-grid li').first().locator('.product-card-title').textContent(),
      'Just added lamp',
    );
    // Collection cards: their price ranges, and a sale marker where a product is on sale.
    const collections = page.getByRole('region', { name: 'Collections' });
    const shopAll = collections.getByRole('link', { name: /^Shop all/ });
    await shopAll.waitFor();
    assert.equal(await shopAll.getAttribute('href'), '/shop/collections/shop-all');
    assert.equal(await shopAll.locator('.collection-card-price').textContent(), ', $9.01 – $30.00');
    await shopAll.getByText('Sale', { exact: true }).waitFor();
    await shopAll.getByText('14 products').waitFor();
    const hoodieCard = collections.getByRole('link', { name: /^Hoodies/ });
    assert.equal(await hoodieCard.locator('.collection-card-price').textContent(), ', $30.00 – $50.00');
    await assertAccessible(page, 'home with collection cards');

    // Everything, newest first, twelve at a time; the pages shown are in the address.
    await page.getByRole('link', { name: 'See all products' }).click();
    await page.getByRole('heading', { name: 'All products', level: 1 }).waitFor();
    await resultCount(page, '18 products').waitFor();
    assert.equal(await page.getByLabel('Sort by').inputValue(), 'newest');
    assert.equal(
      await page.getByRole('option', { name: 'Relevance' }).count(),
      0,
      'no relevance without words',
    );
    assert.equal((await titles(page)).length, 12);
    assert.equal((await titles(page))[0], 'Just added lamp');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.waitForURL(/\/shop\/search\?pages=2$/);
    await until(async () => (await titles(page)).length === 18, 'the second page');
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'the last page');
    // The focus is on the first card of the new page.
    assert.equal(
      await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent'),
      (await page.locator('.search-results .product-card').nth(12).textContent()) ?? '',
    );
    await page.locator('.search-results .product-card').nth(17).click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.goBack();
    await until(async () => (await titles(page)).length === 18, 'both pages, back from the product');

    // Nothing found: suggestions, collections and the latest products.
    await page.goto('/shop/search?q=zzzqqq');
    await page.getByRole('heading', { name: 'No products found' }).waitFor();
    await resultCount(page, '0 results for “zzzqqq”').waitFor();
    await page.getByText('Check the spelling, or try a shorter or more general word.').waitFor();
    await page.getByRole('link', { name: 'See the latest products' }).waitFor();
    await page.getByRole('heading', { name: 'Browse a collection' }).waitFor();
    await page
      .locator('.no-results')
      .getByRole('link', { name: /^Hoodies/ })
      .waitFor();
    assert.equal(
      await page.getByRole('button', { name: 'clear all filters' }).count(),
      0,
      'no filters to clear',
    );
    await assertAccessible(page, 'no results');

    // Found nothing with these filters: clear them, the words stay; the focus goes to the title.
    await page.goto('/shop/search?q=hodie&option.Size=XXL&available=true');
    await page.getByRole('heading', { name: 'No products found' }).waitFor();
    await page.getByText('Nothing matches “hodie” with these filters.').waitFor();
    await page.getByRole('group', { name: 'Size' }).getByRole('checkbox', { name: 'XXL (0)' }).waitFor();
    await page.locator('.no-results').getByRole('button', { name: 'clear all filters' }).click();
    await page.waitForURL(/\/shop\/search\?q=hodie$/);
    await resultCount(page, '3 results for “hodie”').waitFor();
    assert.equal(
      await page.evaluate<string | null>('document.activeElement && document.activeElement.tagName'),
      'H1',
    );
    await page.getByRole('checkbox', { name: 'In stock only (3)' }).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: 'In stock only (3)' }).isChecked(), false);

    // Collection filter: a radio per collection, with its count.
    await page.getByRole('group', { name: 'Collection' }).getByRole('radio', { name: 'Hoodies (3)' }).check();
    await page.waitForURL(/collection=hoodies/);
    await resultCount(page, '3 results for “hodie”').waitFor();
    assert.equal(await focusedLabel(page), 'Hoodies (3)');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('on a phone: a compact header with a menu button and a search button; search and filters at 375 px', async () => {
    const shop = await openStore(h);
    await seedCatalog(shop);
    await seedHoodies(shop);
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });

    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    const header = page.locator('.site-header');
    const height = (await header.boundingBox())!.height;
    process.stdout.write(`# shop header at 375 px: ${height} px tall\n`);
    assert.ok(height <= 72, `the header is ${height} px tall at 375 px`);
    // One row: nothing of it wraps below the menu button.
    const menuButton = page.getByRole('button', { name: 'Menu' });
    assert.equal(await menuButton.getAttribute('aria-expanded'), 'false');
    assert.equal(await menuButton.getAttribute('aria-controls'), 'site-nav');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false);
    assert.equal(await page.getByRole('searchbox', { name: 'Search products' }).isVisible(), false);
    await page.getByRole('link', { name: 'Cart, 0 items' }).waitFor();
    await assertAccessible(page, 'home at 375 px');

    // The menu opens below the header (which keeps its height) and closes on a new page.
    await menuButton.click();
    assert.equal(await menuButton.getAttribute('aria-expanded'), 'true');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.waitFor();
    assert.equal((await header.boundingBox())!.height, height);
    await assertAccessible(page, 'the menu open at 375 px');
    // Escape closes it and gives the focus back to its button.
    await page.keyboard.press('Escape');
    await nav.waitFor({ state: 'hidden' });
    assert.equal(
      await page.evaluate<string | null>('document.activeElement.getAttribute("aria-controls")'),
      'site-nav',
    );
    await menuButton.click();
    await nav.getByRole('link', { name: 'Shop all' }).click();
    await page.getByRole('heading', { name: 'Shop all', level: 1 }).waitFor();
    await nav.waitFor({ state: 'hidden' });
    assert.equal(await menuButton.getAttribute('aria-expanded'), 'false');

    // The search button opens the box, focused.
    const searchButton = page.getByRole('button', { name: 'Show search' });
    assert.equal(await searchButton.getAttribute('aria-controls'), 'site-search');
    await searchButton.click();
    assert.equal(await searchButton.getAttribute('aria-expanded'), 'true');
    const box = page.getByRole('searchbox', { name: 'Search products' });
    await box.waitFor();
    await focusOn(
      page,
      'document.activeElement?.getAttribute("type")',
      'search',
      'the search box takes the focus',
    );
    await box.fill('hodie');
    await box.press('Enter');
    await resultCount(page, '3 results for “hodie”').waitFor();
    assert.equal(await box.isVisible(), false, 'the box closes on the results page');

    // The filters fold away on a phone.
    const filters = page.getByRole('group', { name: 'Size' });
    assert.equal(await filters.isVisible(), false);
    await page.locator('summary').click();
    await filters.getByRole('checkbox', { name: 'S (2)' }).check();
    await resultCount(page, '2 results for “hodie”').waitFor();
    await assertAccessible(page, 'search at 375 px');
    await page.locator('summary').click();
    await filters.waitFor({ state: 'hidden' });
    await screenshot(page, 'search-phone', 'shop');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
