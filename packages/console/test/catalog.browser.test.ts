/**
 * Products and collections in Chromium: a product with two variants whose decimal prices are stored
 * as exact minor units, search by title and SKU, the list's filters (status, collection, stock) and
 * orders kept in the address, with its pages, editing, API problems at their fields (a taken SKU,
 * on hand below the reserved units), deletion; variants' weights and whether they are shipped; a
 * product's handle (made from the title, changed, a taken one refused) and SEO fields; a manual collection reordered by drag, by keyboard and
 * by the Move buttons; a smart collection's live preview. What the page shows and what the server
 * stored are both checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StorefrontError } from '@storefront/client';
import type { Page, Request } from 'playwright-core';
import { openShop, startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, screenshot, signedInPage, startConsole } from './browser.test-support.ts';

const h = startedForFile(startConsole);

/** A 1×1 PNG, served for the image preview's https address (nothing leaves the machine). */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** The product titles in the products table, in order. */
async function listedTitles(page: Page): Promise<string[]> {
  return page.locator('table tbody tr td:nth-child(2) > a').allTextContents();
}

/** Waits until the products table lists exactly `titles` (the search is debounced). */
async function expectListed(page: Page, titles: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = (await page.locator('table').count()) > 0 ? await listedTitles(page) : [];
    if (JSON.stringify(seen) === JSON.stringify(titles)) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(seen, titles);
}

/** The product titles of the manual collection's ordered list, as shown. */
async function shownOrder(page: Page): Promise<string[]> {
  return page.locator('ol.sortable .member-title > a').allTextContents();
}

async function expectOrder(page: Page, titles: string[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = await shownOrder(page);
    if (JSON.stringify(seen) === JSON.stringify(titles)) return;
    await page.waitForTimeout(50);
  }
  assert.deepEqual(seen, titles);
}

