/**
 * The product form's media manager and option matrix in Chromium (decisions `product-options` and `media-uploads`): images uploaded with
 * the file picker (two PNGs made with sharp) and refused when dropped as a text file named .png,
 * reordered with the Move buttons and by drag, alt texts, a variant's image, saved and read back
 * after a reload; options Size S/M × Colour Red/Blue making four rows (the existing variant carried
 * into the first), saved; removing M after a confirmation naming its variants, which are archived
 * (listed apart, no longer on the storefront), a refused restore showing its 409, the value added
 * back, a restore and an Add for the combinations without a variant. What the page shows, what the
 * Admin API stored and what the Storefront API lists are all checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createStorefrontClient, type AdminClient } from '@storefront/client';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { openShop, startedForFile } from '../../client/test/server.test-support.ts';
import { assertAccessible, screenshot, signedInPage, startConsole } from './browser.test-support.ts';

const h = startedForFile(startConsole);

/** What the test reads of a product: its images, options and variants (archived ones too). */
interface ProductRead {
  image: string | null;
  images: { id: string; url: string; alt: string | null; width: number; height: number }[];
  options: { name: string; values: string[] }[];
  variants: {
    id: string;
    sku: string | null;
    label: string;
    options: Record<string, string>;
    archived: boolean;
    imageId: string | null;
    priceAmount: number;
    onHand: number;
  }[];
}
const read = (admin: AdminClient, id: string): Promise<ProductRead> => admin.products.get(id);

/** Scrolls an element to the top of the window (for a screenshot); the test's lib has no DOM types. */
const scrollIntoView = (element: unknown) => (element as { scrollIntoView(): void }).scrollIntoView();

/** A small PNG of one colour. */
const png = (width: number, height: number, colour: { r: number; g: number; b: number }) =>
  sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();

/** The images list, as "width × height" of each, in order. */
async function shownImages(page: Page): Promise<string[]> {
  const sizes = await page
    .getByRole('list', { name: 'Images, in order' })
    .locator('.media-title .muted')
    .allTextContents();
  return sizes.map((text) => text.replace(/\s+/g, ' ').trim());
}

async function expectImages(page: Page, sizes: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen =
      (await page.getByRole('list', { name: 'Images, in order' }).count()) > 0 ? await shownImages(page) : [];
    if (JSON.stringify(seen) === JSON.stringify(sizes)) return;
    await page.waitForTimeout(50);
  }
  assert.deepEqual(seen, sizes);
}

/** The matrix's row headers (combinations), in order, with or without a variant. */
const matrixRows = (page: Page) =>
  page.getByRole('table', { name: /^Variants:/ }).locator('tbody th[scope="row"] .combo');

async function expectRows(page: Page, rows: string[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = await matrixRows(page).allTextContents();
    if (JSON.stringify(seen) === JSON.stringify(rows)) return;
    await page.waitForTimeout(50);
  }
  assert.deepEqual(seen, rows);
}

/** Adds values to an option by typing each and pressing Enter. */
async function addValues(page: Page, option: string, values: string[]): Promise<void> {
  const field = page.getByLabel(`New value of ${option}`);
  for (const value of values) {
    await field.fill(value);
    await field.press('Enter');
    await page
      .getByRole('list', { name: `Values of ${option}` })
      .getByLabel(new RegExp(`^${option} value \\d+$`))
      .last()
      .waitFor();
  }
}

