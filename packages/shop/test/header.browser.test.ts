/**
 * The shop's header in Chromium. The focus: a page's heading takes it on navigation (a link, a
 * search, back), never on a data update: the store's name arriving late, or a page's data arriving
 * after the shopper went on typing in the search box, leaves it in the box with every letter typed.
 * The store's name on a phone: all of it shows at 375 px and at 320 px (on two lines when it must),
 * the header one row as tall as before.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, newPage, until } from '../../console/test/browser.test-support.ts';
import { focusOn, openStore, seedCatalog, startShop } from './shop.test-support.ts';

const h = startedForFile(startShop);

/**
 * Holds back the page's requests to the API path `pattern` until `release()`: a slow connection.
 * `held()` counts the requests held so far.
 */
async function holdBack(page: Page, pattern: RegExp) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  await page.route(pattern, async (route: Route) => {
    count++;
    await released;
    await route.continue();
  });
  return { release, held: () => count };
}

/** Until the effects of what is drawn have run (Preact runs them after the frame is painted). */
const settle = (page: Page) =>
  page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))))',
  );

const focusedId = (page: Page) => page.evaluate<string | null>('document.activeElement?.id ?? null');

/** Whether the whole text of the header's store name shows (neither cut at the side nor below). */
const nameFits = (page: Page) =>
  page.evaluate<{ fits: boolean; lines: number; text: string; width: number }>(`(() => {
    const name = document.querySelector('.site-name');
    const lineHeight = parseFloat(getComputedStyle(name).lineHeight);
    return {
      fits: name.scrollWidth <= name.clientWidth && name.scrollHeight <= name.clientHeight,
      lines: Math.round(name.clientHeight / lineHeight),
      text: name.textContent,
      width: name.clientWidth,
    };
  })()`);

describe('the shop’s header', () => {
  test('the store’s name or a page arriving late leaves the focus in the search box, every letter typed; navigation moves it to the heading', async () => {
    const shop = await openStore(h);
    const catalog = await seedCatalog(shop);
    const { context, page, problems } = await newPage(h);
    const name = shop.store.store.name;
    const box = page.getByRole('searchbox', { name: 'Search products' });

    // A slow connection: the store (its name) comes after the shopper started typing.
    const store = await holdBack(page, /\/storefront\/v1\/store$/);
    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    await until(async () => store.held() > 0, 'the store’s request');
    await box.click();
    await page.keyboard.type('mu');
    store.release();
    await page.locator('.site-name').getByText(name, { exact: true }).waitFor();
    assert.equal(await page.title(), name, 'the heading and the title have the name');
    await settle(page);
    await page.keyboard.type('g');
    assert.equal(await focusedId(page), 'site-search-input', 'the focus stayed in the search box');
    assert.equal(await box.inputValue(), 'mug', 'every letter landed in the box');

    // Searching is a navigation: the results' heading takes the focus.
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Results for “mug”', level: 1 }).waitFor();
    await focusOn(page, 'document.activeElement?.tagName', 'H1', 'a search moves the focus to the heading');

    // A link is: the collection's heading takes it.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shop all' }).click();
    await page.getByRole('heading', { name: 'Shop all', level: 1 }).waitFor();
    await focusOn(page, 'document.activeElement?.tagName', 'H1', 'a link moves the focus to the heading');

    // The product comes late; meanwhile the shopper types a search: the heading arriving leaves it.
    const product = await holdBack(page, new RegExp(`/storefront/v1/products/handle/${catalog.mug.handle}$`));
    await page.getByRole('link', { name: /Blue mug/ }).click();
    await until(async () => product.held() > 0, 'the product’s request');
    await box.click();
    await page.keyboard.type('so');
    product.release();
    await page.getByRole('heading', { name: 'Blue mug', level: 1 }).waitFor();
    await settle(page);
    await page.keyboard.type('cks');
    assert.equal(await focusedId(page), 'site-search-input', 'the focus stayed in the search box');
    assert.equal(await box.inputValue(), 'socks', 'every letter landed in the box');

    // Back is a navigation too: the collection's heading takes the focus.
    await page.goBack();
    await page.getByRole('heading', { name: 'Shop all', level: 1 }).waitFor();
    await focusOn(page, 'document.activeElement?.tagName', 'H1', 'back moves the focus to the heading');
    // And the store's name, home.
    await page.getByRole('link', { name, exact: true }).click();
    await page.waitForURL(/\/shop\/$/);
    await focusOn(page, 'document.activeElement?.tagName', 'H1', 'home moves the focus to its heading');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('on a phone the store’s name shows whole at 375 and 320 px, on two lines when it must; the header stays one row', async () => {
    const shop = await openStore(h);
    await seedCatalog(shop);
    await shop.admin.request('adminUpdateSettings', { body: { name: 'Demo Store' } });
    const { context, page, problems } = await newPage(h, { width: 375, height: 800 });

    await page.goto('/shop/');
    await page.getByRole('heading', { name: 'Latest products' }).waitFor();
    await page.locator('.site-name').getByText('Demo Store', { exact: true }).waitFor();
    const header = page.locator('.site-header');
    const rowHeight = (await header.boundingBox())!.height;
    const rename = async (name: string) => {
      await shop.admin.request('adminUpdateSettings', { body: { name } });
      await page.reload();
      await page.locator('.site-name').getByText(name, { exact: true }).waitFor();
    };
    /** The name at `width`: the header one row of the same height, nothing wider than the window. */
    const at = async (width: number) => {
      await page.setViewportSize({ width, height: 800 });
      const shown = await nameFits(page);
      process.stdout.write(
        `# the store's name at ${width} px: “${shown.text}” on ${shown.lines} line(s), ${shown.width} px wide\n`,
      );
      assert.equal(
        (await header.boundingBox())!.height,
        rowHeight,
        `the header keeps its height at ${width} px`,
      );
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(scrollWidth <= width, `nothing wider than the window at ${width} px (${scrollWidth} px)`);
      return shown;
    };

    for (const name of ['Demo Store', 'Test Store 8d3f2a1c']) {
      if (name !== 'Demo Store') await rename(name);
      for (const width of [375, 320]) {
        const shown = await at(width);
        assert.ok(shown.fits, `“${name}” shows whole at ${width} px: ${JSON.stringify(shown)}`);
        assert.equal(shown.text, name);
        assert.ok(shown.lines <= 2);
        if (name === 'Demo Store' && width === 375) assert.equal(shown.lines, 1, 'one line at 375 px');
      }
    }
    // A name longer than two lines can hold: two lines and an ellipsis, the row as tall; the link's
    // name is the whole name.
    const long = 'The Very Long Name of a Small Shop by the Sea';
    await rename(long);
    const shown = await at(320);
    assert.equal(shown.lines, 2);
    assert.equal(shown.fits, false);
    await page.getByRole('banner').getByRole('link', { name: long, exact: true }).waitFor();
    await page.setViewportSize({ width: 320, height: 800 });
    await assertAccessible(page, 'the header at 320 px with a long name');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