describe('products in the console', () => {
  test('create with two variants (exact minor units), search by title and SKU, edit, errors at their fields, delete', async () => {
    const { shop: store, admin } = await openShop(h.live);
    const coat = await admin.products.create({
      title: 'Wool Coat',
      status: 'active',
      variants: [{ sku: 'WC-1', label: 'One size', priceAmount: 20000, onHand: 3 }],
    });
    const { context, page, problems } = await signedInPage(h, store);
    await page.route('https://images.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL }),
    );

    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Add product' }).click();
    await page.getByRole('heading', { name: 'Add product', level: 1 }).waitFor();

    await page.getByLabel('Title', { exact: true }).fill('Linen Shirt');
    await page.getByLabel('Description', { exact: true }).fill('Cool in summer.');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('active');
    await page.getByLabel('Tags').fill('summer, linen');
    // The image preview: a message for http, the picture for https.
    await page.getByLabel('Image URL').fill('http://images.example/shirt.png');
    await page.getByText('Use an https address').waitFor();
    await page.getByLabel('Image URL').fill('https://images.example/shirt.png');
    const preview = page.getByRole('img', { name: 'Image of Linen Shirt' });
    await preview.waitFor();
    // The picture really loaded (the browser decoded the 1×1 PNG). A function predicate on the element:
    // a string one needs eval, which the console's CSP refuses.
    await page.waitForFunction(
      (img) => {
        const image = img as { complete?: boolean; naturalWidth?: number } | null;
        return image?.complete === true && image.naturalWidth === 1;
      },
      await preview.elementHandle(),
    );

    const first = page.getByRole('group', { name: 'Variant 1' });
    await first.getByLabel('Label').fill('Small');
    await first.getByLabel('SKU').fill('LS-S');
    await first.getByLabel('Price (USD)', { exact: true }).fill('19.99');
    await first.getByLabel('On hand').fill('5');
    await page.getByRole('button', { name: 'Add variant' }).click();
    const second = page.getByRole('group', { name: 'Variant 2' });
    await second.getByLabel('Label').fill('Large');
    await second.getByLabel('SKU').fill('LS-L');
    await second.getByLabel('Price (USD)', { exact: true }).fill('1,234.50');
    await second.getByLabel('Compare-at price (USD)').fill('1500');
    await second.getByLabel('On hand').fill('2');
    // A price the form cannot read exactly is refused at the field, before anything is sent.
    await first.getByLabel('Compare-at price (USD)').fill('19.9999');
    await first.getByText('Use at most 2 decimals.').waitFor();
    await first.getByLabel('Compare-at price (USD)').fill('');
    await assertAccessible(page, 'new product form');

    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { name: 'Linen Shirt', level: 1 }).waitFor();
    await page.getByText('Created “Linen Shirt”.').waitFor();
    const [stored] = (await admin.products.list({ q: 'linen' })).items;
    assert.ok(stored);
    assert.equal(stored.status, 'active');
    assert.equal(stored.description, 'Cool in summer.');
    assert.equal(stored.image, 'https://images.example/shirt.png');
    assert.deepEqual(stored.tags, ['summer', 'linen']);
    assert.deepEqual(
      stored.variants.map((v) => [v.label, v.sku, v.priceAmount, v.compareAtAmount, v.onHand]),
      [
        ['Small', 'LS-S', 1999, null, 5],
        ['Large', 'LS-L', 123450, 150000, 2],
      ],
    );

    // The list (newest first): search by title, by SKU, filter by status.
    await page.getByRole('link', { name: 'Products', exact: true }).first().click();
    await expectListed(page, ['Linen Shirt', 'Wool Coat']);
    await page.getByRole('searchbox', { name: 'Search' }).fill('linen');
    await expectListed(page, ['Linen Shirt']);
    assert.match(page.url(), /\?q=linen$/);
    await page.getByRole('searchbox', { name: 'Search' }).fill('ls-l');
    await expectListed(page, ['Linen Shirt']);
    await page.getByRole('searchbox', { name: 'Search' }).fill('WC-1');
    await expectListed(page, ['Wool Coat']);
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await expectListed(page, ['Linen Shirt', 'Wool Coat']);
    await page.getByRole('combobox', { name: 'Status' }).selectOption('draft');
    await page.getByText('No products match with the status draft').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');
    await expectListed(page, ['Linen Shirt', 'Wool Coat']);
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Linen Shirt' }) });
    assert.match((await row.textContent()) ?? '', /\$19\.99 – \$1,234\.50/);
    assert.match((await row.textContent()) ?? '', /7 available · 2 variants/);
    await assertAccessible(page, 'products list');
    await screenshot(page, 'products');

    // Edit: title, a price, a new variant.
    await page.getByRole('link', { name: 'Linen Shirt' }).click();
    await page.getByRole('heading', { name: 'Linen Shirt', level: 1 }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Linen Shirt Classic');
    await first.getByLabel('Price (USD)', { exact: true }).fill('21');
    await page.getByRole('button', { name: 'Add variant' }).click();
    const third = page.getByRole('group', { name: 'Variant 3' });
    await third.getByLabel('Label').fill('Medium');
    await third.getByLabel('Price (USD)', { exact: true }).fill('20.5');
    await third.getByLabel('On hand').fill('4');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('heading', { name: 'Linen Shirt Classic', level: 1 }).waitFor();
    let edited = await admin.products.get(stored.id);
    assert.equal(edited.title, 'Linen Shirt Classic');
    assert.deepEqual(
      edited.variants.map((v) => [v.label, v.sku, v.priceAmount]),
      [
        ['Small', 'LS-S', 2100],
        ['Large', 'LS-L', 123450],
        ['Medium', null, 2050],
      ],
    );

    // A server validation error at its field: the SKU is the Wool Coat's.
    await third.getByLabel('SKU').fill('WC-1');
    await page.getByRole('button', { name: 'Save product' }).click();
    const skuError = third.getByText('The SKU is already used in this store.');
    await skuError.waitFor();
    assert.equal(await third.getByLabel('SKU').getAttribute('aria-invalid'), 'true');
    await page.getByRole('alert').getByText('The SKU "WC-1" is already used').waitFor();
    edited = await admin.products.get(stored.id);
    assert.equal(edited.variants[2]!.sku, null, 'nothing stored');
    await third.getByLabel('SKU').fill('LS-M');

    // On hand below what pending orders hold: 409 stock_reserved, shown at the variant's On hand.
    await h.live.t.db.kysely
      .updateTable('variants')
      .set({ reserved: 3 })
      .where('id', '=', edited.variants[0]!.id)
      .execute();
    await page.reload();
    await page.getByRole('heading', { name: 'Linen Shirt Classic', level: 1 }).waitFor();
    const small = page.getByRole('group', { name: 'Variant 1' });
    assert.match((await small.locator('dl.stock').textContent()) ?? '', /Reserved3Available2/);
    await small.getByLabel('On hand').fill('1');
    await page.getByRole('button', { name: 'Save product' }).click();
    await small.getByText('On hand must be at least 3 (reserved by pending orders)').waitFor();
    assert.equal(await small.getByLabel('On hand').getAttribute('aria-invalid'), 'true');
    assert.equal((await admin.products.get(stored.id)).variants[0]!.onHand, 5, 'on hand unchanged');
    await small.getByLabel('On hand').fill('8');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    assert.equal((await admin.products.get(stored.id)).variants[0]!.onHand, 8);
    await assertAccessible(page, 'product edit form');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'product-edit');

    // Delete, with a confirmation.
    await page.getByRole('link', { name: 'Products', exact: true }).first().click();
    await page.getByRole('link', { name: 'Wool Coat' }).click();
    await page.getByRole('heading', { name: 'Wool Coat', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete product' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Wool Coat”?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete product' }).click();
    await page.getByText('Deleted “Wool Coat”.').waitFor();
    await expectListed(page, ['Linen Shirt Classic']);
    const gone = await admin.products.get(coat.id).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(gone instanceof StorefrontError && gone.status === 404, 'the product is deleted');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a variant's weight and whether it is shipped are saved, and a new variant's too", async () => {
    const { shop: store, admin } = await openShop(h.live);
    const product = await admin.products.create({
      title: 'Gift box',
      status: 'active',
      variants: [
        { label: 'Box', priceAmount: 2500, onHand: 5 },
        { label: 'Gift card', priceAmount: 5000, onHand: 100 },
      ],
    });
    const { context, page, problems } = await signedInPage(h, store);
    await page.goto(`/admin/products/${product.id}`);
    await page.getByRole('heading', { name: 'Gift box', level: 1 }).waitFor();
    const box = page.getByRole('group', { name: 'Variant 1' });
    const card = page.getByRole('group', { name: 'Variant 2' });
    assert.equal(await box.getByLabel('Weight (g)').inputValue(), '');
    assert.equal(await box.getByLabel('Requires shipping').isChecked(), true);

    // A weight the form cannot read is refused at the field, before anything is sent.
    await box.getByLabel('Weight (g)').fill('1.5');
    await page.getByRole('button', { name: 'Save product' }).click();
    await box.getByText('Enter a whole number of grams (at most 10,000,000), or leave it empty.').waitFor();
    assert.equal(await box.getByLabel('Weight (g)').getAttribute('aria-invalid'), 'true');
    await box.getByLabel('Weight (g)').fill('750');
    await card.getByLabel('Requires shipping').uncheck();
    await page.getByRole('button', { name: 'Add variant' }).click();
    const large = page.getByRole('group', { name: 'Variant 3' });
    await large.getByLabel('Label').fill('Large box');
    await large.getByLabel('Price (USD)', { exact: true }).fill('40');
    await large.getByLabel('Weight (g)').fill('2000');
    await assertAccessible(page, 'product form with weights');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    let stored = await admin.products.get(product.id);
    assert.deepEqual(
      stored.variants.map((v) => [v.label, v.weightGrams, v.requiresShipping]),
      [
        ['Box', 750, true],
        ['Gift card', null, false],
        ['Large box', 2000, true],
      ],
    );

    // Read back after a reload; clearing the weight stores none.
    await page.reload();
    await page.getByRole('heading', { name: 'Gift box', level: 1 }).waitFor();
    assert.equal(await box.getByLabel('Weight (g)').inputValue(), '750');
    assert.equal(await card.getByLabel('Requires shipping').isChecked(), false);
    await box.getByLabel('Weight (g)').fill('');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    stored = await admin.products.get(product.id);
    assert.deepEqual(
      stored.variants.map((v) => v.weightGrams),
      [null, null, 2000],
    );
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('handle and SEO: made from the title, changed (only what changed is sent), a taken or malformed one refused at the Handle field', async () => {
    const { shop: store, admin } = await openShop(h.live);
    await admin.products.create({
      title: 'Wool Coat',
      handle: 'wool-coat',
      status: 'active',
      variants: [{ label: 'One size', priceAmount: 20000, onHand: 3 }],
    });
    const { context, page, problems } = await signedInPage(h, store);
    const isPatch = (request: Request) =>
      request.method() === 'PATCH' && /\/admin\/v1\/products\/[^/]+$/.test(request.url());
    /** The bodies of the product PATCHes the form sends. */
    const patches: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (isPatch(request)) patches.push(request.postDataJSON() as Record<string, unknown>);
    });
    /** Saves, once the product's PATCH is answered (an earlier "Saved." is still on the page until then). */
    const save = async () => {
      const answered = page.waitForResponse((response) => isPatch(response.request()));
      await page.getByRole('button', { name: 'Save product' }).click();
      await answered;
    };
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('link', { name: 'Add product' }).click();
    await page.getByRole('heading', { name: 'Add product', level: 1 }).waitFor();

    // Create: the handle starts empty; the preview follows the title, then what is typed.
    const handle = page.getByLabel('Handle');
    assert.equal(await handle.inputValue(), '');
    await page.getByText('Left empty: made from the title (e.g. linen-shirt).').waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Linen Shirt');
    await page.getByText('In the shop: /shop/products/linen-shirt (from the title)').waitFor();
    await page
      .getByRole('group', { name: 'Variant 1' })
      .getByLabel('Price (USD)', { exact: true })
      .fill('25');
    await handle.fill('Linen Shirt!');
    await page.getByText('In the shop: /shop/products/Linen Shirt!').waitFor();
    await page.getByRole('button', { name: 'Create product' }).click();
    await page
      .getByText('Use lower-case letters and digits, with single hyphens between words, like “linen-shirt”.')
      .waitFor();
    assert.equal(await handle.getAttribute('aria-invalid'), 'true');
    assert.equal((await admin.products.list({ q: 'linen' })).items.length, 0, 'nothing sent');
    await handle.fill('');
    const seo = page.getByRole('group', { name: 'Search engines' });
    await seo.getByText('For the browser tab and search results. Left empty: the product title.').waitFor();
    await seo.getByText('0 of 500 characters.').waitFor();
    await assertAccessible(page, 'new product form with handle and SEO fields');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { name: 'Linen Shirt', level: 1 }).waitFor();
    await page.getByText('Created “Linen Shirt”.').waitFor();
    const [created] = (await admin.products.list({ q: 'linen' })).items;
    assert.ok(created);
    assert.equal(created.handle, 'linen-shirt', 'made from the title');
    assert.deepEqual(created.seo, { title: null, description: null });
    assert.equal(await handle.inputValue(), 'linen-shirt', 'the saved product shows its handle');
    await page
      .getByText('After a change, the old address keeps working: it redirects to the new one.')
      .waitFor();

    // Edit the handle and the SEO fields: the preview names the address that will redirect.
    await handle.fill('summer-linen-shirt');
    await page
      .getByText(
        'In the shop: /shop/products/summer-linen-shirt; /shop/products/linen-shirt will redirect there',
      )
      .waitFor();
    await seo.getByLabel('Page title').fill('Linen shirt for summer');
    await seo.getByLabel('Meta description').fill('Breathable linen, cut loose.');
    await seo.getByText('28 of 500 characters.').waitFor();
    await save();
    await page.getByText('Saved.').waitFor();
    let stored = await admin.products.get(created.id);
    assert.equal(stored.handle, 'summer-linen-shirt');
    assert.deepEqual(stored.seo, {
      title: 'Linen shirt for summer',
      description: 'Breathable linen, cut loose.',
    });
    assert.equal(patches.at(-1)!.handle, 'summer-linen-shirt');
    assert.deepEqual(patches.at(-1)!.seo, {
      title: 'Linen shirt for summer',
      description: 'Breathable linen, cut loose.',
    });

    // Clearing the page title sends only that SEO field, and no handle.
    await seo.getByLabel('Page title').fill('  ');
    await save();
    await page.getByText('Saved.').waitFor();
    assert.ok(!('handle' in patches.at(-1)!), 'an unchanged handle is not sent');
    assert.deepEqual(patches.at(-1)!.seo, { title: null });
    stored = await admin.products.get(created.id);
    assert.deepEqual(stored.seo, { title: null, description: 'Breathable linen, cut loose.' });

    // A handle another product has: 409 handle_unavailable, shown at the Handle field.
    await handle.fill('wool-coat');
    await save();
    await page.getByText('The handle is already used by another product of this store.').waitFor();
    assert.equal(await handle.getAttribute('aria-invalid'), 'true');
    await page
      .getByRole('alert')
      .getByText('Another product of this store has the handle "wool-coat".')
      .waitFor();
    await page.getByText('The fields concerned are marked below.').waitFor();
    assert.equal((await admin.products.get(created.id)).handle, 'summer-linen-shirt', 'nothing stored');
    await assertAccessible(page, 'product form with a taken handle');
    // Emptied on edit: asked for, before anything is sent.
    await handle.fill('');
    const sent = patches.length;
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Enter a handle (it was “summer-linen-shirt”).').waitFor();
    assert.equal(patches.length, sent, 'nothing sent');

    // The list shows the handle under the title.
    await page.getByRole('link', { name: 'Products', exact: true }).first().click();
    await expectListed(page, ['Linen Shirt', 'Wool Coat']);
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Linen Shirt' }) });
    await row.getByText('summer-linen-shirt').waitFor();
    await assertAccessible(page, 'products list with handles');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("the list's filters and orders: collection, stock, sort, kept in the address, with their pages", async () => {
    const { shop: store, admin } = await openShop(h.live);
    const make = (
      title: string,
      priceAmount: number,
      onHand: number,
      status: 'active' | 'draft' = 'active',
    ) => admin.products.create({ title, status, variants: [{ label: 'One', priceAmount, onHand }] });
    const mug = await make('Alpha Mug', 1500, 10);
    const plate = await make('Beta Plate', 4500, 3);
    await make('Gamma Lamp', 9000, 0);
    const bowl = await make('Delta Bowl', 2500, 5, 'draft');
    const kitchen = await admin.request('adminCreateCollection', {
      body: { title: 'Kitchen', slug: 'kitchen', kind: 'manual', productIds: [plate.id, mug.id, bowl.id] },
    });
    const { context, page, problems } = await signedInPage(h, store);
    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
    const search = page.getByRole('search', { name: 'Products' });
    const sort = search.getByRole('combobox', { name: 'Sort by' });
    const stock = search.getByRole('combobox', { name: 'Stock' });
    const collection = search.getByRole('combobox', { name: 'Collection' });
    const query = () => new URL(page.url()).searchParams.toString();

    // Newest first by default, and the default is not written in the address.
    await expectListed(page, ['Delta Bowl', 'Gamma Lamp', 'Beta Plate', 'Alpha Mug']);
    assert.equal(await sort.inputValue(), 'created_desc');
    assert.equal(query(), '');
    await page.getByRole('table', { name: 'Products, newest first' }).waitFor();

    // Each order.
    await sort.selectOption({ label: 'Oldest first' });
    await expectListed(page, ['Alpha Mug', 'Beta Plate', 'Gamma Lamp', 'Delta Bowl']);
    await sort.selectOption({ label: 'Title A–Z' });
    await expectListed(page, ['Alpha Mug', 'Beta Plate', 'Delta Bowl', 'Gamma Lamp']);
    assert.equal(query(), 'sort=title_asc');
    await sort.selectOption({ label: 'Price, low to high' });
    await expectListed(page, ['Alpha Mug', 'Delta Bowl', 'Beta Plate', 'Gamma Lamp']);
    await sort.selectOption({ label: 'Price, high to low' });
    await expectListed(page, ['Gamma Lamp', 'Beta Plate', 'Delta Bowl', 'Alpha Mug']);
    await page.getByRole('table', { name: 'Products, price, high to low' }).waitFor();

    // Stock: sellable units, low at 5 or fewer (out of stock included).
    await stock.selectOption({ label: 'Low (5 or fewer)' });
    await expectListed(page, ['Gamma Lamp', 'Beta Plate', 'Delta Bowl']);
    await stock.selectOption({ label: 'Out of stock' });
    await expectListed(page, ['Gamma Lamp']);
    await stock.selectOption({ label: 'In stock' });
    await expectListed(page, ['Beta Plate', 'Delta Bowl', 'Alpha Mug']);

    // A collection, with the stock filter and the status.
    await collection.selectOption({ label: 'Kitchen' });
    await expectListed(page, ['Beta Plate', 'Delta Bowl', 'Alpha Mug']);
    await stock.selectOption({ label: 'Low (5 or fewer)' });
    await expectListed(page, ['Beta Plate', 'Delta Bowl']);
    await search.getByRole('combobox', { name: 'Status' }).selectOption('active');
    await expectListed(page, ['Beta Plate']);
    assert.equal(query(), `sort=price_desc&stock=low&collection=${kitchen.id}&status=active`);
    await assertAccessible(page, 'products list with filters');

    // The address keeps them: a reload shows the same list and controls.
    await page.reload();
    await expectListed(page, ['Beta Plate']);
    assert.equal(await collection.inputValue(), kitchen.id);
    assert.equal(await stock.inputValue(), 'low');
    assert.equal(await sort.inputValue(), 'price_desc');

    // Nothing matches: the page says which filters, and clears them (the order stays).
    await stock.selectOption({ label: 'Out of stock' });
    await page
      .getByText(
        'No products match with the status active in the collection Kitchen that are out of stock. Try another search or filter.',
      )
      .waitFor();
    await page.getByRole('button', { name: 'Clear the search and filters' }).click();
    await expectListed(page, ['Gamma Lamp', 'Beta Plate', 'Delta Bowl', 'Alpha Mug']);
    assert.equal(query(), 'sort=price_desc');
    assert.equal(await stock.inputValue(), '');
    assert.equal(await collection.inputValue(), '');

    // Pages follow the order: 22 spoons by price, high to low, 20 then 2; a new order starts at page 1.
    for (let i = 1; i <= 22; i++) await make(`Spoon ${String(i).padStart(2, '0')}`, 100 * i, 1);
    await page.getByRole('searchbox', { name: 'Search' }).fill('spoon');
    const spoons = (from: number, to: number, step: number) => {
      const titles: string[] = [];
      for (let i = from; step > 0 ? i <= to : i >= to; i += step)
        titles.push(`Spoon ${String(i).padStart(2, '0')}`);
      return titles;
    };
    await expectListed(page, spoons(22, 3, -1));
    await page.getByRole('button', { name: 'Next page' }).click();
    await expectListed(page, spoons(2, 1, -1));
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Page 2').waitFor();
    await sort.selectOption({ label: 'Price, low to high' });
    await expectListed(page, spoons(1, 20, 1));
    await page.getByRole('navigation', { name: 'Pages' }).getByText('Page 1').waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await expectListed(page, spoons(21, 22, 1));
    assert.equal(query(), 'sort=price_asc&q=spoon');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the product form is usable at 375 px', async () => {
    const { shop: store, admin } = await openShop(h.live);
    const product = await admin.products.create({
      title: 'Small screen tee',
      status: 'draft',
      variants: [{ label: 'One', priceAmount: 1000, onHand: 1 }],
    });
    const { context, page, problems } = await signedInPage(h, store, { width: 375, height: 740 });
    await page.goto(`/admin/products/${product.id}`);
    await page.getByRole('heading', { name: 'Small screen tee', level: 1 }).waitFor();
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(overflow <= 375, `no horizontal scrolling (${overflow}px wide)`);
    const price = page.getByRole('group', { name: 'Variant 1' }).getByLabel('Price (USD)', { exact: true });
    const box = await price.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 375, 'the price field fits the screen');
    await price.fill('12.34');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    assert.equal((await admin.products.get(product.id)).variants[0]!.priceAmount, 1234);
    assert.deepEqual(problems, []);
    await context.close();
  });
});