describe('the product form: images and options', () => {
  test('images uploaded, a text file refused, reordered, alt texts, a variant image; kept after a reload', async () => {
    const { shop: store, admin } = await openShop(h.live);
    const product = await admin.products.create({
      title: 'Linen Shirt',
      status: 'active',
      variants: [{ label: 'One size', sku: 'LS-1', priceAmount: 4500, onHand: 3 }],
    });
    const red = await png(48, 32, { r: 200, g: 30, b: 30 });
    const blue = await png(32, 48, { r: 30, g: 60, b: 200 });
    const { context, page, problems } = await signedInPage(h, store);
    await page.goto(`/admin/products/${product.id}`);
    await page.getByRole('heading', { name: 'Linen Shirt', level: 1 }).waitFor();
    const media = page.getByRole('region', { name: 'Media' });
    await media.getByText('No images yet.').waitFor();

    // Two PNGs through the file picker: uploaded one after the other, in the order chosen.
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/admin/v1/media'))
        uploads.push(request.url());
    });
    await media.getByLabel('Choose images').setInputFiles([
      { name: 'red.png', mimeType: 'image/png', buffer: red },
      { name: 'blue.png', mimeType: 'image/png', buffer: blue },
    ]);
    await expectImages(page, ['48 × 32', '32 × 48']);
    assert.equal(uploads.length, 2, 'one upload per file');
    await media.getByRole('list', { name: 'Uploads' }).waitFor({ state: 'detached' });
    // The thumbnails are the 160 px copies, with their sizes, and really load.
    const thumbs = media.locator('img.media-thumb');
    assert.match((await thumbs.first().getAttribute('src')) ?? '', /^\/media\/[^?]+\.png\?w=160$/);
    assert.equal(await thumbs.first().getAttribute('width'), '48');
    assert.equal(await thumbs.first().getAttribute('height'), '32');
    await page.waitForFunction(
      (img) => {
        const image = img as { complete?: boolean; naturalWidth?: number } | null;
        return image?.complete === true && (image.naturalWidth ?? 0) > 0;
      },
      await thumbs.nth(1).elementHandle(),
    );
    // With images, the card image is the first one's: the address field is gone.
    assert.equal(await page.getByLabel('Image URL').count(), 0);

    // A text file named .png, dropped on the drop zone: the server's refusal is shown for it.
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['hello, this is text\\n'.repeat(20)], 'notes.png', { type: 'image/png' }));
      return transfer;
    })()`);
    await media.locator('.drop-zone').dispatchEvent('drop', { dataTransfer });
    const refused = media
      .getByRole('list', { name: 'Uploads' })
      .getByRole('listitem')
      .filter({ hasText: 'notes.png' });
    await refused.getByText(/not a JPEG, PNG, WebP, AVIF or GIF image/).waitFor();
    await expectImages(page, ['48 × 32', '32 × 48']);
    await assertAccessible(page, 'product form with a refused upload');
    await refused.getByRole('button', { name: 'Dismiss notes.png' }).click();
    await media.getByRole('list', { name: 'Uploads' }).waitFor({ state: 'detached' });

    // Reorder: Move up (focus stays on the moved image), then by drag, then Move down.
    await media.getByRole('button', { name: 'Move image 2 up' }).click();
    await expectImages(page, ['32 × 48', '48 × 32']);
    await page.getByText('Image 2 moved to position 1 of 2.').waitFor({ state: 'attached' });
    const handle = (n: number) => media.getByRole('button', { name: `Drag image ${n}` });
    const from = (await handle(2).boundingBox())!;
    const to = (await handle(1).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 10, { steps: 4 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
    await page.mouse.up();
    await expectImages(page, ['48 × 32', '32 × 48']);
    // dnd-kit swallows clicks for 50 ms after a drag (so that the drop is not a click): a timer
    // the page sets now for as long fires after dnd-kit's, set at the drop.
    await media.locator('.media-item.dragging').waitFor({ state: 'detached' });
    await page.evaluate('new Promise((resolve) => setTimeout(resolve, 50))');
    await media.getByRole('button', { name: 'Move image 1 down' }).click();
    await expectImages(page, ['32 × 48', '48 × 32']);

    // Alt texts, and the variant shows the red (second) image.
    await media.getByLabel('Alt text for image 1').fill('Blue linen shirt, front');
    await media.getByLabel('Alt text for image 2').fill('Red linen shirt, back');
    const variant = page.getByRole('group', { name: 'Variant 1' });
    await variant.getByLabel('Image').selectOption({ label: 'Image 2: Red linen shirt, back' });
    await assertAccessible(page, 'product form with images');
    await media.getByRole('heading', { name: 'Media' }).evaluate(scrollIntoView);
    await page.evaluate('document.activeElement?.blur()');
    await screenshot(page, 'product-media');

    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    let stored = await read(admin, product.id);
    assert.deepEqual(
      stored.images.map((image) => [image.width, image.height, image.alt]),
      [
        [32, 48, 'Blue linen shirt, front'],
        [48, 32, 'Red linen shirt, back'],
      ],
    );
    assert.equal(stored.image, stored.images[0]!.url, 'the card image is the first one');
    assert.equal(stored.variants[0]!.imageId, stored.images[1]!.id);

    // After a reload: the same order, alt texts and variant image.
    await page.reload();
    await page.getByRole('heading', { name: 'Linen Shirt', level: 1 }).waitFor();
    await expectImages(page, ['32 × 48', '48 × 32']);
    assert.equal(await media.getByLabel('Alt text for image 1').inputValue(), 'Blue linen shirt, front');
    assert.equal(await media.getByLabel('Alt text for image 2').inputValue(), 'Red linen shirt, back');
    assert.equal(await variant.getByLabel('Image').inputValue(), stored.images[1]!.id);

    // Removing the image a variant shows: the variant shows the product's again; the list is saved.
    await media.getByRole('button', { name: 'Remove image 2' }).click();
    await expectImages(page, ['32 × 48']);
    assert.equal(await variant.getByLabel('Image').inputValue(), '');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    stored = await read(admin, product.id);
    assert.deepEqual(
      stored.images.map((image) => image.alt),
      ['Blue linen shirt, front'],
    );
    assert.equal(stored.variants[0]!.imageId, null);

    // The products list shows the first image's 160 px copy.
    await page.getByRole('link', { name: 'Products', exact: true }).first().click();
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Linen Shirt' }) });
    await row.waitFor();
    assert.equal(await row.locator('img.thumb').getAttribute('src'), `${stored.images[0]!.url}?w=160`);

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an option matrix: four combinations saved; removing a value archives its variants, off the storefront; restore and add', async () => {
    const { shop: store, admin } = await openShop(h.live);
    const product = await admin.products.create({
      title: 'Tee',
      status: 'draft',
      variants: [{ label: 'One size', sku: 'TEE-SR', priceAmount: 2500, onHand: 5 }],
    });
    const original = product.variants[0]!;
    const { context, page, problems } = await signedInPage(h, store);
    await page.goto(`/admin/products/${product.id}`);
    await page.getByRole('heading', { name: 'Tee', level: 1 }).waitFor();

    // Size S, M and Colour Red, Blue: the existing variant is carried into S / Red, three new rows.
    await page.getByRole('button', { name: 'Add option' }).click();
    const first = page.getByRole('group', { name: 'Option 1' });
    await first.getByLabel('Name').fill('Size');
    await addValues(page, 'Size', ['S', 'M']);
    await expectRows(page, ['S', 'M']);
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByRole('group', { name: 'Option 2' }).getByLabel('Name').fill('Colour');
    await addValues(page, 'Colour', ['Red', 'Blue']);
    await expectRows(page, ['S / Red', 'S / Blue', 'M / Red', 'M / Blue']);
    await page.getByRole('table', { name: 'Variants: 4 of 4 combinations' }).waitFor();
    // New rows: the first variant's price, no stock, no SKU.
    assert.equal(await page.getByLabel('M / Blue price (USD)').inputValue(), '25.00');
    assert.equal(await page.getByLabel('M / Blue on hand').inputValue(), '0');
    assert.equal(await page.getByLabel('M / Blue SKU').inputValue(), '');
    assert.equal(await page.getByLabel('S / Red SKU').inputValue(), 'TEE-SR', 'the saved variant, carried');
    for (const [combo, sku, onHand] of [
      ['S / Blue', 'TEE-SB', '4'],
      ['M / Red', 'TEE-MR', '3'],
      ['M / Blue', 'TEE-MB', '2'],
    ] as const) {
      await page.getByLabel(`${combo} SKU`).fill(sku);
      await page.getByLabel(`${combo} on hand`).fill(onHand);
    }
    await page.getByLabel('M / Blue price (USD)').fill('27.50');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('active');
    await assertAccessible(page, 'product form with an option matrix');
    await page.getByRole('heading', { name: 'Variants', level: 2 }).evaluate(scrollIntoView);
    await page.evaluate('document.activeElement?.blur()');
    await screenshot(page, 'product-options');

    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    let stored = await read(admin, product.id);
    assert.deepEqual(stored.options, [
      { name: 'Size', values: ['S', 'M'] },
      { name: 'Colour', values: ['Red', 'Blue'] },
    ]);
    const live = () => stored.variants.filter((v) => !v.archived);
    assert.deepEqual(
      live().map((v) => [v.label, v.sku, v.priceAmount, v.onHand]),
      [
        ['S / Red', 'TEE-SR', 2500, 5],
        ['S / Blue', 'TEE-SB', 2500, 4],
        ['M / Red', 'TEE-MR', 2500, 3],
        ['M / Blue', 'TEE-MB', 2750, 2],
      ],
    );
    assert.equal(live()[0]!.id, original.id, 'the existing variant kept its id (and its history)');
    assert.equal((await admin.products.get(product.id)).status, 'active');
    await expectRows(page, ['S / Red', 'S / Blue', 'M / Red', 'M / Blue']);

    // Remove M: a confirmation names the variants it archives; nothing is deleted.
    await page.getByRole('button', { name: 'Remove M from Size' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove “M” from Size?' });
    await dialog.waitFor();
    assert.deepEqual(await dialog.getByRole('listitem').allTextContents(), [
      'M / Red (TEE-MR)',
      'M / Blue (TEE-MB)',
    ]);
    await assertAccessible(page, 'the confirmation of a removed value');
    await dialog.getByRole('button', { name: 'Remove M' }).click();
    await expectRows(page, ['S / Red', 'S / Blue']);
    await page.getByRole('list', { name: 'Archived when you save' }).getByText('M / Red (TEE-MR)').waitFor();
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    const archivedList = page.getByRole('region', { name: 'Archived variants' });
    await archivedList.getByText('M / Red (TEE-MR)').waitFor();
    await archivedList.getByText('M / Blue (TEE-MB)').waitFor();
    stored = await read(admin, product.id);
    assert.deepEqual(stored.options, [
      { name: 'Size', values: ['S'] },
      { name: 'Colour', values: ['Red', 'Blue'] },
    ]);
    assert.deepEqual(
      stored.variants.map((v) => [v.sku, v.archived]),
      [
        ['TEE-SR', false],
        ['TEE-SB', false],
        ['TEE-MR', true],
        ['TEE-MB', true],
      ],
    );
    // The storefront no longer lists them.
    const storefront = createStorefrontClient({
      baseUrl: h.live.baseUrl,
      publishableKey: store.publishableKey,
    });
    const detail = await storefront.products.get(product.id);
    assert.deepEqual(
      detail.variants.map((v) => v.sku),
      ['TEE-SR', 'TEE-SB'],
    );

    // Restoring M / Red while M is not a value: refused, with the server's reason.
    await archivedList.getByRole('button', { name: 'Restore M / Red' }).click();
    await archivedList.getByText(/has option values the product no longer has/).waitFor();
    await assertAccessible(page, 'archived variants with a refused restore');

    // M added back: its combinations have no variant (archived ones have them), then M / Red is
    // restored and M / Blue gets a new variant.
    await addValues(page, 'Size', ['M']);
    await expectRows(page, ['S / Red', 'S / Blue', 'M / Red', 'M / Blue']);
    await page.getByRole('table', { name: 'Variants: 2 of 4 combinations' }).waitFor();
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    await archivedList.getByRole('button', { name: 'Restore M / Red' }).click();
    await page.getByText('Restored M / Red.').waitFor();
    await page.getByLabel('M / Red SKU').waitFor();
    assert.equal(await page.getByLabel('M / Red SKU').inputValue(), 'TEE-MR');
    await page.getByRole('button', { name: 'Add M / Blue' }).click();
    await page.getByLabel('M / Blue SKU').fill('TEE-MB2');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    stored = await read(admin, product.id);
    assert.deepEqual(
      stored.variants.map((v) => [v.sku, v.label, v.archived]),
      [
        ['TEE-SR', 'S / Red', false],
        ['TEE-SB', 'S / Blue', false],
        ['TEE-MR', 'M / Red', false],
        ['TEE-MB', 'M / Blue', true],
        ['TEE-MB2', 'M / Blue', false],
      ],
    );
    await archivedList.getByText('M / Blue (TEE-MB)').waitFor();
    assert.equal(await archivedList.getByRole('listitem').count(), 1);

    // A new option on this active product: the API gives every live variant its first value, in one save.
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByRole('group', { name: 'Option 3' }).getByLabel('Name').fill('Fabric');
    await addValues(page, 'Fabric', ['Cotton']);
    await expectRows(page, [
      'S / Red / Cotton',
      'S / Blue / Cotton',
      'M / Red / Cotton',
      'M / Blue / Cotton',
    ]);
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('Saved.').waitFor();
    stored = await read(admin, product.id);
    assert.equal(stored.options.length, 3);
    assert.equal((await admin.products.get(product.id)).status, 'active');
    assert.deepEqual(
      live()
        .map((v) => v.label)
        .sort(),
      ['M / Blue / Cotton', 'M / Red / Cotton', 'S / Blue / Cotton', 'S / Red / Cotton'],
    );

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a new product with an option and an image, created in one call; a new row left out', async () => {
    const { shop: store, admin } = await openShop(h.live);
    const { context, page, problems } = await signedInPage(h, store);
    await page.goto('/admin/products/new');
    await page.getByRole('heading', { name: 'Add product', level: 1 }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Hoodie');
    await page
      .getByRole('group', { name: 'Variant 1' })
      .getByLabel('Price (USD)', { exact: true })
      .fill('40');

    // Several values at once, separated by commas: the typed variant becomes S, and M is new.
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByRole('group', { name: 'Option 1' }).getByLabel('Name').fill('Size');
    await page.getByLabel('New value of Size').fill('S, M,');
    await expectRows(page, ['S', 'M']);
    assert.equal(await page.getByLabel('M price (USD)').inputValue(), '40.00');
    await page.getByRole('button', { name: 'Leave out M' }).click();
    await page.getByRole('button', { name: 'Add M' }).waitFor();
    await page.getByRole('table', { name: 'Variants: 1 of 2 combinations' }).waitFor();

    const media = page.getByRole('region', { name: 'Media' });
    await media
      .getByLabel('Choose images')
      .setInputFiles([
        { name: 'grey.png', mimeType: 'image/png', buffer: await png(20, 20, { r: 120, g: 120, b: 120 }) },
      ]);
    await expectImages(page, ['20 × 20']);
    await media.getByLabel('Alt text for image 1').fill('Grey hoodie');
    await page.getByLabel('S image').selectOption({ label: 'Image 1: Grey hoodie' });
    await assertAccessible(page, 'new product with an option and an image');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { name: 'Hoodie', level: 1 }).waitFor();
    await page.getByText('Created “Hoodie”.').waitFor();

    const [created] = (await admin.products.list({ q: 'hoodie' })).items;
    assert.ok(created);
    const stored = await read(admin, created.id);
    assert.deepEqual(stored.options, [{ name: 'Size', values: ['S', 'M'] }]);
    assert.deepEqual(
      stored.variants.map((v) => [v.label, v.options, v.priceAmount, v.imageId]),
      [['S', { Size: 'S' }, 4000, stored.images[0]!.id]],
    );
    assert.deepEqual(
      stored.images.map((image) => image.alt),
      ['Grey hoodie'],
    );
    // The saved product's matrix: M has no variant yet.
    await expectRows(page, ['S', 'M']);
    await page.getByRole('button', { name: 'Add M' }).waitFor();

    assert.deepEqual(problems, []);
    await context.close();
  });
});