describe('collections in the console', () => {
  test('a manual collection reordered by drag, by keyboard and by the Move buttons; the order is stored', async () => {
    const { shop: store, admin } = await openShop(h.live);
    const make = (title: string) =>
      admin.products.create({
        title,
        status: 'active',
        variants: [{ label: 'One', priceAmount: 1000, onHand: 1 }],
      });
    const alpha = await make('Alpha Mug');
    const beta = await make('Beta Plate');
    const gamma = await make('Gamma Lamp');
    const { context, page, problems } = await signedInPage(h, store);

    await page.getByRole('link', { name: 'Collections' }).click();
    await page.getByText('No collections yet.').waitFor();
    await page.getByRole('link', { name: 'Add collection' }).click();
    await page.getByLabel('Title').fill('Front page');
    assert.equal(await page.getByLabel('Handle').inputValue(), 'front-page');
    const find = page.getByRole('searchbox', { name: 'Find products' });
    for (const title of ['Alpha Mug', 'Beta Plate', 'Gamma Lamp']) {
      await find.fill(title.split(' ')[0]!.toLowerCase());
      await page.getByRole('button', { name: `Add ${title}` }).click();
      await page.getByRole('button', { name: `Added (${title} is in the collection)` }).waitFor();
    }
    await expectOrder(page, ['Alpha Mug', 'Beta Plate', 'Gamma Lamp']);
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByText('Created “Front page”.').waitFor();
    const collectionId = new URL(page.url()).pathname.split('/').pop()!;
    const storedOrder = async () =>
      (await admin.request('adminGetCollection', { path: { id: collectionId } })).productIds;
    assert.deepEqual(await storedOrder(), [alpha.id, beta.id, gamma.id]);

    // Drag Gamma to the top with the mouse.
    const handle = (title: string) => page.getByRole('button', { name: `Drag ${title}` });
    const from = (await handle('Gamma Lamp').boundingBox())!;
    const to = (await handle('Alpha Mug').boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 10, { steps: 4 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
    await page.mouse.up();
    await expectOrder(page, ['Gamma Lamp', 'Alpha Mug', 'Beta Plate']);
    await page.getByRole('button', { name: 'Save collection' }).click();
    await page.getByText('Saved.').waitFor();
    assert.deepEqual(await storedOrder(), [gamma.id, alpha.id, beta.id]);

    // With the keyboard: pick Alpha up with Space, one down, drop with Space.
    await handle('Alpha Mug').focus();
    await page.keyboard.press('Space');
    await page.locator('.sortable-item.dragging').waitFor();
    await page.keyboard.press('ArrowDown');
    await page.getByText('Alpha Mug is over position 3 of 3.').waitFor({ state: 'attached' });
    await page.keyboard.press('Space');
    await expectOrder(page, ['Gamma Lamp', 'Beta Plate', 'Alpha Mug']);
    // And the Move buttons, which keep focus on the moved product.
    await page.getByRole('button', { name: 'Move Beta Plate up' }).click();
    await expectOrder(page, ['Beta Plate', 'Gamma Lamp', 'Alpha Mug']);
    assert.equal(await page.evaluate<string>('document.activeElement?.id'), `move-down-${beta.id}`);
    await page.getByText('Beta Plate moved to position 1 of 3.').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Save collection' }).click();
    await page.getByText('Saved.').waitFor();
    assert.deepEqual(await storedOrder(), [beta.id, gamma.id, alpha.id]);
    await page.reload();
    await expectOrder(page, ['Beta Plate', 'Gamma Lamp', 'Alpha Mug']);
    await assertAccessible(page, 'manual collection');

    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a smart collection's rules show a live preview of the matching products", async () => {
    const { shop: store, admin } = await openShop(h.live);
    const make = (title: string, tags: string[], priceAmount: number) =>
      admin.products.create({
        title,
        status: 'active',
        tags,
        variants: [{ label: 'One', priceAmount, onHand: 1 }],
      });
    const mug = await make('Alpha Mug', ['Kitchen'], 1500);
    const plate = await make('Beta Plate', ['kitchen'], 4500);
    await make('Gamma Lamp', ['living'], 9000);
    const { context, page, problems } = await signedInPage(h, store);

    await page.goto('/admin/collections/new');
    await page.getByLabel('Title').fill('Kitchen');
    await page.getByLabel('Smart: products that match rules join automatically').check();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('Complete every condition').waitFor();
    const first = page.getByRole('group', { name: 'Condition 1' });
    await first.getByLabel('Value').fill('kitchen');
    await preview.getByText('2 products match').waitFor();
    assert.deepEqual(await preview.locator('.preview-list .member-title > a').allTextContents(), [
      'Alpha Mug',
      'Beta Plate',
    ]);

    await page.getByRole('button', { name: 'Add condition' }).click();
    const second = page.getByRole('group', { name: 'Condition 2' });
    await second.getByRole('combobox', { name: 'Field' }).selectOption('priceAmount');
    await second.getByRole('combobox', { name: 'Operator' }).selectOption('lt');
    await second.getByLabel('Amount (USD)').fill('40');
    await preview.getByText('1 product matches').waitFor();
    assert.deepEqual(await preview.locator('.preview-list .member-title > a').allTextContents(), [
      'Alpha Mug',
    ]);
    await page.getByRole('combobox', { name: 'Products must match' }).selectOption('any');
    await preview.getByText('2 products match').waitFor();
    await assertAccessible(page, 'smart collection');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'collections');

    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByText('Created “Kitchen”.').waitFor();
    const [collection] = (await admin.request('adminListCollections')).items;
    assert.deepEqual(collection?.rules, {
      match: 'any',
      conditions: [
        { field: 'tag', op: 'eq', value: 'kitchen' },
        { field: 'priceAmount', op: 'lt', value: 4000 },
      ],
    });
    const members = await admin.request('adminListCollectionProducts', { path: { id: collection.id } });
    assert.deepEqual(
      members.items.map((p) => p.id),
      [mug.id, plate.id],
    );
    // The saved rules are shown again, with their preview.
    await page.getByRole('region', { name: 'Preview' }).getByText('2 products match').waitFor();

    await page.getByRole('link', { name: 'Collections', exact: true }).first().click();
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Kitchen' }) });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Tag is equal to “kitchen” or Price is less than \$40\.00/);
    await assertAccessible(page, 'collections list');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
